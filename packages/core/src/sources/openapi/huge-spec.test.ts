import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolTree } from "@openassistant/sdk";
import { makeHugeSpec } from "@openassistant/testkit/openapi/huge-spec.ts";
import { type Recorder, startRecorder } from "@openassistant/testkit/openapi/recorder.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createApprovalBroker } from "../../approvals/broker.ts";
import { openSqliteApprovals } from "../../approvals/sqlite/open.ts";
import { createApprovalRuleStore } from "../../approvals/sqlite/rules.ts";
import { declarationsReachedBy } from "../../codemode/reachable-declarations.ts";
import { createCodeModeRunner } from "../../codemode/runner.ts";
import { withDiscovery } from "../../codemode/tool-discovery.ts";
import { createTypechecker, OA_DIAGNOSTIC } from "../../codemode/typecheck.ts";
import { openDatabase } from "../../db/open.ts";
import { createSqliteReceiptStore } from "../../receipts/sqlite/store.ts";
import { createSandboxPool } from "../../sandbox/pool.ts";
import { flattenToolTree } from "../../tools/flatten.ts";
import { OPENAPI_LOAD_TIMEOUT_MS, openApiBundles } from "./bundle.ts";
import { loadOpenApiSource, type OpenApiSource } from "./index.ts";

/**
 * A spec of more than 10,000 operations (Microsoft Graph's v1.0 has 11,422) loads whole, and a
 * snippet is typechecked against the declarations it reaches, then runs against a recorder.
 */
const OPERATIONS = 10_005;
let recorder: Recorder;
let source: OpenApiSource;
let tree: ToolTree;
const checker = createTypechecker();

beforeAll(async () => {
  recorder = startRecorder();
  const file = join(makeTempDir("oa-openapi-huge-"), "huge.json");
  writeFileSync(file, JSON.stringify(makeHugeSpec({ operations: OPERATIONS })));
  source = await loadOpenApiSource({ name: "graph", spec: file, baseUrl: `${recorder.url}/v1.0` });
  tree = withDiscovery({ graph: source.tree });
}, 30_000);
afterAll(async () => {
  await checker.close();
  await recorder.close();
});

describe("a spec of more than 10,000 operations", () => {
  test("every operation loads as a tool; none is left out", () => {
    expect(source.skipped).toEqual([]);
    expect(source.operations).toBe(OPERATIONS);
    expect(flattenToolTree(source.tree).length).toBe(OPERATIONS);
  });

  test("its first parse gets its own load limit, past the 10 s of a plugin factory", () => {
    const [bundle] = openApiBundles({ graph: { spec: "graph.json", enabled: true } } as never, { projectRoot: "/p" });
    expect(bundle!.timeoutMs).toBe(OPENAPI_LOAD_TIMEOUT_MS);
    expect(OPENAPI_LOAD_TIMEOUT_MS).toBeGreaterThan(10_000);
  });

  test("a snippet is checked against the tools it names, and a wrong input is caught", async () => {
    const code = 'return await tools.graph.set7.messages.listmessages({ "set7-id": "u1", $top: 5 });';
    const reached = declarationsReachedBy(tree, code);
    if (!reached.ok) throw new Error(reached.text);
    expect(reached.text).toContain("listmessages");
    expect(reached.text).not.toContain("set8");
    expect(await checker.check(code, reached.text)).toEqual({ ok: true });
    const wrong = 'return await tools.graph.set7.messages.listmessages({ "set7-id": "u1", $top: "five" });';
    const wrongReached = declarationsReachedBy(tree, wrong);
    if (!wrongReached.ok) throw new Error(wrongReached.text);
    const failed = await checker.check(wrong, wrongReached.text);
    expect(failed.ok).toBe(false);
  }, 30_000);

  test("code that reaches the whole namespace is refused with what to do, not declared whole", () => {
    const result = declarationsReachedBy(tree, "const g = tools.graph; return Object.keys(g);");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostics[0]!.code).toBe(OA_DIAGNOSTIC.reachesTooMany);
    expect(result.text).toContain(`reaches ${OPERATIONS} tools (through tools.graph)`);
    expect(result.text).toContain("tools.$search");
  });

  test("the checked snippet runs in the sandbox and its request reaches the recorder", async () => {
    const dir = makeTempDir("oa-openapi-huge-run-");
    const db = openDatabase(join(dir, "oa.sqlite"));
    const sandbox = createSandboxPool({ minIdle: 1 });
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    const runner = createCodeModeRunner({
      tools: tree,
      receipts: createSqliteReceiptStore(db),
      requestApproval: broker.requestApproval,
      standing: createApprovalRuleStore(db),
      sandbox,
    });
    try {
      const code =
        'return await tools.graph.set42.events.getevents({ "set42-id": "u 1", "events-id": "e1", $select: ["id", "eventsProperty3"] });';
      const reached = declarationsReachedBy(tree, code);
      if (!reached.ok) throw new Error(reached.text);
      expect(await checker.check(code, reached.text)).toEqual({ ok: true });
      const result = await runner.runPromise(code);
      expect(result.ok).toBe(true);
      expect(recorder.last()).toMatchObject({
        method: "GET",
        target: "/v1.0/set42/u%201/events/e1?%24select=id,eventsProperty3",
      });
    } finally {
      await runner.close();
      await sandbox.close();
      db.close();
    }
  }, 30_000);
});

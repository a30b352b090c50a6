/**
 * The host boundary as the runner enforces it, with and without a typecheck before it:
 * nothing of the model's code runs on the host (macro payloads, module loading, wrapper escapes),
 * and tool inputs reach `run()` as plain data (no own __proto__ / constructor / prototype keys).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineTool, z } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createApprovalBroker } from "../approvals/broker.ts";
import { openSqliteApprovals } from "../approvals/sqlite/open.ts";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { generateDeclarations } from "./declarations.ts";
import { createCodeModeRunner } from "./runner.ts";
import { createTypechecker, OA_DIAGNOSTIC } from "./typecheck.ts";

const dir = makeTempDir();
const MARKER = join(dir, "PWNED");
const ran: unknown[] = [];

/** A tool author's naive deep merge: exactly what a polluted input would exploit. */
function naiveMerge(target: Record<string, unknown>, source: unknown): Record<string, unknown> {
  if (typeof source !== "object" || source === null) return target;
  for (const [k, v] of Object.entries(source)) {
    if (typeof v === "object" && v !== null) {
      if (typeof target[k] !== "object" || target[k] === null) target[k] = {};
      naiveMerge(target[k] as Record<string, unknown>, v);
    } else target[k] = v;
  }
  return target;
}
const merging = <S extends z.ZodRawShape>(args: z.ZodObject<S>) =>
  defineTool({
    description: "Merges its input into defaults",
    approval: "auto",
    args,
    run: async (input: unknown) => {
      ran.push(input);
      return Object.keys(naiveMerge({}, input));
    },
  });

const tools = {
  t: {
    unknown: merging(z.object({ v: z.unknown() })),
    record: merging(z.object({ r: z.record(z.string(), z.unknown()) })),
    loose: merging(z.looseObject({})),
    passthrough: merging(z.object({}).passthrough()),
    nested: merging(z.object({ opts: z.unknown() })),
    ping: defineTool({ description: "Ping", approval: "auto", args: z.object({}), run: async () => "pong" }),
  },
};

const db = openDatabase(join(dir, "oa.sqlite"));
const receipts = createSqliteReceiptStore(db);
const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
const sandbox = createSandboxPool({ minIdle: 1 });
const runner = createCodeModeRunner({ tools, receipts, requestApproval: broker.requestApproval, sandbox });
const checker = createTypechecker();
const declarations = generateDeclarations(tools).text;

beforeAll(async () => {
  await Promise.all([sandbox.warmUp(), checker.warmUp()]);
}, 60_000);
afterAll(async () => {
  await runner.close();
  await sandbox.close();
  await checker.close();
  db.close();
});

const touch = JSON.stringify(["touch", MARKER]);
/** Real macro payloads: each would run `touch MARKER` on the host if Bun's transpiler saw it with macros on. */
const HOST_PAYLOADS = [
  `}\nimport { spawnSync } from "bun" with { type: "macro" };\nspawnSync(${touch});\nasync function again() {`,
  `}\nimport { spawnSync } from "bun" assert { type: "macro" };\nconst r = spawnSync(${touch});\n{`,
  `return 1;\n}\nimport { spawnSync as s } from "bun" with { type: "macro" };\ns(${touch});\nfunction f() {`,
  `}\nimport { writeFileSync } from "node:fs" with { type: "macro" };\nwriteFileSync(${JSON.stringify(MARKER)}, "x");\n{`,
  `// \u2028}\nimport { spawnSync } from "bun" with { type: "macro" };\nspawnSync(${touch});\n{`,
  `const s = "}"; \\u0069mport { spawnSync } from "bun" with { type: "macro" }; spawnSync(${touch});`,
  `const m = await import("bun");\nm.spawnSync(${touch});`,
  `const fs = require("node:fs");\nfs.writeFileSync(${JSON.stringify(MARKER)}, "x");`,
  `return import.meta.require("node:fs");`,
  `export const x = 1;`,
];

describe("nothing of the model's code runs on the host", () => {
  test("the runner refuses module loading and wrapper escapes before any host-side processing (no typecheck ran)", async () => {
    for (const code of HOST_PAYLOADS) {
      const result = await runner.runPromise(code);
      expect(result.ok).toBe(false);
      expect(result.error?.name).toBe("ScriptError");
      expect(result.error?.message).toMatch(
        /`import` is not allowed|`require` is not available|`export` is not allowed|unbalanced braces/,
      );
      expect(result.calls).toEqual([]);
      expect(receipts.byRun(result.runId)).toEqual([]);
      expect(existsSync(MARKER)).toBe(false);
    }
  });

  test("the typecheck refuses the same payloads before TypeScript parses them, and the runner refuses them anyway", async () => {
    for (const code of HOST_PAYLOADS) {
      const answered = checker.stats().checked;
      const check = await checker.check(code, declarations);
      // Refused by the pre-check: no checker process was asked (TypeScript never saw the code).
      expect(checker.stats().checked).toBe(answered);
      expect(check.ok).toBe(false);
      if (!check.ok)
        expect([OA_DIAGNOSTIC.moduleAccess, OA_DIAGNOSTIC.escapesWrapper]).toContain(
          check.diagnostics[0]!.code as 90002 | 90003,
        );
      expect((await runner.runPromise(code)).ok).toBe(false);
      expect(existsSync(MARKER)).toBe(false);
    }
  });

  test("ordinary snippets still run", async () => {
    const code =
      'const r = await tools.t.ping({});\nconst re = /^p(o)ng$/;\nreturn `${r}:${re.test(r as string)}:${"import" + "ed"}`;';
    const answered = checker.stats().checked;
    expect(await checker.check(code, declarations)).toEqual({ ok: true });
    expect(checker.stats().checked).toBe(answered + 1); // the count the refusals above are held to
    const result = await runner.runPromise(code);
    expect(result).toMatchObject({ ok: true, valueJson: '"pong:true:imported"' });
  });
});

describe("tool inputs are plain data", () => {
  const POLLUTING: Array<[string, string]> = [
    ['tools.t.loose(JSON.parse(\'{"__proto__": {"polluted": "yes"}}\'))', "__proto__"],
    ['tools.t.unknown({ v: JSON.parse(\'{"__proto__": {"polluted": "yes"}}\') })', "v.__proto__"],
    ['tools.t.record({ r: { ["__proto__"]: { polluted: "yes" } } })', "r.__proto__"],
    ['tools.t.loose({ a: { constructor: { prototype: { polluted: "yes" } } } })', "a.constructor"],
    ['tools.t.passthrough({ x: [1, { prototype: { polluted: "yes" } }] })', "x[1].prototype"],
    ['tools.t.nested({ opts: JSON.parse(\'{"deep": {"__proto__": {"polluted": "yes"}}}\') })', "opts.deep.__proto__"],
    [
      'tools.t.unknown({ v: [{ ok: 1 }, Object.defineProperty({}, "__proto__", { value: { polluted: "yes" }, enumerable: true })] })',
      "v[1].__proto__",
    ],
    ['tools.t.record({ r: { constructor: "x" } })', "r.constructor"],
  ];

  test("own __proto__ / constructor / prototype keys are refused at the boundary, whatever the schema, naming the field", async () => {
    for (const [call, path] of POLLUTING) {
      const before = ran.length;
      const result = await runner.runPromise(
        `try { await ${call}; return "ran"; } catch (e) { return [(e as Error).name, (e as Error).message]; }`,
      );
      expect(result.ok).toBe(true);
      const [name, message] = JSON.parse(result.valueJson!) as [string, string];
      expect(name).toBe("ToolInputError");
      expect(message).toContain(`${path}: a key named`);
      expect(message).toContain("rename the field");
      expect(ran.length).toBe(before);
      const phases = receipts.byRun(result.runId).map((r) => r.phase);
      expect(phases).toEqual(["requested", "failed"]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  test("the same schemas accept plain data, including the words as values", async () => {
    const result = await runner.runPromise(
      'return [await tools.t.unknown({ v: { a: "__proto__" } }), await tools.t.record({ r: { my_constructor: 1 } }), await tools.t.nested({ opts: { list: ["prototype"] } })];',
    );
    expect(result).toMatchObject({ ok: true });
    expect(JSON.parse(result.valueJson!)).toEqual([["v"], ["r"], ["opts"]]);
  });
});

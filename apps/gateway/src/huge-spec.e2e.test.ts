import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeHugeSpec } from "@openassistant/testkit/openapi/huge-spec.ts";
import { startRecorder } from "@openassistant/testkit/openapi/recorder.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startProjectGateway } from "../test/harness.ts";

// Parsing a 10,000-operation spec is seconds on a busy machine.
setDefaultTimeout(120_000);

describe("a spec of more than 10,000 operations in the gateway", () => {
  test("loads whole; the prompt lists namespaces; a snippet is checked against the tools it names and runs; one reaching the whole namespace is refused with what to do", async () => {
    const recorder = startRecorder();
    const api = await startFakeAnthropic();
    const dir = makeTempDir("oa-huge-e2e-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    writeFileSync(join(dir, "graph.json"), JSON.stringify(makeHugeSpec({ operations: 10_005 })));
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({
        openapi: { graph: { spec: "graph.json", baseUrl: `${recorder.url}/v1.0` } },
        workspace: { enabled: false },
      }),
    );
    const gateway = await startProjectGateway(dir, api.url);
    try {
      expect(gateway.tools().count).toBe(10_005 + 2 + 3); // the operations, $search and $describe, tools.schedules.*
      expect(gateway.tools().diagnostics).toEqual([]);
      api.script([
        toolUseTurn({
          id: "toolu_all",
          name: "execute",
          input: { code: "const g = tools.graph; return Object.keys(g).length;" },
        }),
        toolUseTurn({
          id: "toolu_one",
          name: "execute",
          input: { code: 'return await tools.graph.set3.notes.listnotes({ "set3-id": "u1", $top: 2 });' },
        }),
        textTurn("Done."),
      ]);
      const out = await gateway.handleMessage({ sessionKey: "s1", surface: "terminal", text: "list u1's notes" });
      const first = JSON.stringify(api.messageRequests()[0]!.body.system);
      expect(first).toContain("tools.graph (10005 tools)");
      expect(first).toContain("tools.$search");
      const refusal = JSON.stringify(api.messageRequests()[1]!.body.messages);
      expect(refusal).toContain("failed the typecheck");
      expect(refusal).toContain("this code reaches 10005 tools (through tools.graph)");
      expect(recorder.requests.map((r) => `${r.method} ${r.target}`)).toEqual(["GET /v1.0/set3/u1/notes?%24top=2"]);
      const succeeded = (
        await Promise.all(out.runIds.map((r) => gateway.receipts.query({ runId: r, phase: "succeeded" })))
      ).flat();
      expect(succeeded.map((r) => r.toolPath)).toEqual(["graph.set3.notes.listnotes"]);
    } finally {
      await gateway.shutdown();
      await api.close();
      await recorder.close();
      expect(api.violations).toEqual([]);
    }
  });
});

/**
 * Every path by which code reaches the sandbox, against payloads that would run on the host if
 * Bun's transpiler saw them with macros on: the gateway's `execute` tool (real SDK → fake
 * Anthropic, real checker process, real sandbox) and the HTTP API (read-only: it cannot submit
 * code). The runner API without a typecheck is covered in core (codemode/runner-boundary.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { lastToolResult, startHarness, type Harness } from "../../test/harness.ts";

let h: Harness;
let marker: string;
beforeAll(async () => {
  h = await startHarness({ settings: { http: { port: 0 }, turn: { maxRepairRounds: 10 } } as never });
  marker = join(h.dir, "PWNED");
}, 60_000);
afterAll(() => h.close());

const payloads = () => {
  const touch = JSON.stringify(["touch", marker]);
  return [
    `}\nimport { spawnSync } from "bun" with { type: "macro" };\nspawnSync(${touch});\nasync function again() {`,
    `}\nimport { spawnSync } from "bun" assert { type: "macro" };\nspawnSync(${touch});\n{`,
    `// \u2028}\nimport { spawnSync } from "bun" with { type: "macro" };\nspawnSync(${touch});\n{`,
    `const m = await import("bun");\nm.spawnSync(${touch});`,
    `const fs = require("node:fs");\nfs.writeFileSync(${JSON.stringify(marker)}, "x");`,
  ];
};

describe("the execute tool never runs model code on the host", () => {
  test("each payload comes back as a refused typecheck, nothing runs, no receipt is written", async () => {
    const list = payloads();
    h.api.script([
      ...list.map((code, i) => toolUseTurn({ id: `toolu_${i}`, name: "execute", input: { code } })),
      textTurn("done"),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "boundary", surface: "terminal", text: "x" });
    expect(outcome.runIds).toEqual([]);
    const requests = h.api.messageRequests();
    for (let i = 1; i <= list.length; i++) {
      const result = lastToolResult(requests[i]!.body);
      expect(result.is_error).toBe(true);
      expect(result.content).toStartWith("The code was not run: it failed the typecheck.");
      expect(result.content).toMatch(/`import` is not allowed|`require` is not available|unbalanced braces/);
    }
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  test("the HTTP API has no route that accepts code: it is read-only", async () => {
    const http = h.gateway.http!;
    const base = http.url;
    const auth = { authorization: `Bearer ${http.token}`, "content-type": "application/json" };
    for (const path of ["/runs", "/execute", "/runs/run_x", "/health"]) {
      const res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ code: payloads()[0] }),
      });
      expect(res.status).toBe(405);
    }
    expect(existsSync(marker)).toBe(false);
  });
});

import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { type RawTool, startRawToolsMcpServer } from "@openassistant/testkit/mcp/raw-tools-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startProjectGateway } from "../test/harness.ts";

setDefaultTimeout(30_000);

const ECHO: RawTool = { name: "echo", description: "Echo", inputSchema: { type: "object" } };

/** Hostile schemas of every kind the limits name (the full corpus is in packages/core's hostile-sources.test.ts). */
function hostile(): RawTool[] {
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { a: deep } };
  return [
    { name: "deep", inputSchema: deep },
    {
      name: "wide",
      inputSchema: {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`p${i}`, { type: "string" }])),
      },
    },
    { name: "remote", inputSchema: { type: "object", properties: { a: { $ref: "http://127.0.0.1:9/x.json" } } } },
  ];
}

describe("the gateway reloads a source that turned hostile", () => {
  test("the hostile tools are named with their limits, the others stay, and /health answers every poll during the reload", async () => {
    const tools: RawTool[] = [ECHO];
    const mcp = await startRawToolsMcpServer(tools);
    const api = await startFakeAnthropic();
    const dir = makeTempDir("oa-hostile-gw-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    const spec = (ops: Record<string, unknown>) =>
      JSON.stringify({ openapi: "3.0.3", info: { title: "S", version: "1" }, paths: ops });
    writeFileSync(join(dir, "spec.json"), spec({ "/pets": { get: { operationId: "listPets" } } }));
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({
        mcp: { servers: { evil: { url: mcp.url } } },
        openapi: { spec: { spec: "spec.json", baseUrl: "http://127.0.0.1:9/v1" } },
        workspace: { enabled: false },
      }),
    );
    const gateway = await startProjectGateway(dir, api.url, {}, { http: { port: 0 } });
    try {
      const http = gateway.http!;
      const paths = () =>
        gateway
          .tools()
          .entries?.flatMap((e) => e.tools.map((t) => t.path))
          ?.sort();
      // The gateway's own schedules tools are there too (#33).
      expect(paths()).toEqual(["evil.echo", "schedules.cancel", "schedules.create", "schedules.list", "spec.listPets"]);

      // The server's list and the spec turn hostile; the reload runs while /health is polled.
      tools.push(...hostile());
      const ops: Record<string, unknown> = { "/pets": { get: { operationId: "listPets" } } };
      for (const t of hostile())
        ops[`/${t.name}`] = {
          post: { operationId: t.name, requestBody: { content: { "application/json": { schema: t.inputSchema } } } },
        };
      writeFileSync(join(dir, "spec.json"), spec(ops));
      const polls: Array<{ status: number; during: boolean }> = [];
      let reloading = true;
      const poller = (async () => {
        while (reloading) {
          const res = await fetch(`${http.url}/health`, { headers: { authorization: `Bearer ${http.token}` } });
          await res.arrayBuffer();
          polls.push({ status: res.status, during: reloading });
        }
      })();
      const snapshot = await gateway.reloadTools().finally(() => {
        reloading = false;
      });
      await poller;

      // The gateway's own schedules tools are there too (#33).
      expect(paths()).toEqual(["evil.echo", "schedules.cancel", "schedules.create", "schedules.list", "spec.listPets"]);
      const errors = snapshot.diagnostics.filter((d) => d.level === "error").map((d) => [d.id, d.message]);
      expect(errors).toEqual(
        expect.arrayContaining(
          ["evil", "spec"].flatMap((source) => [
            [
              source,
              expect.stringMatching(
                new RegExp(
                  `^tool "deep" of source "${source}" is not loaded: its input schema nests deeper than 40 levels`,
                ),
              ),
            ],
            [
              source,
              expect.stringMatching(
                new RegExp(
                  `^tool "wide" of source "${source}" is not loaded: its input schema has 100000 entries in one object`,
                ),
              ),
            ],
            [
              source,
              expect.stringMatching(
                new RegExp(
                  `^tool "remote" of source "${source}" is not loaded: its input schema has a \\$ref to another document`,
                ),
              ),
            ],
          ]),
        ),
      );
      expect(errors.length).toBe(6);
      expect(polls.length).toBeGreaterThan(0);
      expect(polls.every((p) => p.status === 200)).toBe(true);
      expect(polls.some((p) => p.during)).toBe(true);
    } finally {
      await gateway.shutdown();
      await mcp.close();
      await api.close();
    }
  });
});

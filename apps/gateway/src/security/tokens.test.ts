/** Security invariant: the Discord bot token and the HTTP API token are secrets like any other. */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineTool, z } from "@openassistant/sdk";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import type { GatewayEvent } from "../events/types.ts";
import { startHarness } from "../../test/harness.ts";

// Not shaped like a real bot token, so only "configured secrets are redacted" can catch it.
const DISCORD_TOKEN = "custom-discord-bot-credential-4711";
let seen: { discord: string; http: string } = { discord: "", http: "" };

const h = await startHarness({
  tools: {
    leak: {
      echo: defineTool({
        description: "Returns the tokens it can see",
        approval: "auto",
        args: z.object({}),
        run: async () => seen,
      }),
      fail: defineTool({
        description: "Throws with the tokens in its message",
        approval: "auto",
        args: z.object({}),
        run: async () => {
          throw new Error(`auth failed for ${seen.discord} / Bearer-less ${seen.http}`);
        },
      }),
    },
  },
  // http without a token: the gateway generates one and stores it in the data dir.
  settings: { surfaces: { discord: { token: DISCORD_TOKEN } }, http: { port: 0 } },
});
afterAll(() => h.close());

test("the Discord token and the generated HTTP token never reach receipts, prompts, events, history or the database", async () => {
  const httpToken = h.gateway.http!.token;
  expect(httpToken).toStartWith("oa_");
  seen = { discord: DISCORD_TOKEN, http: httpToken };
  const code = [
    `const r = await tools.leak.echo({});`,
    `console.log("tokens", JSON.stringify(r));`,
    `try { await tools.leak.fail({}); } catch (e) { console.log((e as Error).message); }`,
    `return r;`,
  ].join("\n");
  h.api.script([toolUseTurn({ id: "tu_tokens", name: "execute", input: { code } }), textTurn("Done.")]);
  const events: GatewayEvent[] = [];
  const outcome = await h.gateway.handleMessage({
    sessionKey: "tokens",
    surface: "terminal",
    text: "go",
    onEvent: (e) => events.push(e),
  });

  const receipts = await h.gateway.receipts.byRun(outcome.runIds[0]!);
  // The tools ran and saw both tokens, so a leak would show.
  expect(receipts.map((r) => `${r.toolPath}:${r.phase}`)).toEqual([
    "leak.echo:requested",
    "leak.echo:started",
    "leak.echo:succeeded",
    "leak.fail:requested",
    "leak.fail:started",
    "leak.fail:failed",
  ]);
  expect(receipts.find((r) => r.phase === "succeeded")!.outputPreview).toBe(
    '{"discord":"[redacted]","http":"[redacted]"}',
  );
  expect(receipts.find((r) => r.phase === "failed")!.error).toBe("auth failed for [redacted] / Bearer-less [redacted]");

  const haystacks = {
    prompts: JSON.stringify(h.api.requests.map((r) => r.body)),
    receipts: JSON.stringify(receipts),
    events: JSON.stringify(events),
    history: JSON.stringify(
      await h.gateway.sessions.history((await h.gateway.sessions.getOrCreate("tokens", "terminal")).id),
    ),
  };
  for (const [where, text] of Object.entries(haystacks)) {
    expect({ where, discord: text.includes(DISCORD_TOKEN), http: text.includes(httpToken) }).toEqual({
      where,
      discord: false,
      http: false,
    });
  }
  const dataDir = join(h.dir, ".openassistant", "data");
  for (const file of readdirSync(dataDir).filter((f) => f.startsWith("openassistant.sqlite"))) {
    const bytes = readFileSync(join(dataDir, file)).toString("latin1");
    expect({ file, leaked: bytes.includes(DISCORD_TOKEN) || bytes.includes(httpToken) }).toEqual({
      file,
      leaked: false,
    });
  }
}, 30_000);

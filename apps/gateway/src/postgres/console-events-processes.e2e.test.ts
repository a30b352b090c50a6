import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { receiptKeyPath } from "@openassistant/core/receipts";
import { startFakeDiscord, type FakeDiscord } from "@openassistant/testkit";
import {
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
  type FakeAnthropic,
} from "@openassistant/testkit/anthropic/fake-server.ts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli, startGatewayProcess } from "../../test/cli.ts";
import { botTexts, eventually } from "../../test/discord-e2e.ts";

const pg = usePostgres();
let fake: FakeDiscord;
let api: FakeAnthropic;
const gateways: Array<ReturnType<typeof startGatewayProcess>> = [];
beforeAll(async () => {
  fake = await startFakeDiscord({ heartbeatIntervalMs: 250 });
  api = await startFakeAnthropic();
});
afterAll(async () => {
  for (const g of gateways) g.proc.kill("SIGKILL");
  await fake.close();
  await api.close();
});

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** One replica's project folder: the shared database, the Discord bot and a console on `port`. */
function project(alice: string, port: number): string {
  const dir = makeTempDir("oa-console-replica-");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(join(dir, "package.json"), "{}");
  writeFileSync(
    join(dir, ".openassistant", "config.jsonc"),
    JSON.stringify({
      storage: { url: "${DATABASE_URL}" },
      discord: { token: "${DISCORD_TOKEN}", allowedUsers: [alice] },
      http: { port, approvers: [alice] },
    }),
  );
  return dir;
}

test("two `openassistant start` processes: a run answered on Discord by the holder shows live in the other's console stream", async () => {
  const url = await pg.freshDatabase();
  const alice = fake.defaults!.userId;
  const env = { DATABASE_URL: url, DISCORD_TOKEN: fake.token, OPENASSISTANT_DISCORD_API: fake.apiUrl };
  const [dirA, dirB] = [project(alice, freePort()), project(alice, freePort())];
  const a = startGatewayProcess({ cwd: dirA, apiUrl: api.url, env });
  gateways.push(a);
  await a.out.waitFor(/Discord: connected as/, 15_000);
  mkdirSync(join(dirB, "config"), { recursive: true });
  copyFileSync(receiptKeyPath(join(dirA, "config")), receiptKeyPath(join(dirB, "config")));
  const b = startGatewayProcess({ cwd: dirB, apiUrl: api.url, env });
  gateways.push(b);
  await b.out.waitFor(/taking the lease "discord"/, 15_000);

  // Signed in to B's console the way an operator is: `openassistant console login` on B's machine.
  const login = await cli(["console", "login", alice], { cwd: dirB, env });
  expect(login.code).toBe(0);
  const link = login.stdout.trim();
  const signedIn = await fetch(link, { redirect: "manual" });
  const cookie = /oa_console=[^;]+/.exec(signedIn.headers.get("set-cookie") ?? "")![0];
  const origin = new URL(link).origin;
  const stream = await fetch(`${origin}/console/events`, { headers: { cookie } });
  expect(stream.headers.get("content-type")).toBe("text/event-stream");
  const reader = stream.body!.getReader();
  let text = "";
  const untilType = async (type: string) => {
    while (!text.includes(`event: ${type}\n`)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`B's stream ended before ${type}: ${text}`);
      text += new TextDecoder().decode(value);
    }
  };

  const marker = "replica-code-marker";
  api.script([
    toolUseTurn({
      id: "toolu_1",
      name: "execute",
      input: { code: `return await tools.workspace.listTools({}); // ${marker}` },
    }),
    textTurn("No tool files yet."),
  ]);
  fake.sendUserMessage({ dmFrom: alice, content: "which tools do you have?" });
  await untilType("run.started");
  await untilType("call.settled");
  await untilType("run.finished");
  const dm = fake.dmChannelId(alice);
  await eventually(() => botTexts(fake, dm).some((t) => t.startsWith("No tool files yet.")), "A's answer");
  // Only the kinds crossed: not the code, nor the answer.
  expect(text).not.toContain(marker);
  expect(text).not.toContain("No tool files yet.");
  // B ran nothing: the run is A's, read by B's console from the shared database.
  const runs = await fetch(`${origin}/console/runs`, { headers: { cookie } });
  expect(await runs.text()).toContain("workspace.listTools");
  await reader.cancel();
  for (const g of [b, a]) {
    g.proc.kill("SIGTERM");
    expect(await g.proc.exited).toBe(0);
  }
  expect(b.out.text).not.toContain("Discord: connected as");
}, 30_000);

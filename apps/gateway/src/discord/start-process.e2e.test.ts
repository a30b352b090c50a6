import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, type FakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startFakeDiscord, type FakeDiscord } from "@openassistant/testkit";
import { MAIN } from "../testing/cli.ts";
import { botTexts, eventually } from "./e2e-harness.ts";

let fake: FakeDiscord;
let api: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeDiscord({ heartbeatIntervalMs: 250 });
  api = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
  await api.close();
});

describe("bun start with a Discord token (real subprocess)", () => {
  test("connects to Discord with the token from ${DISCORD_TOKEN}, answers a DM, and exits cleanly on SIGTERM", async () => {
    const alice = fake.defaults!.userId;
    const dir = makeTempDir("oa-discord-start-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    writeFileSync(
      join(dir, ".openassistant", "config.jsonc"),
      `{
  // The token comes from the environment, never from the file.
  "discord": { "token": "\${DISCORD_TOKEN}", "allowedUsers": ["${alice}"] }
}
`,
    );
    api.script([textTurn("Hello from the real process.")]);
    const proc = Bun.spawn(["bun", MAIN, "start"], {
      cwd: dir,
      env: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME!,
        NO_COLOR: "1",
        OPENASSISTANT_CONFIG_DIR: join(dir, "config"),
        ANTHROPIC_API_KEY: "sk-ant-api03-discord-start-test-0000000000",
        OPENASSISTANT_ANTHROPIC_BASE_URL: api.url,
        DISCORD_TOKEN: fake.token,
        OPENASSISTANT_DISCORD_API: fake.apiUrl,
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 9_000);
    const stderr = new Response(proc.stderr).text();
    let out = "";
    const reader = proc.stdout.getReader();
    const readRest = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        out += new TextDecoder().decode(value);
      }
    })();
    try {
      await eventually(() => out.includes("Discord: connected as"), "the process to connect to the fake Discord", 8_000);
      expect(fake.connectedSessions).toBe(1);

      const dm = fake.dmChannelId(alice);
      fake.sendUserMessage({ dmFrom: alice, content: "hi from Discord" });
      await eventually(() => botTexts(fake, dm).find((t) => t.startsWith("Hello from the real process.")), "the answer in the DM");
      expect(JSON.stringify(api.messageRequests().at(-1)!.body.messages)).toContain("hi from Discord");

      proc.kill("SIGTERM");
      const code = await proc.exited;
      await readRest;
      const err = await stderr;
      expect(code).toBe(0);
      expect(out).toContain("Bye.");
      expect(err).toContain("terminated: shutting down");
      expect(out + err).not.toContain(fake.token);
      await eventually(() => fake.connectedSessions === 0, "the gateway connection to close");
    } finally {
      clearTimeout(killer);
      proc.kill("SIGKILL");
    }
  }, 10_000);
});

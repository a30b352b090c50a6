import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, type FakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startFakeDiscord, type FakeDiscord } from "@openassistant/testkit";
import { startGatewayProcess } from "../../../test/cli.ts";
import { botTexts, eventually } from "../../../test/discord-e2e.ts";

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
    const { proc, out, err } = startGatewayProcess({
      cwd: dir,
      apiUrl: api.url,
      env: {
        ANTHROPIC_API_KEY: "sk-ant-api03-discord-start-test-0000000000",
        DISCORD_TOKEN: fake.token,
        OPENASSISTANT_DISCORD_API: fake.apiUrl,
      },
    });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 9_000);
    try {
      await out.waitFor(/Discord: connected as/, 8_000);
      expect(fake.connectedSessions).toBe(1);

      const dm = fake.dmChannelId(alice);
      fake.sendUserMessage({ dmFrom: alice, content: "hi from Discord" });
      await eventually(
        () => botTexts(fake, dm).find((t) => t.startsWith("Hello from the real process.")),
        "the answer in the DM",
      );
      expect(JSON.stringify(api.messageRequests().at(-1)!.body.messages)).toContain("hi from Discord");

      proc.kill("SIGTERM");
      const code = await proc.exited;
      await Promise.all([out.pump, err.pump]);
      expect(code).toBe(0);
      expect(out.text).toContain("Bye.");
      expect(err.text).toContain("terminated: shutting down");
      expect(out.text + err.text).not.toContain(fake.token);
      await eventually(() => fake.connectedSessions === 0, "the gateway connection to close");
    } finally {
      clearTimeout(killer);
      proc.kill("SIGKILL");
    }
  }, 10_000);

  test("a bad token ends the process at once with its own message and exit code 77, no stack trace", async () => {
    const alice = fake.defaults!.userId;
    const dir = makeTempDir("oa-discord-badtoken-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    writeFileSync(
      join(dir, ".openassistant", "config.jsonc"),
      `{ "discord": { "token": "\${DISCORD_TOKEN}", "allowedUsers": ["${alice}"] } }\n`,
    );
    fake.expectErrors({ status: 401 });
    const { proc, out, err } = startGatewayProcess({
      cwd: dir,
      apiUrl: api.url,
      env: {
        ANTHROPIC_API_KEY: "sk-ant-api03-discord-start-test-0000000000",
        DISCORD_TOKEN: "wrong.discord.token",
        OPENASSISTANT_DISCORD_API: fake.apiUrl,
      },
    });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 9_000);
    try {
      const code = await proc.exited;
      await Promise.all([out.pump, err.pump]);
      expect(code).toBe(77);
      expect(err.text).toContain("Discord rejected the bot token");
      expect(err.text).not.toMatch(/^\s+at /m);
      expect(out.text + err.text).not.toContain("wrong.discord.token");
    } finally {
      clearTimeout(killer);
      proc.kill("SIGKILL");
    }
  }, 10_000);
});

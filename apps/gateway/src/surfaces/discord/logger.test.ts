import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRedactor } from "@openassistant/core/receipts";
import { eventually, startDiscordE2E, type DiscordE2E } from "../../../test/discord-e2e.ts";
import { createSurfaceLog, safely } from "./logger.ts";

const CONFIG_SECRET = "config-secret-value-42";
const HTTP_TOKEN = "oa_http-api-token-for-the-logger-test";

describe("Discord surface log", () => {
  test("every line goes through the redactor, the error's message included", async () => {
    const lines: string[] = [];
    const log = createSurfaceLog(createRedactor(["bot-token-xyz-123"]), (l) => lines.push(l));
    log("sending to channel 42", new Error("401 for token bot-token-xyz-123 (Authorization: Bearer abcdefgh12345678)"));
    log("plain line with bot-token-xyz-123");
    await safely(log, "editing card 7", async () => {
      throw new Error("Missing Access bot-token-xyz-123");
    });
    expect(lines).toEqual([
      "sending to channel 42: 401 for token [redacted] (Authorization: Bearer [redacted])",
      "plain line with [redacted]",
      "editing card 7: Missing Access [redacted]",
    ]);
  });
});

describe("Discord surface log, on the real surface", () => {
  let e: DiscordE2E;
  beforeAll(async () => {
    e = await startDiscordE2E({ settings: { secrets: [CONFIG_SECRET], http: { port: 0, token: HTTP_TOKEN } } });
  }, 30_000); // starts a gateway, a sandbox pool and a fake Discord: slow on a loaded machine
  afterAll(() => e.close());

  test("a client error quoting the bot token, the HTTP token and a config secret is logged without them", async () => {
    e.surface.client.emit(
      "error",
      new Error(`gateway said: token=${e.config.token} http=${HTTP_TOKEN} cfg=${CONFIG_SECRET}`),
    );
    const line = await eventually(() => e.logs.find((l) => l.startsWith("client error")), "the logged client error");
    expect(line).toBe("client error: gateway said: token=[redacted] http=[redacted] cfg=[redacted]");
  });
});

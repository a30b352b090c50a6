import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { TEST_API_KEY } from "../../test/harness.ts";
import { createGateway } from "../gateway.ts";

test("a project's config.jsonc schedules are declared at start (a bad one logged, naming it), fire on the clock, and the model's tools.schedules.list sees them in their conversation only", async () => {
  const dir = makeTempDir("oa-config-schedules-");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(
    join(dir, ".openassistant", "config.jsonc"),
    `{
      // #33: schedules in the config, each with a stable id
      "workspace": { "enabled": false },
      "schedules": [
        { "id": "weekday-check", "name": "weekday check", "cron": "0 8 * * 1-5", "timeZone": "Europe/Oslo",
          "prompt": "check the error rate", "conversation": "terminal", "missed": "skip" },
        { "id": "broken", "name": "broken", "every": "1h", "timeZone": "Atlantis/Capital", "prompt": "p", "conversation": "terminal" }
      ]
    }`,
  );
  const api = await startFakeAnthropic();
  const clock = { t: Date.parse("2026-11-26T12:00:00Z"), now: () => clock.t };
  const logs: string[] = [];
  const gateway = await createGateway({
    cwd: dir,
    env: { ANTHROPIC_API_KEY: TEST_API_KEY, OPENASSISTANT_ANTHROPIC_BASE_URL: api.url },
    configDir: join(dir, "config"),
    clock,
    log: (line) => logs.push(line),
  });
  try {
    expect(logs.join("\n")).toContain(
      'config: schedules[1] (broken): timeZone: "Atlantis/Capital" is not an IANA time zone; write one such as "Europe/Oslo", "America/New_York" or "UTC"; that schedule is left out',
    );
    const [s] = await gateway.schedules.service.list();
    expect([s?.id, s?.origin, s?.createdBy, s?.next[0]]).toEqual([
      "weekday-check",
      "config",
      "config",
      Date.parse("2026-11-27T07:00:00Z"),
    ]);
    expect(Object.keys(gateway.tools().tree.schedules ?? {}).sort()).toEqual(["cancel", "create", "list"]);

    api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.schedules.list({});" } }),
      (req) => textTurn(JSON.stringify(req.body.messages).includes("weekday check") ? "One schedule." : "None?"),
    ]);
    const listed = await gateway.handleMessage({ sessionKey: "terminal", surface: "terminal", text: "my schedules?" });
    expect(listed.text).toBe("One schedule.");
    // Another conversation (of nobody who created it) does not see it.
    api.script([
      toolUseTurn({ id: "toolu_2", name: "execute", input: { code: "return await tools.schedules.list({});" } }),
      (req) => textTurn(JSON.stringify(req.body.messages).includes("weekday check") ? "One schedule." : "None."),
    ]);
    const other = await gateway.handleMessage({ sessionKey: "terminal:other", surface: "terminal", text: "mine?" });
    expect(other.text).toBe("None.");

    api.script([textTurn("The error rate is fine.")]);
    clock.t = Date.parse("2026-11-27T07:00:00Z");
    expect((await gateway.schedules.tick()).fired).toEqual([
      { scheduleId: "weekday-check", at: Date.parse("2026-11-27T07:00:00Z") },
    ]);
    await gateway.schedules.idle();
    const [occurrence] = await gateway.schedules.service.history("weekday-check");
    expect(occurrence?.status).toBe("succeeded");
  } finally {
    await gateway.shutdown();
    await api.close();
  }
}, 30_000);

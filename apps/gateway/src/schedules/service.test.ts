import { expect, test } from "bun:test";
import { openDatabase } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { join } from "node:path";
import { configScheduleSchema } from "./input.ts";
import { createSchedules } from "./service.ts";
import { createSqliteScheduleStore } from "./sqlite/store.ts";
import { cardText } from "./tools.ts";
import { formatInZone } from "./when.ts";

const T = (s: string) => Date.parse(s);

function open() {
  const dir = makeTempDir("oa-schedules-service-");
  const db = openDatabase(join(dir, "db.sqlite"));
  const receipts = openSqliteReceipts(db, { keyDir: join(dir, "config") });
  const clock = { t: T("2026-11-26T12:00:00Z") };
  const schedules = createSchedules({ store: createSqliteScheduleStore(db), receipts, now: () => clock.t });
  return { schedules, receipts, clock, db };
}

const ctx = { origin: "cli" as const, createdBy: "cli" };

test("the card's text: cron, time zone, the next three fire times in that zone, what runs and with which tools", () => {
  const { schedules, db } = open();
  const text = cardText(
    {
      name: "error rate",
      cron: "0 8 * * 1-5",
      timeZone: "Europe/Oslo",
      prompt: "check the error rate",
      tools: ["metrics.*"],
    },
    schedules,
  );
  expect(text.split("\n")).toEqual([
    'Schedule "error rate": cron 0 8 * * 1-5',
    "Time zone: Europe/Oslo",
    "Next fire times: Fri 2026-11-27 08:00 (Europe/Oslo, UTC+01:00); Mon 2026-11-30 08:00 (Europe/Oslo, UTC+01:00); Tue 2026-12-01 08:00 (Europe/Oslo, UTC+01:00)",
    'Runs: the prompt "check the error rate" in this conversation',
    "Tools it may call: metrics.*",
    "Missed while down: once (grace 1h)",
  ]);
  expect(cardText({ name: "x", cron: "61 * * * *", prompt: "p" }, schedules)).toStartWith(
    'This schedule is not valid: when.cron: "61 * * * *" is not a cron pattern',
  );
  db.close();
});

test("bad input names the field and says what to write; an ability target is refused without abilities", async () => {
  const { schedules, db } = open();
  const bad = (input: Record<string, unknown>) =>
    schedules.create({ name: "x", prompt: "p", conversation: "terminal", ...input }, ctx).then(
      () => "created",
      (e: Error) => e.message,
    );
  expect(await bad({})).toBe("cron: give exactly one of cron, at or every (got none)");
  expect(await bad({ cron: "* * * * *", every: "1h" })).toBe(
    "cron: give exactly one of cron, at or every (got cron and every)",
  );
  expect(await bad({ every: "soon" })).toBe(
    'when.every: "soon" is not a duration; write e.g. "30s", "15m", "2h", "1d" or "1h30m"',
  );
  expect(await bad({ every: "5s" })).toBe(
    'when.every: "5s" is shorter than 10s; schedules fire at most every 10 seconds',
  );
  expect(await bad({ every: "1h", timeZone: "Mars/Base" })).toBe(
    'timeZone: "Mars/Base" is not an IANA time zone; write one such as "Europe/Oslo", "America/New_York" or "UTC"',
  );
  expect(await bad({ at: "2026-11-25T09:00", timeZone: "UTC" })).toBe(
    'when.at: "2026-11-25T09:00" is in the past; give a time after now',
  );
  expect(await bad({ at: "next tuesday" })).toStartWith('when.at: "next tuesday" is not a date-time');
  expect(await bad({ every: "1h", conversation: undefined })).toStartWith(
    "conversation: name the conversation the prompt runs in",
  );
  expect(
    await schedules
      .create({ name: "release", cron: "0 16 * * 5", ability: "release", inputs: {}, conversation: "terminal" }, ctx)
      .catch((e: Error) => e.message),
  ).toBe("ability: abilities are not available in this gateway; schedule a prompt instead");
  expect(await schedules.list()).toEqual([]);
  db.close();
});

test("created: the schedule with its next fire times and a schedule.created receipt; paused shows none", async () => {
  const { schedules, receipts, db } = open();
  const s = await schedules.create(
    {
      name: "standup",
      cron: "0 0 9 * * 1-5",
      timeZone: "America/New_York",
      prompt: "standup notes",
      conversation: "terminal",
    },
    ctx,
  );
  // 12:00 UTC is 07:00 in New York: today's 09:00 is still ahead.
  expect(s.next.map((t) => formatInZone(t, s.timeZone))).toEqual([
    "Thu 2026-11-26 09:00 (America/New_York, UTC-05:00)",
    "Fri 2026-11-27 09:00 (America/New_York, UTC-05:00)",
    "Mon 2026-11-30 09:00 (America/New_York, UTC-05:00)",
  ]);
  const [created] = await receipts.query({ tool: "schedule.created" });
  expect([created!.runId, created!.decidedBy, created!.outputPreview]).toEqual([s.id, "cli", "created by cli"]);
  expect(JSON.parse(created!.inputPreview!)).toMatchObject({
    when: "cron 0 0 9 * * 1-5",
    timeZone: "America/New_York",
  });
  await schedules.setPaused(s.id, true);
  expect((await schedules.get(s.id))!.next).toEqual([]);
  db.close();
});

test("config schedules: declared under their id, updated in place, removed when gone from the config; a bad entry is named", async () => {
  const { schedules, receipts, clock, db } = open();
  const entries = configScheduleSchema.array().parse([
    {
      id: "weekday-check",
      name: "check",
      cron: "0 8 * * 1-5",
      timeZone: "Europe/Oslo",
      prompt: "p",
      conversation: "terminal",
    },
    { id: "broken", name: "bad", cron: "0 8 * * 1-5", timeZone: "Nowhere/City", prompt: "p", conversation: "terminal" },
  ]);
  expect(await schedules.declareConfig(entries)).toEqual([
    'schedules[1] (broken): timeZone: "Nowhere/City" is not an IANA time zone; write one such as "Europe/Oslo", "America/New_York" or "UTC"',
  ]);
  clock.t += 60_000;
  await schedules.declareConfig([{ ...entries[0]!, name: "check, renamed", paused: true }]);
  const s = await schedules.get("weekday-check");
  expect([s?.name, s?.paused, s?.origin, s?.createdAt]).toEqual([
    "check, renamed",
    true,
    "config",
    T("2026-11-26T12:00:00Z"),
  ]);
  expect(await receipts.query({ tool: "schedule.created" })).toHaveLength(1); // updating is not creating
  await schedules.declareConfig([]);
  expect(await schedules.list()).toEqual([]);
  db.close();
});

import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { textTurn, toolUseTurn, type RecordedRequest } from "@openassistant/testkit";
import {
  botTexts,
  cardCallId,
  decisionField,
  eventually,
  findCard,
  lastToolResultText,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
} from "../../test/discord-e2e.ts";

/**
 * #33 on the fake Discord with the real discord.js, the fake Anthropic and the real sandbox: the
 * schedules' clock is the test's (`clock.t`); the test ticks the scheduler where an occurrence is due.
 */
const T = (s: string) => Date.parse(s);
const clock = { t: T("2026-11-26T12:00:00Z"), now: () => clock.t };

setDefaultTimeout(30_000);

let e: DiscordE2E;
let threadId = "";
// A test that fails half way leaves no schedule firing into the next one.
afterEach(async () => {
  for (const s of await schedules().service.list()) await schedules().service.remove(s.id);
});
beforeAll(async () => {
  e = await startDiscordE2E({ gateway: { clock, scheduleTools: true } });
});
afterAll(() => e.close());

const schedules = () => e.h.gateway.schedules;

/** The snippet's return value in the last tool result the model was sent. */
function returnValue(req: RecordedRequest) {
  const line = lastToolResultText(req)
    .split("\n")
    .find((l) => l.startsWith("Return value: "));
  return JSON.parse(line?.slice("Return value: ".length) ?? "null");
}

/** The user texts the model was sent in a request (strings and text blocks). */
function userTexts(req: RecordedRequest): string[] {
  return (req.body.messages as Array<{ role: string; content: unknown }>)
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : (m.content as Array<{ type: string; text?: string }>).filter((b) => b.type === "text").map((b) => b.text!),
    );
}

describe("the reminder story", () => {
  test("asked in a thread, the card shows the next fire time, approved; fired at 09:00 Oslo; answered in the thread with the grounded activity", async () => {
    e.h.api.script(
      toolThenAnswer(
        `const notes = await tools.notes.read({});
return await tools.schedules.create({ name: "notes reminder", at: "2026-11-27T09:00", timeZone: "Europe/Oslo", prompt: "Tell Alice what her notes say." });`,
        (req) => `Scheduled: ${returnValue(req).next[0]}.`,
      ),
    );
    const msg = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: "remind me tomorrow at 9 what my notes say",
      mentionsBot: true,
    });
    const call = await e.fake.waitFor({
      method: "POST",
      path: `/channels/${e.ids.channelId}/messages/${msg.id}/threads`,
    });
    threadId = call.response.id as string;

    const card = await eventually(() => findCard(e.fake, threadId, "schedules.create"), "the schedule's approval card");
    const description = card.embeds[0].description as string;
    expect(description).toContain('Schedule "notes reminder": at 2026-11-27T09:00');
    expect(description).toContain("Time zone: Europe/Oslo");
    expect(description).toContain("Next fire times: Fri 2026-11-27 09:00 (Europe/Oslo, UTC+01:00)");
    expect(description).toContain('Runs: the prompt "Tell Alice what her notes say." in this conversation');
    expect(await schedules().service.list()).toEqual([]); // nothing exists before the approval

    e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice });
    const confirmed = await eventually(
      () => botTexts(e.fake, threadId).find((t) => t.startsWith("Scheduled:")),
      "the assistant's confirmation",
    );
    expect(confirmed).toContain("Scheduled: Fri 2026-11-27 09:00 (Europe/Oslo, UTC+01:00).");

    const [s] = await schedules().service.list();
    expect(s!.name).toBe("notes reminder");
    expect(s!.createdBy).toBe(`discord:${e.ids.alice}`);
    expect(s!.ceiling).toEqual(["notes.read"]); // the tools the creating turn used
    expect(s!.target).toEqual({ prompt: "Tell Alice what her notes say.", conversation: `discord:thread:${threadId}` });
    expect(s!.next).toEqual([T("2026-11-27T08:00:00Z")]);
    const created = await e.h.gateway.receipts.query({ tool: "schedule.created" });
    expect(created.map((r) => [r.runId, r.decidedBy])).toEqual([[s!.id, `discord:${e.ids.alice}`]]);

    // 08:59 in Oslo: nothing is due.
    clock.t = T("2026-11-27T07:59:00Z");
    expect((await schedules().tick()).fired).toEqual([]);

    const requestsBefore = e.h.api.messageRequests().length;
    e.h.api.script(
      toolThenAnswer(
        "return await tools.notes.read({});",
        (req) => `Good morning! Your notes say: ${returnValue(req).join(", ")}.`,
      ),
    );
    clock.t = T("2026-11-27T08:00:00Z");
    expect((await schedules().tick()).fired).toEqual([{ scheduleId: s!.id, at: T("2026-11-27T08:00:00Z") }]);
    await schedules().idle();

    const answer = await eventually(
      () => botTexts(e.fake, threadId).find((t) => t.startsWith("Good morning!")),
      "the scheduled answer in the thread",
    );
    expect(answer).toContain("Your notes say: buy milk.");
    expect(answer).toContain("notes.read"); // the activity block: the call that grounds it
    const scheduledRequest = e.h.api.messageRequests()[requestsBefore]!;
    expect(userTexts(scheduledRequest).at(-1)).toContain('(Scheduled: "notes reminder"');
    expect(userTexts(scheduledRequest).at(-1)).toContain("Tell Alice what her notes say.");

    // Done only with a success receipt, which names the turn and the run it started.
    const fired = await e.h.gateway.receipts.query({ tool: "schedule.fired" });
    expect(fired.map((r) => r.phase)).toEqual(["started", "succeeded"]);
    const [history] = await schedules().service.history(s!.id);
    expect(history!.status).toBe("succeeded");
    expect(fired[1]!.outputPreview).toStartWith(`turn ${history!.turnId} answered; runs: run_`);
    const runId = fired[1]!.outputPreview!.split("runs: ")[1]!;
    const calls = await e.h.gateway.receipts.byRun(runId);
    expect(calls.filter((r) => r.phase === "succeeded").map((r) => r.toolPath)).toEqual(["notes.read"]);
    // A one-shot: nothing further is due.
    clock.t = T("2026-11-28T08:00:00Z");
    expect((await schedules().tick()).fired).toEqual([]);
  }, 30_000);
});

describe("failures", () => {
  test("three failures in a row alert the creator in the schedule's conversation, mentioning them; each failure is receipted", async () => {
    const s = await schedules().service.create(
      {
        name: "flaky",
        every: "1h",
        timeZone: "UTC",
        prompt: "check the build",
        conversation: `discord:dm:${e.ids.alice}`,
      },
      { origin: "cli", createdBy: `discord:${e.ids.alice}` },
    );
    // Each occurrence's turn is refused by the model (stop reason "refusal"): not answered, so failed.
    const refusal = () => textTurn("I will not", { stop_reason: "refusal" });
    e.h.api.script([refusal(), refusal(), refusal()]);
    for (let i = 1; i <= 3; i++) {
      clock.t += 3_600_000;
      await schedules().tick();
      await schedules().idle();
    }
    const failed = await e.h.gateway.receipts.query({ tool: "schedule.failed" });
    expect(failed.filter((r) => r.callId.startsWith(s.id)).map((r) => r.error?.split(":")[0])).toEqual([
      "the turn ended refused",
      "the turn ended refused",
      "the turn ended refused",
    ]);
    const aliceDm = e.fake.dmChannelId(e.ids.alice);
    const alert = await eventually(
      () => e.fake.messages(aliceDm).find((m) => String(m.content ?? "").includes('Schedule "flaky"')),
      "the alert in the schedule's conversation",
    );
    expect(alert.content).toStartWith(`<@${e.ids.alice}> ⚠️ Schedule "flaky" (${s.id}) failed 3 times in a row`);
    await schedules().service.remove(s.id);
  }, 30_000);
});

describe("least privilege", () => {
  test("a scheduled call outside its tool ceiling is denied by the hooks pipeline and receipted", async () => {
    await schedules().service.create(
      {
        name: "writes only",
        every: "1h",
        timeZone: "UTC",
        prompt: "read the notes",
        conversation: `discord:dm:${e.ids.alice}`,
        tools: ["notes.write"],
      },
      { origin: "cli", createdBy: "cli" },
    );
    // notes.read needs no approval: only the ceiling stands between the run and the tool.
    e.h.api.script(toolThenAnswer("return await tools.notes.read({});", (req) => `Result: ${lastToolResultText(req)}`));
    const readsBefore = e.ran.filter((r) => r.what === "notes.read").length;
    clock.t += 3_600_000;
    expect((await schedules().tick()).fired).toHaveLength(1);
    await schedules().idle();
    const denied = await e.h.gateway.receipts.query({ tool: "notes.read", phase: "denied" });
    expect(denied).toHaveLength(1);
    expect(denied[0]!.decidedBy).toBe("plugin:schedules");
    expect(denied[0]!.reason).toContain("notes.read is outside the tools this schedule may call (notes.write)");
    expect(e.ran.filter((r) => r.what === "notes.read").length).toBe(readsBefore);
    const aliceDm = e.fake.dmChannelId(e.ids.alice);
    await eventually(
      () => botTexts(e.fake, aliceDm).find((t) => t.startsWith("Result:") && t.includes("outside the tools")),
      "the scheduled answer naming the denial in Alice's DM",
    );
  });

  test("an approval a scheduled run needs reaches the approvers' DMs naming the schedule; left unanswered, it ends at the next occurrence, which runs", async () => {
    const s = await schedules().service.create(
      {
        name: "nightly note",
        every: "1h",
        timeZone: "UTC",
        prompt: "write the nightly note",
        conversation: `discord:thread:${threadId}`,
        tools: ["notes.write"],
      },
      { origin: "cli", createdBy: "cli" },
    );
    // The model writes the note, then reports what the call returned (whichever occurrence asks).
    const model = (req: RecordedRequest) => {
      const last = (req.body.messages as Array<{ content: unknown }>).at(-1)!;
      const isResult =
        Array.isArray(last.content) && last.content.some((b: { type: string }) => b.type === "tool_result");
      return isResult
        ? textTurn(`Note result: ${lastToolResultText(req)}`)
        : toolUseTurn({
            id: `toolu_n${req.body.messages.length}`,
            name: "execute",
            input: { code: 'return await tools.notes.write({ text: "nightly" });' },
          });
    };
    e.h.api.script([model, model, model, model]);
    const aliceDm = e.fake.dmChannelId(e.ids.alice);
    const before = new Set(e.fake.messages(aliceDm).map((m) => m.id));
    const first = clock.t + 3_600_000;
    clock.t = first;
    await schedules().tick();
    const card = await eventually(() => {
      const c = findCard(e.fake, aliceDm, "notes.write");
      return c && !before.has(c.id) ? c : undefined;
    }, "the approval card in the approver's DM");
    const askedBy = card.embeds[0].fields.find((f: { name: string }) => f.name === "Asked by").value as string;
    expect(askedBy).toContain(`schedule:${s.id}`);

    // Nobody answers; the next occurrence comes: the waiting approval ends (denied by the system), the next run asks again.
    clock.t = first + 3_600_000;
    await schedules().tick();
    await eventually(
      () => decisionField(e.fake.message(card.id))?.includes("Closed: the next occurrence of the schedule is due"),
      "the first card closed",
    );
    const second = await eventually(
      () =>
        e.fake
          .messages(aliceDm)
          .find(
            (m) => m.id !== card.id && !before.has(m.id) && m.embeds?.[0]?.title === "Approval needed: notes.write",
          ),
      "the next occurrence's card",
    );
    e.fake.clickButton({ messageId: second.id, customId: `oa:approve:${cardCallId(second)}`, userId: e.ids.alice });
    await schedules().idle();
    expect(e.ran.map((r) => r.what)).toContain("notes.write:nightly");
    const outcomes = (await schedules().service.history(s.id)).map((o) => [new Date(o.at).toISOString(), o.status]);
    expect(outcomes).toEqual([
      [new Date(first + 3_600_000).toISOString(), "succeeded"],
      [new Date(first).toISOString(), "failed"],
    ]);
    await schedules().service.remove(s.id);
  }, 30_000);
});

import { describe, expect, test } from "bun:test";
import type { Receipt } from "@openassistant/core/receipts";
import { groundAnswer } from "./ground.ts";
import { findReminderPromises } from "./reminders.ts";

let seq = 0;
/** One call's receipts: requested, then its outcome (the call needs approval, as writes do). */
function call(callId: string, toolPath: string, outcome: Receipt["phase"]): Receipt[] {
  return (["requested", outcome] as const).map((phase) => {
    seq++;
    return {
      id: `r_${seq}`,
      seq,
      at: seq,
      prevHash: null,
      hash: "h",
      runId: "run",
      callId,
      toolPath,
      phase,
      approval: "required",
      policy: "required",
    } satisfies Receipt;
  });
}

describe("reminder-style promises count as claims", () => {
  test.each([
    ["I'll notify you when signups drop below 50.", 1],
    ["You will get an alert if daily signups go under 50.", 1],
    ["From now on I will let you know when signups drop.", 1],
    ["I'll keep an eye on signups.", 1],
    ["If you approve the tool, I will notify you when signups drop.", 0],
    ["Should I notify you when signups drop?", 0],
    ["I won't be able to notify you: the tool was not approved.", 0],
    ["Signups were 48 yesterday.", 0],
  ])("%p → %p promise(s)", (text, n) => {
    expect(findReminderPromises(text)).toHaveLength(n);
  });
});

describe("a reminder-style claim needs an integration's success receipt", () => {
  const wrote = call("c1", "workspace.writeTool", "succeeded");

  test("a written tool file alone backs no promise to notify, nor 'set up an alert'", () => {
    for (const text of [
      "I'll notify you when signups drop below 50.",
      "Done: I set up an alert that fires when daily signups drop below 50.",
    ]) {
      const g = groundAnswer(text, wrote);
      expect(g.unverified).toBe(true);
      expect(g.unbackedClaims).toHaveLength(1);
    }
    // The monitor tool's call was denied: still nothing watches.
    expect(
      groundAnswer("I'll notify you when signups drop below 50.", [...wrote, ...call("c2", "signup_monitor", "denied")])
        .unverified,
    ).toBe(true);
  });

  test("the written tool's own successful call (or any integration's) backs it", () => {
    const receipts = [...wrote, ...call("c2", "signup_monitor", "succeeded")];
    expect(groundAnswer("I'll notify you when signups drop below 50.", receipts).unverified).toBe(false);
    expect(
      groundAnswer("Done: I set up an alert that fires when daily signups drop below 50.", receipts).unverified,
    ).toBe(false);
    expect(
      groundAnswer("You will get an alert when signups drop.", call("c3", "posthog.alerts.create", "succeeded"))
        .unverified,
    ).toBe(false);
  });

  test("a claim about the tool file itself is backed by the write", () => {
    expect(groundAnswer("I wrote the signup_monitor tool.", wrote).unverified).toBe(false);
  });
});

import { describe, expect, test } from "bun:test";
import type { Receipt } from "@openassistant/core/receipts/types.ts";
import { findActionClaims } from "./claims.ts";
import { groundAnswer, hasBackingReceipt } from "./ground.ts";

describe("findActionClaims", () => {
  test.each([
    ["I've scheduled your reminder for 9am.", ["scheduled"]],
    ["Done! I sent the email to Bob.", ["sent"]],
    ["I have set up the reminder", ["set up"]],
    ["The event was created and the invite posted.", ["created"]],
    ["The reminder was not created because approval was denied.", []],
    ["I couldn't send it.", []],
    ["Nothing was deleted.", []],
    ["Should I have it scheduled?", []],
    ["If you want, it can be scheduled tomorrow.", []],
    ["Your events: standup (created by Ann).", []],
    ["Run `tools.x.deleted()` to check.", []],
    ["Here are your 3 reminders.", []],
  ])("%p → %p", (text, verbs) => {
    expect(findActionClaims(text).map((c) => c.verb)).toEqual(verbs);
  });
});

let seq = 0;
function receipt(callId: string, toolPath: string, phase: Receipt["phase"], mode: "auto" | "required" = "auto"): Receipt {
  seq++;
  return { id: `r_${seq}`, seq, at: seq, prevHash: null, hash: "h", runId: "run_1", callId, toolPath, phase, approval: mode, policy: mode };
}

describe("hasBackingReceipt", () => {
  test("no receipts, or only reads → not backed", () => {
    expect(hasBackingReceipt([])).toBe(false);
    expect(hasBackingReceipt([receipt("c1", "calendar.list", "requested"), receipt("c1", "calendar.list", "succeeded")])).toBe(false);
  });
  test("an auto write that succeeded backs a claim when no approval-required call was attempted", () => {
    expect(hasBackingReceipt([receipt("c1", "todo.add", "requested"), receipt("c1", "todo.add", "succeeded")])).toBe(true);
  });
  test("when approval-required calls were attempted, one of them must have succeeded", () => {
    const denied = [receipt("c1", "todo.add", "succeeded"), receipt("c2", "calendar.create", "requested", "required"), receipt("c2", "calendar.create", "denied", "required")];
    expect(hasBackingReceipt(denied)).toBe(false);
    expect(hasBackingReceipt([...denied, receipt("c3", "calendar.create", "succeeded", "required")])).toBe(true);
  });
  test("pending calls do not back a claim", () => {
    expect(hasBackingReceipt([receipt("c1", "calendar.create", "requested", "required")])).toBe(false);
  });
  test("groundAnswer flags only claims", () => {
    expect(groundAnswer("Here you go.", []).unverified).toBe(false);
    expect(groundAnswer("I booked it.", []).unverified).toBe(true);
  });
});

import { describe, expect, test } from "bun:test";
import type { Receipt } from "@openassistant/core/receipts";
import { findActionClaims } from "./claims.ts";
import { claimIsBacked, groundAnswer, hasBackingReceipt, toolPathWords, UNVERIFIED_MARK } from "./ground.ts";

describe("findActionClaims", () => {
  test.each([
    ["I've scheduled your reminder for 9am.", ["scheduled"]],
    ["Done! I sent the email to Bob.", ["sent"]],
    ["I have set up the reminder", ["set up"]],
    ["The event was created and the invite posted.", ["created", "posted"]],
    ["I sent the mail and deleted the draft.", ["sent", "deleted"]],
    ["The draft was not deleted or sent.", []],
    ["The reminder was not created because approval was denied.", []],
    ["I couldn't send it.", []],
    ["Nothing was deleted.", []],
    ["Should I have it scheduled?", []],
    ["Have you deleted the old draft?", []],
    ["If you want, it can be scheduled tomorrow.", []],
    ["Your events: standup (created by Ann).", []],
    ["Run `tools.x.deleted()` to check.", []],
    ["Here are your 3 reminders.", []],
  ])("%p → %p", (text, verbs) => {
    expect(findActionClaims(text).map((c) => c.verb)).toEqual(verbs);
  });
});

let seq = 0;
function receipt(
  callId: string,
  toolPath: string,
  phase: Receipt["phase"],
  mode: "auto" | "required" = "auto",
): Receipt {
  seq++;
  return {
    id: `r_${seq}`,
    seq,
    at: seq,
    prevHash: null,
    hash: "h",
    runId: "run_1",
    callId,
    toolPath,
    phase,
    approval: mode,
    policy: mode,
  };
}

describe("hasBackingReceipt", () => {
  test("no receipts, or only reads → not backed", () => {
    expect(hasBackingReceipt([])).toBe(false);
    expect(
      hasBackingReceipt([receipt("c1", "calendar.list", "requested"), receipt("c1", "calendar.list", "succeeded")]),
    ).toBe(false);
  });
  test("an auto write that succeeded backs a claim when no approval-required call was attempted", () => {
    expect(hasBackingReceipt([receipt("c1", "todo.add", "requested"), receipt("c1", "todo.add", "succeeded")])).toBe(
      true,
    );
  });
  test("when approval-required calls were attempted, one of them must have succeeded", () => {
    const denied = [
      receipt("c1", "todo.add", "succeeded"),
      receipt("c2", "calendar.create", "requested", "required"),
      receipt("c2", "calendar.create", "denied", "required"),
    ];
    expect(hasBackingReceipt(denied)).toBe(false);
    expect(hasBackingReceipt([...denied, receipt("c3", "calendar.create", "succeeded", "required")])).toBe(true);
  });
  test("a read named verb-first in camelCase or snake_case (getEvents, list_items) is still a read", () => {
    for (const path of ["calendar.getEvents", "todo.list_items", "mail.searchInbox"]) {
      expect({
        path,
        backed: hasBackingReceipt([receipt(`c_${path}`, path, "requested"), receipt(`c_${path}`, path, "succeeded")]),
      }).toEqual({ path, backed: false });
    }
  });
  test("pending calls do not back a claim", () => {
    expect(hasBackingReceipt([receipt("c1", "calendar.create", "requested", "required")])).toBe(false);
  });
  test("groundAnswer flags only claims", () => {
    expect(groundAnswer("Here you go.", []).unverified).toBe(false);
    expect(groundAnswer("I booked it.", []).unverified).toBe(true);
  });
});

describe("each claimed action needs a matching success (claim verb → tool path verb stems)", () => {
  const SENT_AND_DELETED = "I sent the mail and deleted the draft.";
  const call = (id: string, path: string, outcome: Receipt["phase"], mode: "auto" | "required" = "auto") => [
    receipt(id, path, "requested", mode),
    receipt(id, path, outcome, mode),
  ];

  test("tool paths split into words on dots, underscores, dashes and camelCase", () => {
    expect(toolPathWords("calendar.createEvent")).toEqual(["calendar", "create", "event"]);
    expect(toolPathWords("gh_issues.add-label")).toEqual(["gh", "issues", "add", "label"]);
  });

  test("'sent … and deleted …' with only the delete succeeded → unverified (the failed send backs nothing)", () => {
    const receipts = [
      ...call("c1", "mail.send", "failed", "required"),
      ...call("c2", "drafts.delete", "succeeded", "required"),
    ];
    const g = groundAnswer(SENT_AND_DELETED, receipts);
    expect(g.unverified).toBe(true);
    expect(g.unbackedClaims.map((c) => c.verb)).toEqual(["sent"]);
  });

  test("a denied send with a succeeded delete is unverified too", () => {
    const receipts = [
      ...call("c1", "mail.send", "denied", "required"),
      ...call("c2", "drafts.delete", "succeeded", "required"),
    ];
    expect(groundAnswer(SENT_AND_DELETED, receipts).unverified).toBe(true);
  });

  test("both succeeded → verified", () => {
    const receipts = [
      ...call("c1", "mail.send", "succeeded", "required"),
      ...call("c2", "drafts.delete", "succeeded", "required"),
    ];
    const g = groundAnswer(SENT_AND_DELETED, receipts);
    expect(g.unverified).toBe(false);
    expect(g.unbackedClaims).toEqual([]);
  });

  test("any segment matches, camelCase included: slack.chat.postMessage backs 'sent', calendar.deleteEvent backs 'cancelled'", () => {
    expect(
      groundAnswer("I sent it to the channel.", call("c1", "slack.chat.postMessage", "succeeded")).unverified,
    ).toBe(false);
    expect(
      groundAnswer("I cancelled the meeting.", call("c1", "calendar.deleteEvent", "succeeded", "required")).unverified,
    ).toBe(false);
  });

  test("'I saved your note' with notes.add succeeded → verified", () => {
    expect(groundAnswer("I saved your note.", call("c1", "notes.add", "succeeded")).unverified).toBe(false);
  });

  test("a read whose path matches the family does not back it (mail.list is no send)", () => {
    const receipts = [...call("c1", "mail.list", "succeeded"), ...call("c2", "drafts.delete", "succeeded")];
    expect(claimIsBacked({ verb: "sent", sentence: "I sent the mail." }, receipts)).toBe(false);
  });

  test("no tool of the turn matches the family → the general rule: any succeeded non-read call backs it", () => {
    // "scheduled" ↔ create/add/schedule/…: nothing in `ops.kick_off` matches, so the unusual name still works.
    expect(groundAnswer("I scheduled the job.", call("c1", "ops.kick_off", "succeeded", "required")).unverified).toBe(
      false,
    );
    expect(groundAnswer("I scheduled the job.", call("c1", "ops.kick_off", "denied", "required")).unverified).toBe(
      true,
    );
    // Verbs without a family ("invited") use the general rule as well.
    expect(groundAnswer("I invited Bob.", call("c1", "calendar.createEvent", "succeeded", "required")).unverified).toBe(
      false,
    );
  });

  test("the grounding text and mark are unchanged", () => {
    expect(UNVERIFIED_MARK).toBe("⚠️ unverified: no successful tool call backs this claim");
  });
});

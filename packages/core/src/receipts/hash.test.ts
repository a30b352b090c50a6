/**
 * The receipt hash covers every field of a receipt. The expected digests below were computed
 * outside this code base (Python's hashlib.sha256 over the literal texts shown), so a change to
 * what is hashed fails here even if hashing and verifying change together.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { openDatabase } from "../db/open.ts";
import { canonicalReceiptJson, receiptHash } from "./hash.ts";
import { createSqliteReceiptStore } from "./sqlite/store.ts";
import type { Receipt, ReceiptDraft } from "./types.ts";

// The legacy (pre-HMAC) scheme: rows written before the keyed chain still verify under it.
// Legacy rows predate `model` (#35): it is never part of their hash.
type Content = Omit<Receipt, "hash" | "prevHash" | "legacy" | "model">;

const FULL: Content = {
  id: "r_000007",
  seq: 7,
  runId: "run_vec",
  callId: "call_vec",
  sessionId: "sess_vec",
  toolPath: "notes.add",
  phase: "succeeded",
  approval: "required",
  policy: "required",
  decision: "approved",
  decidedBy: "discord:42",
  reason: "ok",
  inputPreview: "text=milk",
  outputPreview: "id=1",
  error: "none",
  durationMs: 12.5,
  at: 1_700_000_000_123,
};
const FULL_TEXT =
  '{"approval":"required","at":1700000000123,"callId":"call_vec","decidedBy":"discord:42","decision":"approved","durationMs":12.5,"error":"none","id":"r_000007","inputPreview":"text=milk","outputPreview":"id=1","phase":"succeeded","policy":"required","reason":"ok","runId":"run_vec","seq":7,"sessionId":"sess_vec","toolPath":"notes.add"}';
const PREV = "a".repeat(64);
/** sha256(PREV + "\n" + FULL_TEXT) */
const FULL_DIGEST = "24c50b4a4e30123363718a4739dc668e4b2483cd83dba41836ab7bbe0e5f3388";

const MINIMAL: Content = {
  id: "r_000001",
  seq: 1,
  runId: "run_vec",
  callId: "call_vec",
  toolPath: "notes.add",
  phase: "requested",
  approval: "auto",
  policy: "auto",
  at: 1_700_000_000_000,
};
/** sha256("" + "\n" + the canonical text with every absent field as null) */
const MINIMAL_DIGEST = "841b550e32111a1db587a5a6088c36653b7f1d138dcd85b5122b032d0f5a99bd";

describe("receipt hash: fixed test vectors", () => {
  test("a receipt with every field set hashes to the independently computed digest", () => {
    expect(canonicalReceiptJson(FULL)).toBe(FULL_TEXT);
    expect(receiptHash(PREV, FULL)).toBe(FULL_DIGEST);
  });

  test("the first receipt of a run (no previous hash, absent fields) hashes to its digest", () => {
    expect(receiptHash(null, MINIMAL)).toBe(MINIMAL_DIGEST);
  });

  test("changing any single field, or the previous hash, changes the digest", () => {
    const changed: Record<keyof Content, unknown> = {
      id: "r_000008",
      seq: 8,
      runId: "run_x",
      callId: "call_x",
      sessionId: "sess_x",
      toolPath: "notes.remove",
      phase: "failed",
      approval: "auto",
      policy: "deny",
      decision: "denied",
      decidedBy: "discord:43",
      reason: "no",
      inputPreview: "text=milk2",
      outputPreview: "id=2",
      error: "boom",
      durationMs: 12.6,
      at: 1_700_000_000_124,
    };
    for (const [field, value] of Object.entries(changed)) {
      expect({ field, same: receiptHash(PREV, { ...FULL, [field]: value } as Content) === FULL_DIGEST }).toEqual({
        field,
        same: false,
      });
    }
    for (const field of [
      "sessionId",
      "decision",
      "decidedBy",
      "reason",
      "inputPreview",
      "outputPreview",
      "error",
      "durationMs",
    ] as const) {
      const without = { ...FULL } as Record<string, unknown>;
      delete without[field];
      expect({ field, same: receiptHash(PREV, without as Content) === FULL_DIGEST }).toEqual({ field, same: false });
    }
    expect(receiptHash("b".repeat(64), FULL)).not.toBe(FULL_DIGEST);
    expect(receiptHash(null, FULL)).not.toBe(receiptHash(PREV, FULL));
  });
});

describe("receipt verification: an edit to any stored field is detected", () => {
  const full: ReceiptDraft = {
    runId: "run_1",
    callId: "call_1",
    sessionId: "sess_1",
    toolPath: "notes.add",
    phase: "succeeded",
    approval: "required",
    policy: "required",
    decision: "approved",
    decidedBy: "discord:42",
    reason: "ok",
    inputPreview: "text=milk",
    outputPreview: "id=1",
    error: "none",
    durationMs: 12,
  };
  // Each column with a value the schema accepts that differs from what was stored.
  const edits: Array<[column: string, value: string | number | null]> = [
    ["call_id", "call_2"],
    ["session_id", "sess_2"],
    ["session_id", null],
    ["tool_path", "notes.remove"],
    ["phase", "failed"],
    ["approval", "auto"],
    ["policy", "auto"],
    ["decision", "denied"],
    ["decision", null],
    ["decided_by", "discord:43"],
    ["decided_by", null],
    ["reason", "not ok"],
    ["input_preview", "text=milk2"],
    ["output_preview", "id=2"],
    ["error", "boom"],
    ["duration_ms", 13],
    ["at", 1],
    ["run_id", "run_other"],
    ["hash", "0".repeat(64)],
    ["prev_hash", "0".repeat(64)],
  ];
  for (const [column, value] of edits) {
    test(`${column} → ${JSON.stringify(value)}`, () => {
      const path = join(makeTempDir("oa-hash-"), "r.sqlite");
      const db = openDatabase(path);
      const store = createSqliteReceiptStore(db, { now: () => 1_700_000_000_000 });
      store.append({ ...full, phase: "requested" });
      const target = store.append(full);
      store.append({ ...full, phase: "failed" });
      expect(store.verifyRun("run_1")).toEqual({ ok: true });
      const raw = new Database(path);
      raw.exec("DROP TRIGGER receipts_no_update");
      raw.prepare(`UPDATE receipts SET ${column} = ? WHERE seq = ?`).run(value, target.seq);
      raw.close();
      // A second process (no memory of what was appended) must see it too.
      const fresh = createSqliteReceiptStore(openDatabase(path));
      for (const s of [store, fresh]) expect(s.verifyRun("run_1").ok).toBe(false);
      db.close();
    });
  }
});

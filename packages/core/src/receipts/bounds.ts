import { cutText } from "../text/cut.ts";
import type { ReceiptDraft } from "./types.ts";

/**
 * Caps on what one receipt and one run may store, in UTF-16 code units (at most 3 UTF-8 bytes
 * each on disk). Cuts land on grapheme boundaries and say how much was left out.
 */
export const RECEIPT_FIELD_CAPS = {
  runId: 64,
  callId: 64,
  sessionId: 128,
  toolPath: 128,
  decidedBy: 128,
  model: 128,
  reason: 2_000,
  error: 4_000,
  inputPreview: 4_000,
  outputPreview: 4_000,
} as const satisfies Partial<Record<keyof ReceiptDraft, number>>;

/** The free-text fields a run's budget covers (the others are short by their caps). */
const BUDGETED = ["reason", "error", "inputPreview", "outputPreview"] as const;
const ID_FIELDS = ["runId", "callId", "sessionId", "toolPath", "decidedBy", "model"] as const;

/** Free text one run may store across its receipts before each field is held to RUN_SPENT_CAP. */
export const RUN_TEXT_BUDGET = 200_000;
/** Per-field cap once the run's budget is spent: enough to say what happened, not to carry data. */
export const RUN_SPENT_CAP = 120;
/** Runs whose usage is remembered; past this the oldest are forgotten (they get a fresh budget). */
const TRACKED_RUNS = 10_000;

const spentMarker = (omitted: number): string =>
  `… ${omitted.toLocaleString("en-US")} more characters (run over its ${RUN_TEXT_BUDGET.toLocaleString("en-US")}-character receipt budget)`;

/**
 * Most UTF-16 code units of text one receipt can hold, and the free text a run of `receipts`
 * receipts can store in total: the basis of the stated database bound (see README "Security model").
 */
export function receiptTextBound(receipts: number): { perReceipt: number; perRun: number } {
  const ids = ID_FIELDS.reduce((n, f) => n + RECEIPT_FIELD_CAPS[f], 0);
  const perReceipt = ids + BUDGETED.reduce((n, f) => n + RECEIPT_FIELD_CAPS[f], 0);
  const perRun = Math.min(receipts * perReceipt, RUN_TEXT_BUDGET + receipts * (ids + BUDGETED.length * RUN_SPENT_CAP));
  return { perReceipt, perRun };
}

/** Per-run budgets of the receipts a store writes. */
export function createRunBudgets() {
  const used = new Map<string, number>();
  return {
    /** The draft with every field within its cap and the run's budget, text made well-formed. */
    bound(d: ReceiptDraft): ReceiptDraft {
      const out: Record<string, unknown> = { ...d };
      for (const f of ID_FIELDS) {
        const v = d[f];
        if (typeof v === "string") out[f] = wellFormed(cutText(v, RECEIPT_FIELD_CAPS[f]));
      }
      let spent = used.get(d.runId) ?? 0;
      for (const f of BUDGETED) {
        const v = d[f];
        if (typeof v !== "string") continue;
        const remaining = RUN_TEXT_BUDGET - spent;
        const cap = Math.min(RECEIPT_FIELD_CAPS[f], Math.max(RUN_SPENT_CAP, remaining));
        const text = wellFormed(
          v.length <= cap ? v : cutText(v, cap, cap < RECEIPT_FIELD_CAPS[f] ? { marker: spentMarker } : {}),
        );
        out[f] = text;
        spent += text.length;
      }
      if (used.size >= TRACKED_RUNS && !used.has(d.runId)) used.delete(used.keys().next().value!);
      used.set(d.runId, spent);
      return out as unknown as ReceiptDraft;
    },
  };
}

/**
 * SQLite stores UTF-8, where a lone surrogate has no encoding (it is stored as U+FFFD): replace it
 * first, so the text hashed is the text stored. Same length, so caps are unaffected.
 */
function wellFormed(s: string): string {
  return (s as unknown as { toWellFormed(): string }).toWellFormed();
}

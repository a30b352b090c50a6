/** The console overview with plugin hooks' receipts (#29): a person's wait is counted once, a plugin is not an approver. */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openDatabase } from "../../db/open.ts";
import type { ReceiptDraft } from "../types.ts";
import { openSqliteReceipts } from "./ports.ts";

test("a call a plugin put before a person is one wait of that person; a plugin's denial is no approver's wait", async () => {
  const dir = makeTempDir("oa-overview-hooks-");
  let t = 1_800_000_000_000;
  const receipts = openSqliteReceipts(openDatabase(join(dir, "r.db")), {
    now: () => t,
    keyDir: join(dir, "config"),
  });
  const call = (callId: string, phase: ReceiptDraft["phase"], extra: Partial<ReceiptDraft> = {}) =>
    receipts.stage({ runId: "run_1", callId, toolPath: "pay.send", phase, approval: "auto", policy: "auto", ...extra });
  call("c1", "requested");
  t += 10;
  call("c1", "requested", {
    policy: "required",
    decidedBy: "plugin:guard",
    reason: "approval required by plugin guard",
  });
  t += 90;
  call("c1", "approved", { policy: "required", decision: "approved", decidedBy: "console:ann" });
  call("c2", "requested", { approval: "required", policy: "required" });
  t += 5;
  call("c2", "denied", { approval: "required", policy: "required", decision: "denied", decidedBy: "plugin:guard" });
  const o = await receipts.overview("6h", t + 1);
  expect(o.waits).toEqual([{ approver: "console:ann", decisions: 1, medianMs: 100, p95Ms: 100 }]);
});

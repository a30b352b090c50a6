import { expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { openFileRunJournal, openSqliteReceipts, type ReceiptLog } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { takenOverRun } from "./take-over.ts";

// What a gateway does with a run whose job it claimed from a dead gateway, on a real receipt store
// and journal: only a run with a call left without an outcome, and a snippet kept, is resumed.
function stage(receipts: ReceiptLog, runId: string, phases: Array<"requested" | "approved" | "started" | "succeeded">) {
  for (const phase of phases)
    receipts.stage({
      runId,
      callId: `${runId}_c0`,
      sessionId: "ses_1",
      toolPath: "notes.write",
      phase,
      approval: "required",
      policy: "required",
      ...(phase === "approved" ? { decision: "approved" as const, decidedBy: "ann" } : {}),
    });
}

test("a claimed run is resumed only while a call waits for its outcome and its snippet is kept", async () => {
  const dir = makeTempDir("oa-takeover-");
  const receipts = openSqliteReceipts(openDatabase(join(dir, "db.sqlite")), { keyDir: join(dir, "config") });
  const journal = openFileRunJournal(join(dir, "runs"));
  for (const runId of ["run_waiting", "run_ended", "run_unjournaled"]) {
    if (runId !== "run_unjournaled")
      journal.batch(() => {
        journal.begin({ runId, seed: [1, 2, 3, 4], context: { code: "return 1", sessionId: "ses_1" } });
        journal.call({ runId, position: 0, callId: `${runId}_c0`, toolPath: "notes.write", inputHash: "h" });
      });
    stage(receipts, runId, runId === "run_ended" ? ["requested", "approved", "started", "succeeded"] : ["requested"]);
  }
  await receipts.durable();

  const waiting = await takenOverRun(receipts, journal, "run_waiting");
  expect(waiting?.run).toMatchObject({ runId: "run_waiting", sessionId: "ses_1", journaled: true, resumes: 0 });
  expect(waiting?.run.calls.map((c) => [c.callId, c.phase])).toEqual([["run_waiting_c0", "requested"]]);
  expect(waiting?.context).toEqual({ code: "return 1", sessionId: "ses_1" });
  // It ended just before its gateway died (its job was not completed yet): nothing to answer again.
  expect(await takenOverRun(receipts, journal, "run_ended")).toBeUndefined();
  // No snippet to run again: left to `runs cancel`.
  expect(await takenOverRun(receipts, journal, "run_unjournaled")).toBeUndefined();
});

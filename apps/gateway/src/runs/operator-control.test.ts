import { expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openGatewayRunJournal } from "./journal.ts";
import { createRunControl } from "./operator-control.ts";

// The console's run control on a real SQLite receipt store: only a run left pending at start and
// not resumed by this gateway is cancellable; one it resumes or started itself is left alone.
test("cancels only runs left pending at start that this gateway does not resume", async () => {
  const dir = makeTempDir("oa-runctl-");
  const receipts = openSqliteReceipts(openDatabase(join(dir, "db.sqlite")), { keyDir: join(dir, "config") });
  for (const runId of ["run_left", "run_resumed", "run_new"])
    receipts.stage({
      runId,
      callId: `${runId}_c1`,
      toolPath: "mail.send",
      phase: "requested",
      approval: "required",
      policy: "required",
    });
  await receipts.durable();
  const control = createRunControl({
    receipts,
    journal: openGatewayRunJournal(join(dir, "data")),
    leftAtStart: ["run_left", "run_resumed"],
    resumed: ["run_resumed"],
  });

  const listed = new Map((await control.pending()).map((r) => [r.runId, r.notCancellable]));
  expect(Object.fromEntries(listed)).toEqual({
    run_left: undefined,
    run_resumed: "resumed here",
    run_new: "running here",
  });
  expect(await control.cancel("run_resumed", "console:ann")).toEqual({ outcome: "running" });
  expect(await control.cancel("run_new", "console:ann")).toEqual({ outcome: "running" });
  expect(await control.cancel("run_unknown", "console:ann")).toEqual({ outcome: "none" });
  expect(await control.cancel("run_left", "console:ann")).toMatchObject({ outcome: "cancelled" });
  expect((await receipts.byRun("run_left")).at(-1)).toMatchObject({ phase: "denied", decidedBy: "console:ann" });
  expect((await receipts.byRun("run_resumed")).at(-1)!.phase).toBe("requested");
  expect((await control.pending()).map((r) => r.runId).sort()).toEqual(["run_new", "run_resumed"]);
  expect(await control.cancel("run_left", "console:ann")).toEqual({ outcome: "none" });
});

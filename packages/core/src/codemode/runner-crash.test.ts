import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createApprovalBroker } from "../approvals/broker.ts";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite-store.ts";

/** Runs a fixture with the database file, reads its stdout until `marker` (a regexp) matches, then SIGKILLs it. */
async function killWhen(fixture: string, file: string, marker: RegExp): Promise<RegExpMatchArray> {
  const child = Bun.spawn(["bun", join(import.meta.dir, "fixtures", fixture), file], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let out = "";
  let match: RegExpMatchArray | null = null;
  while (!(match = out.match(marker))) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  child.kill("SIGKILL");
  await child.exited;
  if (!match) throw new Error(`${fixture} exited before printing ${marker}; output: ${out}`);
  return match;
}

test("a gateway killed between started and succeeded leaves every earlier receipt intact", async () => {
  const file = join(makeTempDir(), "crash.sqlite");
  await killWhen("crash-mid-call.ts", file, /STARTED/);

  const db = openDatabase(file);
  const store = createSqliteReceiptStore(db);
  const rows = store.byRun("run_crash");
  expect(rows.map((r) => `${r.toolPath}:${r.phase}`)).toEqual([
    "ok:requested",
    "ok:started",
    "ok:succeeded",
    "hang:requested",
    "hang:started",
  ]);
  expect(store.verifyRun("run_crash")).toEqual({ ok: true });
  // The chain continues after the restart.
  store.append({ runId: "run_crash", callId: rows[4]!.callId, toolPath: "hang", phase: "failed", approval: "auto", policy: "auto", error: "gateway restarted" });
  expect(store.verifyRun("run_crash")).toEqual({ ok: true });
  db.close();
}, 20_000);

test("a gateway killed while an approval is pending leaves the requested receipt and the pending row; a new broker closes it", async () => {
  const file = join(makeTempDir(), "crash-approval.sqlite");
  const [, callId] = await killWhen("crash-pending-approval.ts", file, /REQUESTED (\S+)\n/);

  const db = openDatabase(file);
  const store = createSqliteReceiptStore(db);
  const rows = store.byRun("run_crash_approval");
  expect(rows.map((r) => `${r.toolPath}:${r.phase}`)).toEqual(["mail.send:requested"]);
  expect(rows[0]!.callId).toBe(callId!);
  expect(store.verifyRun("run_crash_approval")).toEqual({ ok: true });

  const broker = createApprovalBroker({ db, defaultTimeoutMs: 60_000 });
  expect(broker.get(callId!)).toMatchObject({ status: "pending", request: { toolPath: "mail.send", runId: "run_crash_approval" } });
  expect(broker.pending().map((r) => r.callId)).toEqual([callId!]);

  const closed = broker.closeOrphans("the gateway restarted");
  expect(closed.map((r) => r.callId)).toEqual([callId!]);
  expect(broker.get(callId!)!.decision).toEqual({ decision: "denied", by: "system", reason: "the gateway restarted" });
  expect(broker.pending()).toEqual([]);
  // A click on the old card after the restart changes nothing.
  expect(broker.decide(callId!, { decision: "approved", by: "alice" }).outcome).toBe("already-decided");
  broker.close();
  db.close();
}, 20_000);

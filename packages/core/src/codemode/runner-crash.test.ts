import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite-store.ts";

test("a gateway killed between started and succeeded leaves every earlier receipt intact", async () => {
  const file = join(makeTempDir(), "crash.sqlite");
  const child = Bun.spawn(["bun", join(import.meta.dir, "fixtures/crash-mid-call.ts"), file], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("STARTED")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  child.kill("SIGKILL");
  await child.exited;

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

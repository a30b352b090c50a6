import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import type { ReceiptDraft } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createSessionStore } from "../sessions/sqlite/store.ts";
import { createRunCodeStore } from "./sqlite/run-code.ts";

async function setup() {
  const dir = makeTempDir("oa-console-runs-");
  const db = openDatabase(join(dir, "db.sqlite"));
  const sessions = createSessionStore(db);
  const receipts = openSqliteReceipts(db, { keyDir: join(dir, "config") });
  const code = createRunCodeStore(db);
  const a = await sessions.getOrCreate("discord:dm:1", "discord");
  const b = await sessions.getOrCreate("terminal", "terminal");
  const call = (runId: string, callId: string, toolPath: string, phases: ReceiptDraft["phase"][], extra = {}) => {
    for (const phase of phases)
      receipts.stage({ runId, callId, toolPath, phase, approval: "auto", policy: "auto", ...extra });
  };
  call("run_a", "c1", "notes.read", ["requested", "started", "succeeded"], { sessionId: a.id, inputPreview: "{}" });
  call("run_a", "c2", "mail.send", ["requested", "started", "failed"], { sessionId: a.id, error: "SMTP refused" });
  call("run_b", "c3", "notes.write", ["requested"], { sessionId: b.id, inputPreview: '{"text":"100%_done"}' });
  code.record("run_b", "turn_1", "await tools.notes.write({ text: 'x' }) // unique-marker");
  await receipts.durable();
  return { db, a, b, reader: receipts, close: async () => (await receipts.close(), db.close()) };
}

describe("run list queries", () => {
  test("runs newest first with conversation, tools, call count and worst status; filters combine", async () => {
    const s = await setup();
    const all = await s.reader.runs();
    expect(all.map((r) => [r.runId, r.status, r.calls, r.conversation])).toEqual([
      ["run_b", "pending", 1, "terminal"],
      ["run_a", "failed", 2, "discord:dm:1"],
    ]);
    expect(all[1]!.tools).toEqual(["notes.read", "mail.send"]);
    expect((await s.reader.runs({ session: s.a.id })).map((r) => r.runId)).toEqual(["run_a"]);
    expect((await s.reader.runs({ tool: "notes.*" })).map((r) => r.runId)).toEqual(["run_b", "run_a"]);
    expect((await s.reader.runs({ tool: "mail.send" })).map((r) => r.runId)).toEqual(["run_a"]);
    expect((await s.reader.runs({ status: "failed" })).map((r) => r.runId)).toEqual(["run_a"]);
    expect(await s.reader.runs({ status: "succeeded" })).toEqual([]);
    expect(await s.reader.runs({ since: Date.now() + 60_000 })).toEqual([]);
    expect(await s.reader.runs({ until: 0 })).toEqual([]);
    await s.close();
  });

  test("search finds ids, errors, inputs (LIKE wildcards taken literally) and the model's code", async () => {
    const s = await setup();
    expect((await s.reader.runs({ q: "SMTP" })).map((r) => r.runId)).toEqual(["run_a"]);
    expect((await s.reader.runs({ q: "c3" })).map((r) => r.runId)).toEqual(["run_b"]);
    expect((await s.reader.runs({ q: "r_000001" })).map((r) => r.runId)).toEqual(["run_a"]);
    expect((await s.reader.runs({ q: "100%_" })).map((r) => r.runId)).toEqual(["run_b"]);
    expect(await s.reader.runs({ q: "0%x" })).toEqual([]);
    expect((await s.reader.runs({ q: "unique-marker" })).map((r) => r.runId)).toEqual(["run_b"]);
    expect((await s.reader.conversations()).map((c) => c.key).sort()).toEqual(["discord:dm:1", "terminal"]);
    await s.close();
  });
});

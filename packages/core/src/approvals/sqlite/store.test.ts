import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { openDatabase } from "../../db/open.ts";
import { createApprovalStore } from "./store.ts";

test("the whole input is stored with a request; a database from before the column gets it, old rows read back without it", async () => {
  const file = join(makeTempDir("oa-approval-store-"), "gateway.sqlite");
  const old = openDatabase(file);
  // The table as the first release made it (no input_json), with one row in it.
  old.exec(`CREATE TABLE approvals (
    call_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, session_id TEXT, tool_path TEXT NOT NULL, description TEXT NOT NULL,
    input_preview TEXT NOT NULL, code TEXT, requested_by TEXT, requested_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','approved','denied')),
    decided_by TEXT, decided_at INTEGER, reason TEXT)`);
  old.run(
    "INSERT INTO approvals (call_id, run_id, tool_path, description, input_preview, requested_at, expires_at) VALUES ('c_old', 'r', 't.x', 'd', '{\"a\":1}', 1, 2)",
  );
  old.close();

  const db = openDatabase(file);
  const store = createApprovalStore(db);
  expect((await store.get("c_old"))!.request.inputJson).toBeUndefined();
  expect((await store.get("c_old"))!.request.inputPreview).toBe('{"a":1}');
  const inputJson = JSON.stringify({ body: "x".repeat(10_000), to: "a@b.c" }, null, 2);
  await store.insert({
    callId: "c_new",
    runId: "r",
    toolPath: "t.x",
    description: "d",
    inputPreview: 'to: "a@b.c"',
    inputJson,
    files: [{ name: "monitor.ts", text: "export default 1;\n" }],
    requestedAt: 1,
    expiresAt: 2,
  });
  expect((await store.get("c_new"))!.request.inputJson).toBe(inputJson);
  // The files a tool shows whole come back as they went in; an old row has none.
  expect((await store.get("c_new"))!.request.files).toEqual([{ name: "monitor.ts", text: "export default 1;\n" }]);
  expect((await store.get("c_old"))!.request.files).toBeUndefined();
  await store.close();
  db.close();
  // Opening again does not try to add the column twice.
  const again = openDatabase(file);
  expect((await createApprovalStore(again).get("c_new"))!.request.inputJson).toBe(inputJson);
  again.close();
});

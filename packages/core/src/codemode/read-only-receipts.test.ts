import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { defineTool, z } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import type { SqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { createCodeModeRunner } from "./runner.ts";

const dir = makeTempDir();
const file = join(dir, "oa.sqlite");
const db = openDatabase(file);
const store = createSqliteReceiptStore(db);
/** The real store; only counts the commit points the invoker and runner ask for. */
let commitPoints = 0;
const receipts: SqliteReceiptStore = {
  ...store,
  durable: () => {
    commitPoints++;
    return store.durable();
  },
};

/** What another connection sees committed right now, per call. */
const committed = (): Array<{ call_id: string; tool_path: string; phase: string }> => {
  const raw = new Database(file, { readonly: true });
  try {
    return raw.query("SELECT call_id, tool_path, phase FROM receipts ORDER BY seq").all() as never;
  } finally {
    raw.close();
  }
};

let seenByWrite: Array<{ call_id: string; phase: string }> = [];
const tools = {
  files: {
    read: defineTool({
      description: "Reads a file",
      approval: "auto",
      readOnly: true,
      args: z.object({ name: z.string() }),
      run: async ({ name }) => `contents of ${name}`,
    }),
    write: defineTool({
      description: "Writes a file",
      approval: "auto",
      args: z.object({ name: z.string(), text: z.string() }),
      run: async () => {
        // The effect happens here: everything before it must already be on disk.
        seenByWrite = committed();
        return { ok: true };
      },
    }),
  },
};

const sandbox = createSandboxPool({ minIdle: 1 });
const runner = createCodeModeRunner({
  tools,
  receipts,
  requestApproval: async () => ({ decision: "denied", by: "nobody" }),
  sandbox,
});
beforeAll(() => sandbox.warmUp());
afterAll(async () => {
  await runner.close();
  await sandbox.close();
  db.close();
});

describe("read-only tools are not commit points", () => {
  test("three read-only calls: one commit, at the run's end, and every receipt is in it", async () => {
    commitPoints = 0;
    const result = await runner.runPromise(
      `const a = await tools.files.read({ name: "a" }); const b = await tools.files.read({ name: "b" });
       const c = await tools.files.read({ name: "c" }); return [a, b, c].length;`,
    );
    expect(result.valueJson).toBe("3");
    expect(commitPoints).toBe(1);
    const rows = committed().filter((r) => result.calls.some((c) => c.callId === r.call_id));
    expect(rows.map((r) => r.phase)).toEqual(Array(3).fill(["requested", "started", "succeeded"]).flat());
  });

  test("three calls that are not read-only: a commit before each runs, and one at the end", async () => {
    commitPoints = 0;
    const result = await runner.runPromise(
      `for (const n of ["a", "b", "c"]) await tools.files.write({ name: n, text: "x" }); return 3;`,
    );
    expect(result.valueJson).toBe("3");
    expect(commitPoints).toBe(4);
  });

  test("a write after reads finds the reads' receipts and its own start committed before it runs", async () => {
    const result = await runner.runPromise(
      `const a = await tools.files.read({ name: "a" }); const b = await tools.files.read({ name: "b" });
       await tools.files.write({ name: "c", text: a + b }); return 1;`,
    );
    const [read1, read2, write] = result.calls.map((c) => c.callId);
    const seen = (callId: string | undefined) => seenByWrite.filter((r) => r.call_id === callId).map((r) => r.phase);
    expect(seen(read1)).toEqual(["requested", "started", "succeeded"]);
    expect(seen(read2)).toEqual(["requested", "started", "succeeded"]);
    expect(seen(write)).toEqual(["requested", "started"]);
  });
});

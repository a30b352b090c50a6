import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { defineTool, z } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openDatabase } from "../db/open.ts";
import { RECEIPT_FIELD_CAPS, receiptTextBound } from "../receipts/bounds.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { defaultSandboxLimits } from "../sandbox/types.ts";
import { createCodeModeRunner } from "./runner.ts";
import { REPORT_MAX_CHARS } from "./validation-report.ts";

const dir = makeTempDir();
const db = openDatabase(join(dir, "oa.sqlite"));
const receipts = createSqliteReceiptStore(db, { keyDir: join(dir, "config") });
const sandbox = createSandboxPool({ minIdle: 1 });
afterAll(async () => {
  await sandbox.close();
  receipts.close();
  db.close();
});

const runner = createCodeModeRunner({
  tools: {
    items: {
      put: defineTool({
        description: "Stores strings",
        approval: "auto",
        args: z.object({ items: z.array(z.string()) }),
        run: async () => "stored",
      }),
    },
  },
  receipts,
  sandbox,
  requestApproval: async () => ({ decision: "denied", by: "system" }),
  // The point is the host side; a generous VM budget keeps a busy machine from stopping the run.
  limits: { ...defaultSandboxLimits, cpuMs: 120_000 },
});

const size = () =>
  (db.query("SELECT page_count * page_size AS n FROM pragma_page_count, pragma_page_size").get() as { n: number }).n;

test("a hostile run of 500 calls sending wrong-typed items grows the database by less than the stated bound; each report is capped and says what it left out", async () => {
  receipts.append({
    runId: "run_seed",
    callId: "c",
    toolPath: "x",
    phase: "requested",
    approval: "auto",
    policy: "auto",
  });
  const before = size();
  // One call with 200,000 wrong-typed items, then 499 with 2,000 each (the limit is 500 calls a run).
  const result = await runner.runPromise(
    `
    const messages = [];
    const big = new Array(200000).fill(0), small = new Array(2000).fill(0);
    for (let i = 0; i < 500; i++) {
      try { await tools.items.put({ items: i === 0 ? big : small }); }
      catch (e) { if (i === 0) messages.push(e.message); }
    }
    return { first: messages[0] };
  `,
    { runId: "run_hostile" },
  );
  expect(result.error).toBeUndefined();
  const first = JSON.parse(result.valueJson!).first as string;
  expect(first.length).toBeLessThanOrEqual(REPORT_MAX_CHARS + 100);
  expect(first).toMatch(/^invalid input for items\.put: items\.0: .*; … and 199,980 more issues$/);

  const rows = receipts.byRun("run_hostile");
  expect(rows.length).toBe(1000);
  const failed = rows.filter((r) => r.phase === "failed");
  expect(failed.length).toBe(500);
  for (const r of rows)
    for (const f of ["error", "inputPreview"] as const)
      expect((r[f] ?? "").length).toBeLessThanOrEqual(RECEIPT_FIELD_CAPS[f]);
  expect(failed[0]!.error).toContain("… and 199,980 more issues");

  const grown = size() - before;
  // The stated bound (README "Security model"): 3 bytes per character the run may store, plus 300 bytes of row and index per receipt.
  const bound = 3 * receiptTextBound(rows.length).perRun + 300 * rows.length;
  expect(grown).toBeLessThan(bound);
  expect(receipts.verify()).toMatchObject({ ok: true });
}, 120_000);

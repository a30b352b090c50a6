import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { openDatabase } from "../../db/open.ts";
import { createChainWriter } from "./chain-writer.ts";
import { readHead } from "../head.ts";
import { processReceiptKey } from "../key.ts";
import { ensureReceiptSchema } from "./schema.ts";
import type { ReceiptPhase } from "../types.ts";

const record = (callId: string, phase: ReceiptPhase) => ({
  at: 1_700_000_000_000,
  draft: { runId: "run_1", callId, toolPath: "calendar.get", approval: "auto", policy: "auto", phase } as const,
});

test("two writers on one database (the store's and its fold worker's) chain on from each other and never move the head back", () => {
  const dir = makeTempDir("oa-chain-writer-");
  const path = join(dir, "gateway.sqlite");
  const headFile = join(dir, "receipt-heads", "db_test.head");
  const key = processReceiptKey();
  const mainDb = openDatabase(path);
  ensureReceiptSchema(mainDb);
  const workerDb = openDatabase(path);
  const main = createChainWriter(mainDb, { key, dbId: "db_test", headFile, headWrites: "turn" });
  const worker = createChainWriter(workerDb, { key, dbId: "db_test", headFile, headWrites: "caller" });

  const first = main.commit([record("c1", "requested")]);
  const next = worker.commit([record("c1", "started"), record("c1", "succeeded")]);
  worker.writeHead();
  expect(next.map((r) => r.seq)).toEqual([2, 3]);
  expect(next[0]!.prevHash).toBe(first[0]!.hash);
  expect(readHead(headFile)).toEqual({ seq: 3, mac: next[1]!.hash });

  // The main writer's head write (seq 1) comes after the worker's: it must not move the head back.
  main.writeHead();
  expect(readHead(headFile)?.seq).toBe(3);
  const later = main.commit([record("c2", "requested")]);
  expect(later[0]!.seq).toBe(4);
  expect(later[0]!.prevHash).toBe(next[1]!.hash);
  main.writeHead();
  expect(readHead(headFile)).toEqual({ seq: 4, mac: later[0]!.hash });
  main.close();
  worker.close();
  mainDb.close();
  workerDb.close();
});

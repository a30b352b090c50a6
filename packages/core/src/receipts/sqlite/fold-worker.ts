/**
 * The fold worker: a thread that copies journaled receipts into SQLite, so the inserts, the
 * chain's macs and the commits (~25 µs per receipt) run beside the gateway's event loop instead of
 * inside it. It is the only writer of the store's receipts while it runs (fold-thread.ts starts
 * it). Records arrive as the journal's own JSON lines, in batches (fold-thread.ts), and are
 * committed as they arrive, or on request. A failed commit keeps them queued (they are in
 * the journal) and is retried.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import { openDatabase } from "../../db/open.ts";
import { createChainWriter } from "./chain-writer.ts";
import type { JournalRecord } from "./journal.ts";
import type { Receipt } from "../types.ts";
import { parseJournalLines } from "./journal.ts";
import type { FoldReply, FoldRequest, FoldWorkerData } from "./fold-protocol.ts";
import { CTL_ANSWERED, CTL_DEAD, CTL_FOLDED, RETRY_MS } from "./fold-protocol.ts";

const data = workerData as FoldWorkerData;
const ctl = new Int32Array(data.ctl);
const reply: MessagePort = data.reply;

/**
 * This thread is going away: say so where a store blocked in Atomics.wait sees it (it cannot see
 * the worker's error event until it returns), then let the error end the thread.
 */
function die(e: unknown): never {
  Atomics.store(ctl, CTL_DEAD, 1);
  Atomics.notify(ctl, CTL_ANSWERED);
  throw e;
}

let db: ReturnType<typeof openDatabase>;
let writer: ReturnType<typeof createChainWriter>;
try {
  db = openDatabase(data.path);
  writer = createChainWriter(db, { key: data.key, dbId: data.dbId, headFile: data.headFile, headWrites: "caller" });
} catch (e) {
  die(e);
}

let queue: JournalRecord[] = [];
let folded = 0;
// What a `fold` request answers: the last receipt committed, also when a timer committed it first.
let lastWritten: Receipt | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Commits everything queued; returns the last receipt written, or throws with the queue kept. */
function fold(): Receipt | undefined {
  if (timer) clearTimeout(timer);
  timer = undefined;
  if (queue.length === 0) return lastWritten;
  const written = writer.commit(queue);
  folded += queue.length;
  queue = [];
  lastWritten = written.at(-1);
  Atomics.store(ctl, CTL_FOLDED, folded);
  Atomics.notify(ctl, CTL_FOLDED); // a store awaiting settled() (Atomics.waitAsync)
  // After the count: whoever sees the head move also sees the store know these are committed.
  writer.writeHead();
  return lastWritten;
}

function foldLater(): void {
  timer = undefined;
  try {
    fold();
  } catch {
    schedule(RETRY_MS); // still in the journal; a request reports the error
  }
}

/** Lines arrive in batches (fold-thread.ts waits SEND_MS): commit them at once; after a failure, retry in RETRY_MS. */
function schedule(delay = 0): void {
  timer ??= setTimeout(foldLater, delay);
}

function answer(id: number, r: FoldReply): void {
  reply.postMessage(r);
  Atomics.store(ctl, CTL_ANSWERED, id);
  Atomics.notify(ctl, CTL_ANSWERED);
}

parentPort!.on("message", (m: FoldRequest) => {
  if (m.t === "records") {
    try {
      for (const r of parseJournalLines(m.text, "the fold worker's input")) queue.push(r);
    } catch (e) {
      die(e);
    }
    schedule();
    return;
  }
  let r: FoldReply;
  try {
    r = { id: m.id, ok: true, last: fold() };
  } catch (e) {
    r = { id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  if (m.t === "close" && r.ok) {
    writer.close();
    db.close();
    answer(m.id, r);
    parentPort!.close();
    return;
  }
  answer(m.id, r);
});

import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import {
  CTL_ANSWERED,
  CTL_DEAD,
  CTL_FOLDED,
  CTL_SLOTS,
  type FoldReply,
  type FoldRequest,
  type FoldWorkerData,
} from "./fold-protocol.ts";
import type { JournalRecord } from "./journal.ts";
import type { Receipt } from "../types.ts";

/**
 * The store's side of the fold worker (fold-worker.ts). Journaled lines go over in batches, every
 * SEND_MS or past SEND_CHARS, and cost the event loop only a string append; `foldNow` blocks the
 * calling thread (Atomics.wait) until the worker has committed everything sent, so the store's
 * reads stay synchronous.
 */
export interface FoldThread {
  /** `text`: the records' journal lines. */
  send(text: string, records: readonly JournalRecord[]): void;
  /**
   * The records not yet sent, taken back, when the worker holds nothing uncommitted (so committing
   * them elsewhere cannot race it); undefined otherwise. A read right after a short run commits
   * them on its own connection instead of waiting for the thread round trip.
   */
  takeUnsent(): { text: string; records: readonly JournalRecord[] } | undefined;
  /** Records sent and not yet committed. */
  outstanding(): number;
  /**
   * Resolves once the worker has committed everything sent so far, without blocking the calling
   * thread (Atomics.waitAsync); rejects when the worker stops or does not answer in time.
   */
  settled(): Promise<void>;
  /** Commits everything sent; the last receipt written, if any. Throws the worker's error. */
  foldNow(): Receipt | undefined;
  /** True once the worker has stopped or failed to start; the store then folds by itself. */
  dead(): boolean;
  close(): void;
}

/** ES2024's Atomics.waitAsync (Bun has it; the repo's TypeScript lib is ES2023). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      a: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** How long lines wait before they go to the worker, and how many characters send them at once. */
const SEND_MS = 50;
const SEND_CHARS = 256 * 1024;
/** How long a read waits for the worker before it gives up (a stuck or dead thread). */
const ANSWER_MS = 30_000;

export function startFoldThread(data: Omit<FoldWorkerData, "ctl" | "reply">): FoldThread {
  const ctl = new Int32Array(new SharedArrayBuffer(CTL_SLOTS * 4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./fold-worker.ts", import.meta.url), {
    workerData: { ...data, ctl: ctl.buffer, reply: port2 } satisfies FoldWorkerData,
    transferList: [port2],
  });
  worker.unref();
  let stopped = false;
  let failure: string | undefined;
  // A settled() waiting for commits must hear that none will come.
  const wakeWaiters = () => Atomics.notify(ctl, CTL_FOLDED);
  worker.on("error", (e) => {
    stopped = true;
    failure = e instanceof Error ? e.message : String(e);
    wakeWaiters();
  });
  worker.on("exit", () => {
    stopped = true;
    wakeWaiters();
  });
  let sent = 0;
  let requests = 0;
  // Lines wait here and go over together every SEND_MS: one worker wake-up per batch, not per
  // commit point (on two cores the worker shares one with the sandbox child).
  let unsent = "";
  let unsentRecords: JournalRecord[] = [];
  let sendTimer: ReturnType<typeof setTimeout> | undefined;
  const flushSends = () => {
    if (sendTimer) clearTimeout(sendTimer);
    sendTimer = undefined;
    if (unsentRecords.length === 0 || stopped) return;
    worker.postMessage({ t: "records", text: unsent } satisfies FoldRequest);
    sent += unsentRecords.length;
    unsent = "";
    unsentRecords = [];
  };

  function request(t: "fold" | "close"): FoldReply {
    if (stopped) throw new Error(`the receipt fold worker stopped${failure ? `: ${failure}` : ""}`);
    flushSends();
    const id = ++requests;
    worker.postMessage({ t, id } satisfies FoldRequest);
    const deadline = performance.now() + ANSWER_MS;
    for (let seen = Atomics.load(ctl, CTL_ANSWERED); seen < id; seen = Atomics.load(ctl, CTL_ANSWERED)) {
      if (Atomics.load(ctl, CTL_DEAD) === 1) {
        stopped = true;
        throw new Error("the receipt fold worker stopped on an error");
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        stopped = true;
        throw new Error(`the receipt fold worker did not answer within ${ANSWER_MS / 1000} s`);
      }
      Atomics.wait(ctl, CTL_ANSWERED, seen, left);
    }
    // Answers arrive in request order; an earlier one nobody waited for (a timeout) is skipped.
    for (;;) {
      const m = receiveMessageOnPort(port1)?.message as FoldReply | undefined;
      if (!m) throw new Error("the receipt fold worker answered without a reply");
      if (m.id === id) return m;
    }
  }

  return {
    send(text, records) {
      unsent += text;
      for (const r of records) unsentRecords.push(r);
      if (unsent.length >= SEND_CHARS) flushSends();
      else if (!sendTimer) {
        sendTimer = setTimeout(flushSends, SEND_MS);
        sendTimer.unref?.();
      }
    },
    takeUnsent() {
      if (unsentRecords.length === 0 || sent !== Atomics.load(ctl, CTL_FOLDED)) return undefined;
      if (sendTimer) clearTimeout(sendTimer);
      sendTimer = undefined;
      const taken = { text: unsent, records: unsentRecords };
      unsent = "";
      unsentRecords = [];
      return taken;
    },
    outstanding: () => sent + unsentRecords.length - Atomics.load(ctl, CTL_FOLDED),
    async settled() {
      flushSends();
      const target = sent;
      const deadline = performance.now() + ANSWER_MS;
      for (let seen = Atomics.load(ctl, CTL_FOLDED); seen < target; seen = Atomics.load(ctl, CTL_FOLDED)) {
        if (stopped || Atomics.load(ctl, CTL_DEAD) === 1) throw new Error("the receipt fold worker stopped");
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`the receipt fold worker did not commit within ${ANSWER_MS / 1000} s`);
        const wait = waitAsync(ctl, CTL_FOLDED, seen, left);
        if (wait.async) await wait.value;
      }
    },
    foldNow() {
      const r = request("fold");
      if (!r.ok) throw new Error(r.error);
      return r.last;
    },
    dead: () => stopped || Atomics.load(ctl, CTL_DEAD) === 1,
    close() {
      try {
        if (!stopped && Atomics.load(ctl, CTL_DEAD) !== 1) {
          const r = request("close");
          if (!r.ok) throw new Error(r.error);
        }
      } finally {
        if (sendTimer) clearTimeout(sendTimer);
        stopped = true;
        port1.close();
        void worker.terminate();
      }
    },
  };
}

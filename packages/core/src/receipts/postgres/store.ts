import type { Postgres } from "../../db/postgres/connect.ts";
import { migrate } from "../../db/postgres/migrate.ts";
import { createRunBudgets } from "../bounds.ts";
import { loadReceiptKey, processReceiptKey, type ReceiptKey } from "../key.ts";
import type { ReceiptLog } from "../port.ts";
import type { SecretSink } from "../secret-registry.ts";
import { validateDraft } from "../sqlite/store.ts";
import type { Receipt, ReceiptDraft } from "../types.ts";
import { appendBatch, type StagedReceipt, storableDraft } from "./chain.ts";
import { createPgHead } from "./head.ts";
import { RECEIPT_MIGRATIONS } from "./schema.ts";
import { createPgVerifier } from "./verify.ts";

export interface PostgresReceiptOptions {
  /** Clock for `at` (epoch ms); tests pin it. */
  readonly now?: () => number;
  /**
   * The config dir holding the chain's HMAC key (`receipts.key`). Every gateway writing to one
   * database needs the same key file. Omitted: a key that lives only in this process (tests).
   */
  readonly keyDir?: string;
  /** Where the key is registered for redaction. */
  readonly secrets?: SecretSink;
}

/** The write side with what the reads need: `settled()` resolves once everything staged is committed. */
export interface PostgresReceiptLog extends ReceiptLog {
  settled(): Promise<void>;
}

/** The longest a deferred receipt waits for another commit to carry it. */
const DEFER_MS = 2;

/**
 * Receipts on PostgreSQL, one keyed chain across all runs and all gateways on the database.
 * `stage` validates and bounds at once and queues; one group commit at a time carries everything
 * staged until it starts (appendBatch: one transaction, the chain lock, one INSERT). `durable()`
 * resolves only after the COMMIT of the batch holding everything staged before it, and rejects if
 * that commit failed; the failed batch goes back to the front of the queue for the next commit,
 * so nothing staged is dropped.
 */
export async function openPostgresReceiptLog(
  sql: Postgres,
  options: PostgresReceiptOptions = {},
): Promise<PostgresReceiptLog> {
  const now = options.now ?? Date.now;
  const key: ReceiptKey = options.keyDir !== undefined ? loadReceiptKey(options.keyDir) : processReceiptKey();
  options.secrets?.add("receipt-key", [Buffer.from(key.key).toString("hex")]);
  await migrate(sql, "receipts", RECEIPT_MIGRATIONS);
  const dbId = await recordedMeta(sql, "db_id", `db_${crypto.randomUUID().replaceAll("-", "")}`);
  const keyId = await recordedMeta(sql, "key_id", key.id);
  if (keyId !== key.id)
    throw new Error(
      `the receipts in this PostgreSQL database are signed with key ${keyId}, but ${key.path ?? "this process"} holds key ${key.id}: copy the key file the other gateways use (receipts.key) to this machine`,
    );
  const budgets = createRunBudgets();
  const head = createPgHead(key, dbId);
  const verifier = createPgVerifier(sql, key, dbId, head);

  type Waiter = { resolve: () => void; reject: (e: unknown) => void };
  let pending: StagedReceipt[] = [];
  let waiters: Waiter[] = [];
  let committing: Promise<void> | undefined;
  /** The batch being committed: settles with its COMMIT (the loop above may go on with later batches). */
  let inFlight: Promise<void> | undefined;
  let deferTimer: ReturnType<typeof setTimeout> | undefined;

  /** Commits batches until nothing is staged; one at a time, so the chain's order is the staging order. */
  function commitSoon(): Promise<void> {
    committing ??= (async () => {
      await Promise.resolve(); // every receipt staged in this task joins the batch
      try {
        while (pending.length > 0) {
          if (deferTimer) clearTimeout(deferTimer);
          deferTimer = undefined;
          const batch = pending;
          const ws = waiters;
          pending = [];
          waiters = [];
          const attempt = appendBatch(sql, key, dbId, batch);
          inFlight = attempt.then(() => {});
          inFlight.catch(() => {}); // its waiters and the loop report the failure
          try {
            const written = await attempt;
            const last = written.at(-1)!;
            head.committed({ seq: last.seq, mac: last.hash });
          } catch (e) {
            // Back to the front of the queue for the next commit; whoever waits now learns it failed.
            pending = batch.concat(pending);
            const waiting = ws.concat(waiters);
            waiters = [];
            for (const w of waiting) w.reject(e);
            throw e;
          }
          for (const w of ws) w.resolve();
        }
      } finally {
        committing = undefined;
      }
    })();
    return committing;
  }

  function prepare(draft: ReceiptDraft): StagedReceipt {
    validateDraft(draft);
    return { draft: storableDraft(budgets.bound(draft)), at: Math.trunc(now()) };
  }

  function stage(draft: ReceiptDraft, opts?: { readonly defer?: boolean }): void {
    pending.push(prepare(draft));
    if (opts?.defer) {
      deferTimer ??= setTimeout(() => {
        deferTimer = undefined;
        commitSoon().catch(() => {});
      }, DEFER_MS);
      return;
    }
    commitSoon().catch(() => {}); // the waiters of that commit get the error
  }

  function durable(): Promise<void> {
    // Nothing staged since: what was staged before is in the batch being committed, if any.
    if (pending.length === 0) return inFlight ?? Promise.resolve();
    const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
    commitSoon().catch(() => {});
    return done;
  }

  /** Everything staged so far is committed (or this rejects with why not). */
  async function settled(): Promise<void> {
    while (pending.length > 0 || committing) await durable();
  }

  async function append(draft: ReceiptDraft): Promise<Receipt> {
    const staged = prepare(draft);
    // Commit what was staged before it first, then this one alone, so its stored row comes back.
    await settled();
    const [written] = await appendBatch(sql, key, dbId, [staged]);
    head.committed({ seq: written!.seq, mac: written!.hash });
    return written!;
  }

  return {
    stage,
    durable,
    settled,
    append,
    async verifyRun(runId) {
      await settled();
      head.flush();
      return verifier.verifyRun(runId);
    },
    async verify() {
      await settled();
      head.flush();
      return verifier.verifyAll();
    },
    info: async () => ({
      dbId,
      keyId: key.id,
      keyPath: key.path,
      headPath: key.dir ? head.where : undefined,
      recordedKeyId: keyId,
    }),
    async close() {
      if (deferTimer) clearTimeout(deferTimer);
      deferTimer = undefined;
      try {
        await settled();
      } finally {
        head.close();
      }
    },
  };
}

/** A `receipt_meta` value, recorded as `value` when absent (first gateway wins). */
async function recordedMeta(sql: Postgres, name: string, value: string): Promise<string> {
  await sql`INSERT INTO receipt_meta (name, value) VALUES (${name}, ${value}) ON CONFLICT (name) DO NOTHING`;
  const [row] = await sql`SELECT value FROM receipt_meta WHERE name = ${name}`;
  return row.value;
}

import { Database } from "bun:sqlite";
import { closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { appendWhole, TornAppendError } from "../../files/whole-writes.ts";
import { join } from "node:path";
import { chainFilePath } from "../head.ts";
import type { ReceiptDraft } from "../types.ts";

/**
 * The receipt journal: a buffer in front of SQLite that a killed process cannot lose. A commit
 * point appends its staged receipts here with one write (a few µs; a SQLite commit of the same
 * rows costs 100–200 µs on the machine in BENCHMARKS.md), and the store copies the journal into
 * SQLite in one transaction a little later, before any read, and when it opens the database after
 * a crash. It lives beside the chain head (`<config dir>/receipt-heads/<database id>.journal`), where
 * someone who can write the database cannot reach it.
 *
 * One process owns a journal at a time: an exclusive SQLite lock on `<database id>.journal-lock`,
 * which the OS releases when the process dies. A store that cannot take it commits straight to
 * SQLite; the owner folds its own journal.
 */
export interface JournalRecord {
  readonly draft: ReceiptDraft;
  readonly at: number;
}

export interface ReceiptJournal {
  readonly path: string;
  /** Appends journal lines (`journalLines`) with one write; throws if the file could not take all of them. */
  append(text: string): void;
  /** What the journal holds now. */
  read(): JournalRecord[];
  /** Empties the journal once its records are committed to SQLite. */
  clear(): void;
  /** Closes the file and releases the lock. */
  close(): void;
}

export interface OpenedJournal {
  readonly journal: ReceiptJournal;
  /** What a previous owner left behind (it stopped before folding them); some may be in SQLite already. */
  readonly leftover: readonly JournalRecord[];
}

/**
 * The journal of `dbId`, or undefined while another live process owns it. With `create: false`
 * (a store that only adopts what a crashed owner left), undefined also when there is no journal
 * with records, and nothing is created.
 */
export function openReceiptJournal(
  dir: string,
  dbId: string,
  { create }: { readonly create: boolean },
): OpenedJournal | undefined {
  const path = chainFilePath(dir, dbId, "journal");
  if (!create && !hasRecords(path)) return undefined;
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  const lock = takeLock(`${path}-lock`);
  if (!lock) return undefined;
  let fd: number;
  let leftover: JournalRecord[];
  try {
    leftover = readRecords(path);
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600);
  } catch (e) {
    lock.close();
    throw e;
  }
  // Where the journal's whole records end: a write cut short (a full disk) is cut back to it.
  let size = fstatSync(fd).size;
  // The file ends in part of a record that could not be cut off: nothing may follow it until a clear.
  let torn = false;
  const journal: ReceiptJournal = {
    path,
    append(text) {
      if (torn)
        throw new Error(`${path} ends in part of a record that could not be removed; nothing more is appended to it`);
      try {
        size = appendWhole(fd, size, text);
      } catch (e) {
        if (e instanceof TornAppendError) torn = true;
        throw e;
      }
    },
    read: () => readRecords(path),
    clear() {
      ftruncateSync(fd, 0);
      size = 0;
      torn = false;
    },
    close() {
      closeSync(fd);
      lock.close();
    },
  };
  return { journal, leftover };
}

function hasRecords(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}

/** An exclusive lock held by this connection until it closes (or the process dies). */
function takeLock(path: string): Database | undefined {
  const db = new Database(path, { create: true });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
    return db;
  } catch (e) {
    db.close();
    if (/locked|busy/i.test((e as Error).message)) return undefined;
    throw e;
  }
}

function readRecords(path: string): JournalRecord[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  return parseJournalLines(text, path);
}

/** Journal lines as records; `where` names the source in the error for a damaged line. */
export function parseJournalLines(text: string, where: string): JournalRecord[] {
  const lines = text.split("\n");
  // A write cut short by the crash has no newline: it was never reported durable.
  lines.pop();
  return lines.map((line, i) => {
    try {
      const v = JSON.parse(line) as { at?: unknown; d?: unknown };
      if (Number.isSafeInteger(v.at) && typeof v.d === "object" && v.d !== null)
        return { at: v.at as number, draft: v.d as ReceiptDraft };
    } catch {
      // reported below
    }
    throw new Error(
      `${where} line ${i + 1} is not a receipt journal record; restore the file from a backup, or move it aside (the receipts it holds are then lost)`,
    );
  });
}

/** The records as journal lines: one JSON object per line, each ending in a newline. */
export function journalLines(records: readonly JournalRecord[]): string {
  let text = "";
  for (const r of records) text += `${JSON.stringify({ at: r.at, d: r.draft })}\n`;
  return text;
}

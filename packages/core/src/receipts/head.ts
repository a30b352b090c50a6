import { closeSync, constants, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * The chain head: the seq and mac of the last receipt this machine committed to a database,
 * kept beside the key (`<config dir>/receipt-heads/<database id>.head`), outside the database.
 * Someone who can write the database but not the config dir cannot move it back, so a cut tail
 * (or whole runs at the end) shows as "the head's receipt is missing".
 *
 * Written after the commits of each event-loop turn with one positioned write of a fixed-size
 * record (a killed process cannot leave half of it). A crash before that write leaves the head
 * behind by those commits: their receipts are checked by the chain but not by the head.
 */
export interface ChainHead {
  readonly seq: number;
  readonly mac: string;
}

const RECORD_BYTES = 128;

export function headPath(dir: string, dbId: string): string {
  return chainFilePath(dir, dbId, "head");
}

/** A file of one database's chain kept in the config dir: its head, its journal (journal.ts). */
export function chainFilePath(dir: string, dbId: string, kind: "head" | "journal"): string {
  return join(dir, "receipt-heads", `${dbId}.${kind}`);
}

export function readHead(path: string): ChainHead | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  // Created but never written (a crash between the two): no head yet.
  if (text.trim() === "") return undefined;
  try {
    const v = JSON.parse(text) as ChainHead;
    if (Number.isSafeInteger(v.seq) && typeof v.mac === "string" && /^[0-9a-f]{64}$/.test(v.mac))
      return { seq: v.seq, mac: v.mac };
  } catch {
    // fall through
  }
  throw new Error(
    `${path} is not a receipt chain head; restore it from a backup or remove it (the tail of that database then goes unchecked)`,
  );
}

export function openHeadWriter(path: string) {
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  // Not O_APPEND: Linux ignores the position of a positioned write to a file opened for append.
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  const buf = Buffer.alloc(RECORD_BYTES);
  return {
    write(head: ChainHead): void {
      const text = JSON.stringify({ seq: head.seq, mac: head.mac });
      buf.fill(0x20);
      buf.write(text, 0, "utf8");
      buf[RECORD_BYTES - 1] = 0x0a;
      writeSync(fd, buf, 0, RECORD_BYTES, 0);
    },
    close(): void {
      closeSync(fd);
    },
  };
}

import { type ChainHead, headPath, openHeadWriter, readHead } from "../head.ts";
import type { ReceiptKey } from "../key.ts";

/**
 * The chain head this machine committed to a PostgreSQL database, kept beside the key
 * (`receipt-heads/<database id>.head`, head.ts), outside the database: someone who can drop the
 * triggers but not write the config dir cannot hide that the newest receipts were deleted. Each
 * gateway keeps its own (another machine's appends come after it and are checked by the chain);
 * a head file shared by two gateways of one config dir never moves back. Written once per
 * event-loop turn after a commit, off the commit's path (as on SQLite, chain-writer.ts).
 * Without a key dir the head lives in this process's memory.
 */
export function createPgHead(key: ReceiptKey, dbId: string) {
  const file = key.dir ? headPath(key.dir, dbId) : undefined;
  let head: ChainHead | undefined = file ? readHead(file) : undefined;
  let writer: ReturnType<typeof openHeadWriter> | undefined;
  let dirty = false;

  const write = () => {
    if (!dirty || !head || !file) return;
    dirty = false;
    let onDisk: ChainHead | undefined;
    try {
      onDisk = readHead(file);
    } catch {
      // a damaged head file is the verifier's to report; a writer replaces it
    }
    if ((onDisk?.seq ?? -1) >= head.seq) return;
    (writer ??= openHeadWriter(file)).write(head);
  };

  return {
    where: file ?? "this process's memory",
    /** The head as recorded now (the file when there is one). */
    current: (): ChainHead | undefined => (file ? readHead(file) : head),
    /** A commit ended at `moved`; the file follows on the next event-loop turn. */
    committed(moved: ChainHead): void {
      if (head && head.seq >= moved.seq) return;
      head = moved;
      if (file && !dirty) {
        dirty = true;
        setImmediate(write);
      }
    },
    /** Writes a moved head now (before a check and on close). */
    flush: write,
    close(): void {
      write();
      writer?.close();
      writer = undefined;
    },
  };
}

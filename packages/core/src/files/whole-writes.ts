import { closeSync, fsyncSync, ftruncateSync, openSync, renameSync, rmSync, writeSync } from "node:fs";

/**
 * Writes all of `data` at the file's position. write(2) may take only part of it (a nearly full
 * disk takes what fits); the rest is written again, so the disk's error is thrown instead of the
 * file being left short without a word.
 */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}

/** The append failed and the part it wrote could not be removed: the file ends in part of a record. */
export class TornAppendError extends Error {
  override name = "TornAppendError";
}

/**
 * Appends `data` (whole records) to a file opened with O_APPEND whose records end at byte `size`,
 * and returns the new size. A write cut short is cut back to `size`: a record appended after the
 * part would make the two one damaged line, and a reader would lose both. Throws the write's
 * error, or a TornAppendError if even the cut failed.
 */
export function appendWhole(fd: number, size: number, data: string | Uint8Array): number {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  try {
    writeAll(fd, bytes);
  } catch (e) {
    try {
      ftruncateSync(fd, size);
    } catch {
      throw new TornAppendError(`a write was cut short and could not be undone (${(e as Error).message})`);
    }
    throw e;
  }
  return size + bytes.length;
}

/**
 * Replaces `path` whole: `text` goes to a new temp file beside it (created with `mode`, all of it
 * or an error, synced first when `sync`), which is then renamed over `path`. A reader sees the old
 * file or the new one, never part of one; on failure the temp file is removed and `path` is as it was.
 */
export function replaceFile(path: string, text: string, { mode = 0o666, sync = false } = {}): void {
  const tmp = `${path}.${process.pid}.${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", mode);
  try {
    try {
      writeAll(fd, text);
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

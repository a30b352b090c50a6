import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { appendWhole } from "../../files/whole-writes.ts";
import { foldJournalLines, journalLine, type JournalLine } from "./journal-lines.ts";
import type { RunJournal } from "./port.ts";

/** Files kept open at once; the least recently used is closed beyond it (a run reopens its own). */
const OPEN_FILES = 32;

/**
 * The run journal as one append-only file per run (`<dir>/<run id>.ndjson`): a batch is one
 * `write` of whole lines (a few µs; a SQLite commit costs tens of µs, BENCHMARKS.md "Run journal"),
 * in the OS's page cache when it returns, so a killed process cannot lose it. Reading folds the
 * lines (`journal-lines.ts`, shared with the PostgreSQL backend). A last line cut short by a crash
 * is ignored.
 */
export function openFileRunJournal(dir: string): RunJournal {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = new Map<string, { fd: number; size: number }>();
  let batch: Map<string, string> | undefined;

  const fileOf = (runId: string) => join(dir, `${fileName(runId)}.ndjson`);
  const open = (runId: string) => {
    let f = files.get(runId);
    if (f) files.delete(runId);
    else {
      const fd = openSync(fileOf(runId), "a", 0o600);
      f = { fd, size: fstatSync(fd).size };
      if (files.size >= OPEN_FILES) {
        const [oldest, file] = files.entries().next().value!;
        files.delete(oldest);
        closeSync(file.fd);
      }
    }
    files.set(runId, f);
    return f;
  };
  const append = (runId: string, text: string) => {
    const f = open(runId);
    f.size = appendWhole(f.fd, f.size, text);
  };
  const write = (runId: string, line: JournalLine) => {
    const text = `${journalLine(line)}\n`;
    if (batch) batch.set(runId, (batch.get(runId) ?? "") + text);
    else append(runId, text);
  };

  return {
    batch: (work) => {
      const outer = batch;
      batch ??= new Map();
      try {
        work();
        if (!outer) for (const [runId, text] of batch) append(runId, text);
      } finally {
        if (!outer) batch = undefined;
      }
    },
    begin: (r) => write(r.runId, r.context ? ["begin", r.seed, r.context] : ["begin", r.seed]),
    call: (c) => write(c.runId, ["call", c.position, c.callId, c.toolPath, c.inputHash]),
    answer: (runId, position, result, at) => write(runId, ["answer", position, result, at]),
    clock: (runId, from, runs) => write(runId, ["clock", from, runs]),
    resumed: (runId) => write(runId, ["resumed"]),
    read: async (runId) => {
      const path = fileOf(runId);
      return existsSync(path) ? foldJournalLines(runId, readFileSync(path, "utf8").split("\n")) : undefined;
    },
  };
}

/** A run id as a file name: run ids the runner makes are kept as they are; any other is hashed. */
function fileName(runId: string): string {
  return /^[A-Za-z0-9_-]{1,100}$/.test(runId)
    ? runId
    : `h_${new Bun.CryptoHasher("sha256").update(runId).digest("hex").slice(0, 32)}`;
}

import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { appendWhole } from "../../files/whole-writes.ts";
import type { ClockRun, HostCallResult } from "../../sandbox/types.ts";
import type { JournalEntry, JournalRun, RunContext, RunJournal } from "./port.ts";

/** Files kept open at once; the least recently used is closed beyond it (a run reopens its own). */
const OPEN_FILES = 32;

/** One line of a run's journal file. */
type Line =
  | readonly ["begin", seed: readonly number[], context?: RunContext]
  | readonly ["call", position: number, callId: string, toolPath: string, inputHash: string]
  | readonly ["answer", position: number, result: HostCallResult, at: number]
  | readonly ["clock", from: number, runs: readonly ClockRun[]]
  | readonly ["resumed"];

/**
 * The run journal as one append-only file per run (`<dir>/<run id>.ndjson`): a batch is one
 * `write` of whole lines (a few µs; a SQLite commit costs tens of µs, BENCHMARKS.md "Run journal"),
 * in the OS's page cache when it returns, so a killed process cannot lose it. Reading folds the
 * lines the way the SQLite backend's constraints do: the first seed, an answer only for a position
 * without one, a clock index only once. A last line cut short by a crash is ignored.
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
  const write = (runId: string, line: Line) => {
    const text = `${JSON.stringify(line)}\n`;
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
      return existsSync(path) ? fold(runId, readFileSync(path, "utf8")) : undefined;
    },
  };
}

function fold(runId: string, text: string): JournalRun | undefined {
  let seed: readonly number[] | undefined;
  let context: RunContext | undefined;
  let resumes = 0;
  const calls = new Map<number, JournalEntry>();
  const clock = new Map<number, ClockRun>();
  for (const raw of text.split("\n")) {
    const line = parseLine(raw);
    if (!line) continue;
    if (line[0] === "begin") {
      if (!seed) context = line[2];
      seed ??= line[1];
    } else if (line[0] === "resumed") resumes++;
    else if (line[0] === "call") {
      const [, position, callId, toolPath, inputHash] = line;
      if (calls.get(position)?.result === undefined)
        calls.set(position, { runId, position, callId, toolPath, inputHash });
    } else if (line[0] === "answer") {
      const [, position, result, at] = line;
      const entry = calls.get(position);
      if (entry && entry.result === undefined) calls.set(position, { ...entry, result, answeredAt: at });
    } else {
      let idx = line[1];
      for (const run of line[2]) {
        if (!clock.has(idx)) clock.set(idx, run);
        idx += run[1];
      }
    }
  }
  if (!seed) return undefined;
  return {
    runId,
    seed,
    ...(context ? { context } : {}),
    resumes,
    clock: [...clock.entries()].sort((a, b) => a[0] - b[0]).map(([, run]) => run),
    calls: [...calls.values()].sort((a, b) => a.position - b.position),
  };
}

function parseLine(raw: string): Line | undefined {
  if (raw === "") return undefined;
  try {
    const line = JSON.parse(raw) as unknown;
    return Array.isArray(line) && typeof line[0] === "string" ? (line as unknown as Line) : undefined;
  } catch {
    return undefined; // a last line cut short by a crash
  }
}

/** A run id as a file name: run ids the runner makes are kept as they are; any other is hashed. */
function fileName(runId: string): string {
  return /^[A-Za-z0-9_-]{1,100}$/.test(runId)
    ? runId
    : `h_${new Bun.CryptoHasher("sha256").update(runId).digest("hex").slice(0, 32)}`;
}

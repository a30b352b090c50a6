import type { ClockRun, HostCallResult } from "../../sandbox/types.ts";
import type { JournalEntry, JournalRun, RunContext } from "./port.ts";

/**
 * One entry of a run's journal as the append-only backends keep it (a line of the run's file, a row
 * of `run_journal_lines` on PostgreSQL): a JSON array whose first element names the entry.
 */
export type JournalLine =
  | readonly ["begin", seed: readonly number[], context?: RunContext]
  | readonly ["call", position: number, callId: string, toolPath: string, inputHash: string]
  | readonly ["answer", position: number, result: HostCallResult, at: number]
  | readonly ["clock", from: number, runs: readonly ClockRun[]]
  | readonly ["resumed"];

export function journalLine(line: JournalLine): string {
  return JSON.stringify(line);
}

/**
 * A run's entries, in the order they were written, folded into the run: the first seed (and its
 * context) is kept, an answer only for a position without one, a clock index only once, and a call
 * takes over a position that has no answer (a re-executed call). Unparsable entries (a last line cut
 * short by a crash) are ignored. Undefined when no `begin` was kept.
 */
export function foldJournalLines(runId: string, raws: Iterable<string>): JournalRun | undefined {
  let seed: readonly number[] | undefined;
  let context: RunContext | undefined;
  let resumes = 0;
  const calls = new Map<number, JournalEntry>();
  const clock = new Map<number, ClockRun>();
  for (const raw of raws) {
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

function parseLine(raw: string): JournalLine | undefined {
  if (raw === "") return undefined;
  try {
    const line = JSON.parse(raw) as unknown;
    return Array.isArray(line) && typeof line[0] === "string" ? (line as unknown as JournalLine) : undefined;
  } catch {
    return undefined; // a last line cut short by a crash
  }
}

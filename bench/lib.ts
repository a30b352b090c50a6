/** Tiny benchmark helpers: run a function repeatedly, report the median and percentiles. */
export interface BenchResult {
  name: string;
  iterations: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
}

export async function bench(
  name: string,
  fn: () => unknown | Promise<unknown>,
  opts: { iterations?: number; warmup?: number } = {},
): Promise<BenchResult> {
  const iterations = opts.iterations ?? 50;
  for (let i = 0; i < (opts.warmup ?? 5); i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { name, iterations, medianMs: at(0.5), p95Ms: at(0.95), minMs: samples[0]! };
}

export function fmtMs(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n## ${title}`);
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]!);
  console.log(`| ${cols.join(" | ")} |`);
  console.log(`| ${cols.map(() => "---").join(" | ")} |`);
  for (const r of rows) console.log(`| ${cols.map((c) => String(r[c])).join(" | ")} |`);
}

/** Median and p95 of raw samples (ms). */
export function quantiles(samples: readonly number[]): { median: number; p95: number; min: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p95: at(0.95), min: s[0]! };
}

/** Runs `bun install` / `bun add` for a workspace dir: time limit, progress for slow runs, scrubbed output. */
export interface BunRunOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  /** Receives progress lines ("still installing … (10 s)") while the command runs. */
  readonly progress?: (line: string) => void;
  /** What is being installed, for the progress lines. */
  readonly what: string;
}

export interface BunRunResult {
  readonly ok: boolean;
  readonly timedOut: boolean;
  readonly code: number | null;
  /** stderr (or stdout when stderr is empty), registry credentials scrubbed. */
  readonly output: string;
}

const PROGRESS_EVERY_MS = 5_000;

export async function runBun(args: readonly string[], cwd: string, opts: BunRunOptions): Promise<BunRunResult> {
  const proc = Bun.spawn([process.execPath, ...args], {
    cwd,
    env: { ...(opts.env ?? process.env) } as Record<string, string>,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const started = Date.now();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, opts.timeoutMs);
  const ticker = opts.progress
    ? setInterval(
        () => opts.progress!(`  still installing ${opts.what} (${Math.round((Date.now() - started) / 1000)} s)…`),
        PROGRESS_EVERY_MS,
      )
    : undefined;
  try {
    const [stderr, stdout] = await Promise.all([new Response(proc.stderr).text(), new Response(proc.stdout).text()]);
    const code = await proc.exited;
    return { ok: !timedOut && code === 0, timedOut, code, output: scrub(stderr.trim() ? stderr : stdout) };
  } finally {
    clearTimeout(timer);
    if (ticker) clearInterval(ticker);
  }
}

/**
 * One line saying why installing `name` failed, from bun's output: unknown package (404), no such
 * version, registry unreachable (offline), or bun's first error line.
 */
export function installFailureReason(output: string, name?: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.filter((l) => /^error:/i.test(l));
  const about = name ? errors.filter((l) => l.includes(name)) : [];
  const line = (about[0] ?? errors[0] ?? lines.at(-1) ?? "no output").replace(/^error:\s*/i, "");
  if (/ - 404\b|404 Not Found|\b404\b/.test(line))
    return `${name ? `"${name}"` : "a package"} is not on the npm registry (404)`;
  if (/No version matching|No matching version|versions? .* not found/i.test(line)) return line;
  if (
    /ConnectionRefused|ECONNREFUSED|ENOTFOUND|getaddrinfo|network|timed? ?out|Unable to connect|ConnectionClosed|FailedToOpenSocket/i.test(
      line,
    )
  )
    return `the npm registry could not be reached (offline?): ${line}`;
  return line;
}

export function tailLines(text: string, n: number): string {
  return text.trimEnd().split("\n").slice(-n).join("\n");
}

/** Registry credentials can appear in bun's output (URLs, `_authToken`); never pass them on. */
export function scrub(text: string): string {
  return text.replace(/(\/\/)[^/\s:@]+:[^/\s@]+@/g, "$1***@").replace(/(_authToken|token)=\S+/gi, "$1=***");
}

/**
 * Tools and plugins run in the gateway process (seed 000: plugin code is trusted, not sandboxed).
 * One that throws outside a tool call — from a timer, an event handler or a promise nobody awaits —
 * would make Bun exit. This guard reports such an error with the file it came from and keeps the
 * gateway running; only a burst of them (a crash loop) shuts it down.
 */
export interface CrashGuardOptions {
  readonly log: (line: string) => void;
  /** Called once when errors keep coming: the caller shuts down gracefully. */
  readonly onFatal: (why: string) => void;
  /** Errors within one minute that mean "stop" (default 10). */
  readonly maxPerMinute?: number;
  readonly redact?: (text: string) => string;
}

export function installCrashGuard(options: CrashGuardOptions): () => void {
  const max = options.maxPerMinute ?? 10;
  const redact = options.redact ?? ((t: string) => t);
  const recent: number[] = [];
  let fatal = false;

  const handle = (kind: string) => (reason: unknown) => {
    const now = Date.now();
    recent.push(now);
    while (recent.length && recent[0]! < now - 60_000) recent.shift();
    const where = origin(reason);
    options.log(
      redact(
        `error: ${kind}${where ? ` from ${where}` : ""}: ${describe(reason)}. The gateway keeps running; ` +
          "a tool or plugin probably threw outside a tool call (a timer, an event handler or a promise nobody awaits): fix it there.",
      ),
    );
    if (!fatal && recent.length >= max) {
      fatal = true;
      options.onFatal(`${recent.length} uncaught errors within a minute`);
    }
  };
  const onException = handle("uncaught exception");
  const onRejection = handle("unhandled promise rejection");
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}

function describe(reason: unknown): string {
  try {
    if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
    return `${typeof reason === "string" ? reason : (JSON.stringify(reason) ?? String(reason))} (thrown instead of an Error)`;
  } catch {
    return "a value that cannot be described";
  }
}

/** The first stack frame outside Bun's own internals: `file:line`. */
function origin(reason: unknown): string | undefined {
  const stack = reason instanceof Error && typeof reason.stack === "string" ? reason.stack : "";
  for (const line of stack.split("\n").slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^():]+):(\d+)(?::\d+)?\)?\s*$/.exec(line.trim());
    if (m && !m[1]!.includes("/node_modules/")) return `${m[1]}:${m[2]}`;
  }
  return undefined;
}

/** Surface log sink. Messages name the Discord object involved; tokens never reach it. */
export type SurfaceLog = (message: string, error?: unknown) => void;

/** One log line: what was being done, then the error's message. */
export function formatLogLine(message: string, error?: unknown): string {
  const detail = error === undefined ? "" : `: ${error instanceof Error ? error.message : String(error)}`;
  return `${message}${detail}`;
}

/**
 * The surface's log: every line goes through `redact` before it is written. discord.js errors can
 * quote the request (and with it the bot token), tool and model errors can quote anything.
 */
export function createSurfaceLog(
  redact: (text: string) => string,
  sink: (line: string) => void = (line) => console.error(`[discord] ${line}`),
): SurfaceLog {
  return (message, error) => sink(redact(formatLogLine(message, error)));
}

/** Runs a Discord call that may fail (deleted message, unknown interaction, missing access) without crashing. */
export async function safely<T>(log: SurfaceLog, what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    log(what, e);
    return undefined;
  }
}

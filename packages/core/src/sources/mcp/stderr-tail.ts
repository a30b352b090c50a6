import { createRedactor } from "../../receipts/redact.ts";

/** Characters of a server's stderr shown: enough for a stack trace, bounded whatever the server writes. */
export const STDERR_TAIL_CHARS = 4_096;

/**
 * The last lines a stdio MCP server wrote to stderr, kept so a failure (it exits, it does not start
 * in time, a call fails) can say what the server said. Read redacted: the values of the server's
 * configured `env` and token shapes are scrubbed, since a server may print its own configuration.
 * Lines are dropped whole from the front and redaction runs on what is kept, so a secret is never
 * cut in two (half of it would pass the redactor).
 */
export class StderrTail {
  private text = "";
  private readonly redact: (text: string) => string;
  private ended = false;
  private readonly waiters = new Set<() => void>();

  constructor(
    secrets: readonly string[],
    private readonly limit = STDERR_TAIL_CHARS,
  ) {
    this.redact = createRedactor(secrets);
  }

  push(chunk: string): void {
    this.text += chunk;
    // Trimmed at twice the limit, so a server writing byte by byte does not copy the buffer each time.
    if (this.text.length > 2 * this.limit) this.text = wholeLinesOf(this.text, this.limit);
  }

  /** The stream closed (the process exited): everything it wrote is here. */
  end(): void {
    this.ended = true;
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  /**
   * Resolves once the stream closed, or after `ms`: a process that died may have written its last
   * words to stderr after its stdout closed, which is what the client sees first.
   */
  settled(ms = 1_000): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  /** The kept tail, redacted, or "" when the server wrote nothing. */
  read(): string {
    const clean = this.redact(this.text);
    return (clean.length > this.limit ? wholeLinesOf(clean, this.limit) : clean).trim();
  }

  /** `message` followed by what the server wrote to stderr, for an error or a diagnostic. */
  explain(message: string): string {
    const said = this.read();
    return said ? `${message}\nThe server's stderr (last lines, redacted):\n${said}` : message;
  }
}

/** The end of `text`, at most `max` characters, starting after a line break (a line is kept whole or not at all). */
function wholeLinesOf(text: string, max: number): string {
  const end = text.slice(-max);
  const lineStart = end.indexOf("\n");
  return lineStart === -1 ? "" : end.slice(lineStart + 1);
}

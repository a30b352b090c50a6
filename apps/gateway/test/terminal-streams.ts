import { PassThrough } from "node:stream";
import { startTerminalSurface, type TerminalSurfaceOptions } from "../src/surfaces/terminal/terminal-surface.ts";

/** In-memory streams for the terminal surface, with a way to wait for output. */
export function terminalStreams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  const waiters: Array<{ re: RegExp; from: number; resolve: (m: string) => void }> = [];
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    for (const w of [...waiters]) {
      const m = w.re.exec(text.slice(w.from));
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m[0]);
      }
    }
  });
  return {
    input,
    output,
    get text() {
      return text;
    },
    send(line: string) {
      input.write(`${line}\n`);
    },
    /** Resolves when output written after `from` (default: anything so far) matches. */
    /** The bound only turns a hang into a failure: generous for a busy machine. */
    waitFor(re: RegExp, timeoutMs = 20_000, from = 0): Promise<string> {
      const m = re.exec(text.slice(from));
      if (m) return Promise.resolve(m[0]);
      return new Promise((resolve, reject) => {
        const w = { re, from, resolve };
        waiters.push(w);
        setTimeout(() => {
          if (waiters.includes(w)) reject(new Error(`timed out waiting for ${re} in terminal output:\n${text}`));
        }, timeoutMs).unref?.();
      });
    },
  };
}

/** The terminal surface on in-memory streams, as a person (`userId`) at a non-TTY terminal uses it. */
export function startTestTerminal(
  gateway: TerminalSurfaceOptions["gateway"],
  options: { userId?: string; tty?: boolean } = {},
) {
  const io = terminalStreams();
  const surface = startTerminalSurface({
    gateway,
    input: io.input,
    output: io.output,
    tty: options.tty ?? false,
    userId: options.userId ?? "ann",
  });
  return { io, surface };
}

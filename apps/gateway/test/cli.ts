import { join } from "node:path";

export const MAIN = join(import.meta.dir, "..", "src", "cli", "main.ts");

/** Runs the real `openassistant` CLI in a subprocess with a clean env. */
export async function cli(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; stdin?: string /** default 15 s */; killAfterMs?: number },
) {
  const proc = Bun.spawn(["bun", MAIN, ...args], {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      OPENASSISTANT_CONFIG_DIR: join(opts.cwd, "config"),
      NO_COLOR: "1",
      ...opts.env,
    },
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.killAfterMs ?? 15_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { stdout, stderr, code, killed: proc.signalCode === "SIGKILL" };
}

/** Collects a stream as text and waits for patterns in it. */
export function collect(stream: ReadableStream<Uint8Array>) {
  let text = "";
  let ended = false;
  const reader = stream.getReader();
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return void (ended = true);
      text += new TextDecoder().decode(value);
    }
  })();
  return {
    get text() {
      return text;
    },
    /** The bound only turns a hang into a failure (a process that ends fails at once): generous for a busy machine. */
    async waitFor(re: RegExp, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!re.test(text)) {
        if (ended || Date.now() > deadline) throw new Error(`no ${re} in:\n${text}`);
        await Bun.sleep(20);
      }
    },
    pump,
  };
}

/**
 * `openassistant start` in a subprocess with a clean environment, talking to a fake Anthropic at
 * `apiUrl`; stdout and stderr are collected. Extra env (e.g. a Discord token) via `env`.
 */
export function startGatewayProcess(opts: { cwd: string; apiUrl: string; env?: Record<string, string> }) {
  const proc = Bun.spawn(["bun", MAIN, "start"], {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      NO_COLOR: "1",
      OPENASSISTANT_CONFIG_DIR: join(opts.cwd, "config"),
      ANTHROPIC_API_KEY: "sk-ant-api03-subprocess-test-000000000000",
      OPENASSISTANT_ANTHROPIC_BASE_URL: opts.apiUrl,
      ...opts.env,
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  return { proc, out: collect(proc.stdout), err: collect(proc.stderr) };
}

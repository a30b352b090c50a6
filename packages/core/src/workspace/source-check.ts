import { dirname, join } from "node:path";

export interface SourceCheck {
  /** What is wrong, one line each (line numbers are the source's); empty when it may be shown to an operator. */
  readonly problems: string[];
  /** npm packages the file imports (they are installed after approval). */
  readonly packages: string[];
  /** SHA-256 of the exact source text, hex. */
  readonly sha256: string;
}

const CHILD = join(import.meta.dir, "source-check.child.ts");
const SDK_ENTRY = Bun.resolveSync("@openassistant/sdk", import.meta.dir);
const TYPES_DIR = dirname(dirname(Bun.resolveSync("bun-types/package.json", import.meta.dir)));

export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text, "utf8").digest("hex");
}

/**
 * Checks a tool module before an operator is asked about it: parse, typecheck against the SDK,
 * exports only tools, imports only npm packages / node: / bun: modules. The TypeScript work runs in
 * a child process with a time limit, so a pathological file cannot stall the gateway.
 */
export async function checkToolSource(
  file: string,
  source: string,
  options: { timeoutMs?: number } = {},
): Promise<SourceCheck> {
  const sha256 = sha256Hex(source);
  const child = Bun.spawn(["bun", "--smol", "--no-install", CHILD], {
    stdin: new Blob([JSON.stringify({ file, source, sdkEntry: SDK_ENTRY, typesDir: TYPES_DIR })]),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "" },
    timeout: options.timeoutMs ?? 60_000,
    killSignal: "SIGKILL",
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) {
    const why =
      child.signalCode === "SIGKILL"
        ? `the check took longer than ${Math.round((options.timeoutMs ?? 60_000) / 1000)} s; simplify the types`
        : `the checker failed: ${err.trim().split("\n").slice(-3).join(" ")}`;
    return { problems: [why], packages: [], sha256 };
  }
  const result = JSON.parse(out) as { problems: string[]; packages: string[] };
  return { ...result, sha256 };
}

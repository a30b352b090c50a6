/**
 * `bun run check`: typecheck every package, check formatting and lint (Biome), then run every test.
 * Ends with one line `N passed, N failed[, N skipped]` (a failed typecheck or lint counts as one failure).
 */
const root = new URL("..", import.meta.url).pathname;
const extraArgs = process.argv.slice(2);

console.log("» typecheck (tsc --noEmit)");
const tsc = Bun.spawnSync(["bun", "x", "tsc", "--noEmit", "-p", "tsconfig.json"], {
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
});
const typecheckFailed = tsc.exitCode !== 0;
console.log(typecheckFailed ? "✗ typecheck failed" : "✓ typecheck clean");

console.log("» format + lint (biome ci)");
const lint = Bun.spawnSync(["bun", "x", "biome", "ci", "--colors=off", "."], {
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
});
const lintFailed = lint.exitCode !== 0;
console.log(lintFailed ? "✗ format/lint failed (fix with: bun x biome check --write .)" : "✓ format and lint clean");

console.log("» tests (bun test)");
// 30 s per test, not Bun's 5 s: on a busy 2-core machine a test that starts processes or a fake
// server may take longer, and a timed-out test has its child processes killed, which fails the
// tests after it in the same file for the wrong reason. Tests wait on events, so a longer limit
// only changes how long a real hang takes to fail.
const test = Bun.spawn(["bun", "test", "--timeout=30000", ...extraArgs], {
  cwd: root,
  stdout: "pipe",
  stderr: "pipe",
  env: { ...process.env, FORCE_COLOR: "0" },
});
const counts = { pass: 0, fail: 0, skip: 0, todo: 0 };
async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    out.write(text);
    buf += text;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const m = /^\s*(\d+) (pass|fail|skip|todo)\s*$/.exec(line);
      if (m) counts[m[2] as keyof typeof counts] = Number(m[1]);
    }
  }
}
await Promise.all([pump(test.stdout, process.stdout), pump(test.stderr, process.stderr)]);
const testExit = await test.exited;

const failed =
  counts.fail + (typecheckFailed ? 1 : 0) + (lintFailed ? 1 : 0) + (testExit !== 0 && counts.fail === 0 ? 1 : 0);
const skipped = counts.skip + counts.todo;
console.log(`${counts.pass} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);

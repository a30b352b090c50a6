/**
 * `bun run mutation`: breaks the security-critical modules one line at a time and checks that the
 * tests notice. Each mutant (scripts/mutants.ts) is applied alone in a throwaway copy of the repo
 * under the system temp dir, and only its relevant test files run; a mutant "survives" when they
 * all pass. Not part of CI (minutes, not seconds). Results and survivors are recorded in
 * docs/testing.md.
 *
 *   bun run mutation                 every mutant, sequentially
 *   bun run mutation --only id,id    just these
 *   bun run mutation --match grounding   ids containing a word
 *   bun run mutation --list          print the mutants and exit
 *   bun run mutation --at <commit>   mutate that commit's tree instead (e.g. to score an older suite;
 *                                    test files it lacks are left out)
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { MUTANTS, type Mutant } from "./mutants.ts";

const ROOT = join(import.meta.dir, "..");
const TIMEOUT_MS = 240_000;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** A copy of the working tree (tracked and untracked, not ignored files) that shares the dependency store. */
function copyRepo(commit?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "oa-mutation-"));
  if (commit) {
    const archive = Bun.spawnSync(["sh", "-c", `git archive "$1" | tar -x -C "$2"`, "sh", commit, dir], { cwd: ROOT });
    if (archive.exitCode !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.toString()}`);
  }
  const files = Bun.spawnSync(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT })
    .stdout.toString()
    .split("\0")
    .filter(Boolean);
  for (const f of commit ? [] : files) {
    if (!existsSync(join(ROOT, f))) continue; // deleted in the working tree
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  // Workspace packages link each other through relative symlinks in their own node_modules:
  // copied as links, they point into the copy. Third-party packages come from the shared store.
  const nested = Bun.spawnSync(
    [
      "find",
      ".",
      "-mindepth",
      "2",
      "-maxdepth",
      "3",
      "-name",
      "node_modules",
      "-type",
      "d",
      "-not",
      "-path",
      "./node_modules/*",
    ],
    { cwd: ROOT },
  )
    .stdout.toString()
    .split("\n")
    .filter(Boolean);
  for (const nm of nested) cpSync(join(ROOT, nm), join(dir, nm), { recursive: true, verbatimSymlinks: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

function runTests(dir: string, tests: readonly string[]): { pass: boolean; timedOut: boolean; tail: string } {
  // A lenient per-test timeout: on a loaded machine a slow test must not count as a kill.
  const proc = Bun.spawnSync(["bun", "test", "--timeout", "20000", ...tests.map((t) => `./${t}`)], {
    cwd: dir,
    env: { ...process.env, FORCE_COLOR: "0" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: TIMEOUT_MS,
  });
  const text = `${proc.stdout.toString()}${proc.stderr.toString()}`;
  const fails = text
    .split("\n")
    .filter((l) => l.startsWith("(fail)"))
    .slice(0, 3);
  return {
    pass: proc.exitCode === 0,
    timedOut: proc.exitCode === null,
    tail: fails.join("\n") || text.trim().split("\n").slice(-3).join("\n"),
  };
}

class BaselineFailure extends Error {}

function count(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

let mutants: readonly Mutant[] = MUTANTS;
const only = arg("--only")?.split(",");
if (only) mutants = mutants.filter((m) => only.includes(m.id));
const match = arg("--match");
if (match) mutants = mutants.filter((m) => m.id.includes(match));

if (process.argv.includes("--list")) {
  for (const m of mutants) console.log(`${m.id.padEnd(36)} ${m.file}  (${m.tests.length} test files)`);
  process.exit(0);
}

const ids = new Set<string>();
for (const m of MUTANTS) {
  if (ids.has(m.id)) throw new Error(`duplicate mutant id ${m.id}`);
  ids.add(m.id);
}

const at = arg("--at");
const dir = copyRepo(at);
console.log(`copy: ${dir}${at ? ` (at ${at})` : ""}`);
if (at) mutants = mutants.map((x) => ({ ...x, tests: x.tests.filter((t) => existsSync(join(dir, t))) }));
let exitCode = 0;
try {
  const allTests = [...new Set(mutants.flatMap((m) => m.tests))];
  console.log(`baseline: ${allTests.length} test files on the unmutated copy, one by one…`);
  for (const file of allTests) {
    // One retry: a file that fails twice unmutated cannot judge a mutant.
    const first = runTests(dir, [file]);
    if (first.pass) continue;
    console.log(`  ${file} failed once, retrying:\n  ${first.tail.split("\n")[0]}`);
    const again = runTests(dir, [file]);
    if (!again.pass) {
      console.error(`baseline fails in ${file}; fix it before judging mutants:\n${again.tail}`);
      throw new BaselineFailure();
    }
  }

  const results: Array<{ m: Mutant; outcome: "killed" | "survived" | "timeout" | "stale"; detail: string }> = [];
  for (const [i, m] of mutants.entries()) {
    const path = join(dir, m.file);
    const original = readFileSync(path, "utf8");
    const n = count(original, m.find);
    if (n !== 1) {
      results.push({ m, outcome: "stale", detail: `"find" occurs ${n} times in ${m.file}; update the mutant` });
      console.log(`[${i + 1}/${mutants.length}] STALE    ${m.id}`);
      continue;
    }
    if (m.tests.length === 0) {
      results.push({ m, outcome: "survived", detail: "no test file" });
      console.log(`[${i + 1}/${mutants.length}] SURVIVED ${m.id} (no test file)`);
      continue;
    }
    writeFileSync(
      path,
      original.replace(m.find, () => m.replace),
    );
    const t0 = performance.now();
    const r = runTests(dir, m.tests);
    writeFileSync(path, original);
    const outcome = r.timedOut ? "timeout" : r.pass ? "survived" : "killed";
    results.push({ m, outcome, detail: r.tail });
    console.log(
      `[${i + 1}/${mutants.length}] ${outcome.toUpperCase().padEnd(8)} ${m.id} (${Math.round((performance.now() - t0) / 1000)} s)`,
    );
    if (outcome !== "survived" && r.tail) console.log(`    ${r.tail.split("\n")[0]}`);
  }

  const killed = results.filter((r) => r.outcome === "killed" || r.outcome === "timeout").length;
  const judged = results.filter((r) => r.outcome !== "stale").length;
  const equivalent = results.filter((r) => r.outcome === "survived" && r.m.equivalent).length;
  const live = results.filter((r) => r.outcome === "survived" && !r.m.equivalent).length;
  console.log(
    `\nscore: ${killed}/${judged} killed (${judged ? Math.round((killed / judged) * 100) : 0}%); ${equivalent} equivalent, ${live} surviving non-equivalent`,
  );
  for (const r of results.filter((x) => x.outcome === "survived" || x.outcome === "stale")) {
    console.log(`\n${r.outcome.toUpperCase()}: ${r.m.id} — ${r.m.file}\n  ${r.m.description}\n  ${r.detail}`);
  }
  if (results.some((r) => r.outcome === "survived" && !r.m.equivalent) || results.some((r) => r.outcome === "stale"))
    exitCode = 1;
} catch (e) {
  if (!(e instanceof BaselineFailure)) throw e;
  exitCode = 2;
} finally {
  if (!process.argv.includes("--keep")) rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);

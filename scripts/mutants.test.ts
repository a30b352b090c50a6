import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MUTANTS } from "./mutants.ts";

// The mutation run is too slow for `bun run check`, so a refactor can leave a mutant pointing at
// text that no longer exists, and the promise it guarded goes unchecked without anyone noticing
// (it happened twice: 17 and then 9 stale mutants). This keeps every mutant applicable.
const root = join(import.meta.dir, "..");

test("every mutant's text occurs exactly once in its file, and its test files exist", () => {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const m of MUTANTS) {
    if (ids.has(m.id)) problems.push(`${m.id}: the id is used twice`);
    ids.add(m.id);
    const file = join(root, m.file);
    if (!existsSync(file)) {
      problems.push(`${m.id}: ${m.file} does not exist`);
      continue;
    }
    const n = readFileSync(file, "utf8").split(m.find).length - 1;
    if (n !== 1)
      problems.push(
        `${m.id}: its text occurs ${n} times in ${m.file}; point it at the line that keeps the promise now`,
      );
    for (const t of m.tests) if (!existsSync(join(root, t))) problems.push(`${m.id}: test file ${t} does not exist`);
  }
  expect(problems).toEqual([]);
});

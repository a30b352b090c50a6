import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const REPO = resolve(import.meta.dir, "../../../..");

/** File references in a text: markdown links and `backticked/paths.ext` (globs and placeholders skipped). */
function referencedFiles(text: string): string[] {
  const links = [...text.matchAll(/\]\(([^)#\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^https?:/.test(l));
  const ticks = [...text.matchAll(/`([\w./-]+\/[\w.-]+\.(?:md|ts|toml|json))`/g)]
    .map((m) => m[1]!)
    .filter((p) => !/[<>*]/.test(p));
  return [...links, ...ticks];
}

test("docs/CONTRIBUTING.md and bunfig.toml refer only to files in the repo", () => {
  for (const [file, base] of [
    ["docs/CONTRIBUTING.md", "docs"],
    ["bunfig.toml", "."],
  ] as const) {
    const text = readFileSync(join(REPO, file), "utf8");
    expect(text).not.toMatch(/\.\.\/shared|\/work\/|DESIGN\.md/);
    const refs = [...referencedFiles(text), ...[...text.matchAll(/see (docs\/[\w.-]+\.md)/g)].map((m) => m[1]!)];
    for (const ref of refs) {
      const candidates = [resolve(REPO, base, ref), resolve(REPO, ref), resolve(dirname(join(REPO, file)), ref)];
      expect({ file, ref, exists: candidates.some((c) => existsSync(c)) }).toEqual({ file, ref, exists: true });
    }
  }
});

import { existsSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";

const PROVIDED = new Set(["@openassistant/sdk", "zod"]);
const BUILTIN = new Set(builtinModules);
const transpiler = new Bun.Transpiler({ loader: "tsx" });

/** True when some folder from `dir` upwards has a node_modules (Bun's runtime auto-install is then off). */
export function hasNodeModulesAbove(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules"))) return true;
    if (dirname(d) === d) return false;
  }
}

/**
 * Package imports of `file` and the relative files it imports (recursively), except the modules the
 * gateway provides and builtins. Used to avoid importing (and Bun fetching) anything in read-only mode.
 */
export function packageImports(file: string): string[] {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (f: string) => {
    if (seen.has(f) || seen.size > 200) return;
    seen.add(f);
    let imports: Array<{ path: string }>;
    try {
      imports = transpiler.scanImports(readFileSync(f, "utf8"));
    } catch {
      return; // a syntax error: the import itself reports it
    }
    for (const { path } of imports) {
      if (path.startsWith(".") || path.startsWith("/")) {
        const next = resolveRelative(resolve(dirname(f), path));
        if (next) visit(next);
      } else if (!PROVIDED.has(path) && !BUILTIN.has(path) && !/^(node|bun):/.test(path)) found.add(path);
    }
  };
  visit(file);
  return [...found];
}

function resolveRelative(p: string): string | undefined {
  for (const c of [p, `${p}.ts`, `${p}.tsx`, `${p}.js`, `${p}.mjs`, join(p, "index.ts"), join(p, "index.js")]) {
    try {
      if (statSync(c).isFile()) return c;
    } catch {
      /* try the next */
    }
  }
  return undefined;
}

/** The package an import specifier names: `dayjs/plugin/utc` → `dayjs`, `@scope/x/y` → `@scope/x`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** npm's rules for a package name (lower case, URL-safe, ≤ 214 chars, optional @scope/). */
export function isValidPackageName(name: string): boolean {
  return name.length <= 214 && /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/.test(name);
}

import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type ParsedSpecifier =
  | { readonly kind: "path"; readonly dir: string }
  | { readonly kind: "npm"; readonly name: string; readonly range?: string };

/** `name`, `name@^1`, `@scope/name@~2.0`, `file:///abs`, `./rel`, `../rel`, `/abs`, `~/x`. */
export function parseSpecifier(spec: string, projectRoot: string, homeDir: string): ParsedSpecifier {
  if (spec.startsWith("file:")) return { kind: "path", dir: fileURLToPath(spec) };
  if (spec.startsWith("~/")) return { kind: "path", dir: join(homeDir, spec.slice(2)) };
  if (spec.startsWith(".") || isAbsolute(spec)) return { kind: "path", dir: resolve(projectRoot, spec) };
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  if (at > 0) return { kind: "npm", name: spec.slice(0, at), range: spec.slice(at + 1) || undefined };
  return { kind: "npm", name: spec };
}

/** `<dir>/node_modules/<name>` for the nearest ancestor of projectRoot that has it. */
export function findInstalledPackage(name: string, projectRoot: string): string | undefined {
  for (let dir = resolve(projectRoot); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether `version` satisfies `range`; ranges that are not semver (tags, URLs) are accepted. */
export function versionSatisfies(version: string, range: string): boolean {
  if (!/^[\s\d^~<>=*xX|.v-]+$/.test(range) && !/^\d/.test(range)) return true;
  try {
    return Bun.semver.satisfies(version, range);
  } catch {
    return true;
  }
}

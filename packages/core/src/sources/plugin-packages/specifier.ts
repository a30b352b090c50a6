import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type ParsedSpecifier =
  | { readonly kind: "path"; readonly dir: string }
  | { readonly kind: "npm"; readonly name: string; readonly range?: string }
  /** A tarball (file or URL) or a git repository: `bun add <target>` installs it; its name is known after. */
  | { readonly kind: "package"; readonly target: string };

const GIT = /^(git\+[a-z]+:|git:\/\/|github:|gitlab:|bitbucket:)/;
const TARBALL = /\.(tgz|tar\.gz)$/;

/**
 * `name`, `name@^1`, `@scope/name@~2.0`, `file:///abs`, `./rel`, `../rel`, `/abs`, `~/x` (folders);
 * `./x.tgz`, `https://…/x.tgz` (tarballs), `git+https://…`, `git+file://…`, `github:user/repo` (git).
 */
export function parseSpecifier(spec: string, projectRoot: string, homeDir: string): ParsedSpecifier {
  if (GIT.test(spec) || /^https?:\/\//.test(spec)) return { kind: "package", target: spec };
  const local = localPath(spec, projectRoot, homeDir);
  if (local !== undefined)
    return TARBALL.test(local) ? { kind: "package", target: local } : { kind: "path", dir: local };
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  if (at > 0) return { kind: "npm", name: spec.slice(0, at), range: spec.slice(at + 1) || undefined };
  return { kind: "npm", name: spec };
}

function localPath(spec: string, projectRoot: string, homeDir: string): string | undefined {
  if (spec.startsWith("file:")) return fileURLToPath(spec);
  if (spec.startsWith("~/")) return join(homeDir, spec.slice(2));
  if (spec.startsWith(".") || isAbsolute(spec)) return resolve(projectRoot, spec);
  return undefined;
}

/** The dependency name `bun add <target>` recorded in the workspace's package.json, if it was installed. */
export function installedNameOf(target: string, workspace: string): string | undefined {
  try {
    const deps = JSON.parse(readFileSync(join(workspace, "package.json"), "utf8")).dependencies ?? {};
    return Object.keys(deps).find((name) => deps[name] === target);
  } catch {
    return undefined;
  }
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

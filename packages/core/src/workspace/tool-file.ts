import { existsSync, lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";

/** A tool file the assistant may write: a top-level `name.ts` in the tools folder, nothing else. */
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}\.ts$/;

export type ToolFile = { ok: true; file: string; name: string } | { ok: false; problem: string };

/**
 * Resolves `path` (as the model gives it: `signups.ts`, or `tools/signups.ts`) to a file directly
 * inside `toolsDir`. Anything else — another folder, `..`, an absolute path, a symlink, a test or
 * declaration file — is refused with the reason.
 */
export function resolveToolFile(toolsDir: string, path: string): ToolFile {
  if (typeof path !== "string" || path.length === 0) return { ok: false, problem: "path is empty" };
  const name = path.replace(/^(\.\/)?(\.openassistant\/)?(tools\/)?/, "");
  if (name.includes("/") || name.includes("\\") || name.includes(".."))
    return { ok: false, problem: `"${path}" is outside the tools folder: tools are top-level files like "signups.ts"` };
  if (!NAME.test(name) || /\.(d|test|spec)\.ts$/.test(name))
    return {
      ok: false,
      problem: `"${path}" is not a tool file name: use letters, digits, _ or -, ending in .ts (e.g. "signups.ts")`,
    };
  const dir = existsSync(toolsDir) ? realpathSync(toolsDir) : toolsDir;
  const file = join(dir, name);
  if (existsSync(file) && lstatSync(file).isSymbolicLink())
    return { ok: false, problem: `"${name}" is a symbolic link; the assistant only writes plain files` };
  return { ok: true, file, name };
}

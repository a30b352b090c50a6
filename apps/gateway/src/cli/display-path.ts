import { isAbsolute, relative } from "node:path";

/** A path as the CLI prints it: relative to the user's cwd when inside it, else absolute. */
export function displayPath(path: string, cwd = process.cwd()): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { findProjectRoot } from "@openassistant/core/config";
import { CliError } from "./flags.ts";

/** The project a command acts on: `--project <dir>` when given, else found from the current directory. */
export function resolveProject(projectFlag: string | undefined, cwd = process.cwd()): string {
  if (projectFlag === undefined) return findProjectRoot(cwd, process.env.HOME);
  const dir = resolve(cwd, projectFlag);
  if (!existsSync(dir)) throw new CliError(`--project ${projectFlag}: directory ${dir} does not exist`);
  return dir;
}

/** The `--project <dir>` flag every project command takes; `resolveProject` reads it. */
export const PROJECT_ARG = {
  type: "string",
  description: "Project directory (default: found from the current directory)",
  valueHint: "dir",
} as const;

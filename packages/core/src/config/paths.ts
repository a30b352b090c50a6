import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const WORKSPACE_DIR = ".openassistant";

/**
 * Project root: the nearest directory (from cwd upwards) containing `.openassistant/`; failing that the
 * nearest with a `package.json`; failing that cwd itself. The home directory's global config dir does
 * not count as a project.
 */
export function findProjectRoot(cwd: string, homeDir?: string): string {
  const start = resolve(cwd);
  const home = homeDir ? resolve(homeDir) : undefined;
  for (let dir = start; ; dir = dirname(dir)) {
    if (isDir(join(dir, WORKSPACE_DIR))) return dir;
    if (dir === home || dirname(dir) === dir) break;
  }
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) break;
  }
  return start;
}

/** `OPENASSISTANT_CONFIG_DIR`, else `~/.config/openassistant`. */
export function globalConfigDir(env: Readonly<Record<string, string | undefined>>, homeDir?: string): string {
  const override = env.OPENASSISTANT_CONFIG_DIR;
  if (override) return resolve(override);
  return join(homeDir ?? env.HOME ?? homedir(), ".config", "openassistant");
}

export function workspaceDir(projectRoot: string): string {
  return join(projectRoot, WORKSPACE_DIR);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

import { homedir } from "node:os";
import { join } from "node:path";
import type { EnvLike } from "./types.ts";

export const AUTH_STORE_FILENAME = "auth-profiles.json";

/**
 * The OpenAssistant config dir: $OPENASSISTANT_CONFIG_DIR, else ~/.config/openassistant.
 * Call at the process boundary (CLI, gateway start) and pass the result down.
 */
export function resolveConfigDir(env: EnvLike, home: string = homedir()): string {
  const override = env.OPENASSISTANT_CONFIG_DIR?.trim();
  return override ? override : join(home, ".config", "openassistant");
}

export function authStorePath(configDir: string): string {
  return join(configDir, AUTH_STORE_FILENAME);
}

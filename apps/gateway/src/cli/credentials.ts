import { resolveConfigDir } from "../auth/paths.ts";
import { createAuthResolver } from "../auth/resolve.ts";
import { openAuthStore } from "../auth/store.ts";
import type { EnvLike } from "../auth/types.ts";

export const NO_CREDENTIALS_MESSAGE = `No Anthropic credentials are configured, so the assistant cannot answer.
Add one, then start again:
  openassistant auth anthropic api-key       paste an API key from https://console.anthropic.com/settings/keys
                                             (in this repo: bun run openassistant auth anthropic api-key)
  openassistant auth anthropic setup-token   paste a token from \`claude setup-token\`
  or set ANTHROPIC_API_KEY in the environment (e.g. ANTHROPIC_API_KEY=sk-ant-... bun start)`;

/** Which credentials exist (ids only), or the problem reading them. */
export function checkCredentials(
  env: EnvLike,
  profileOrder?: readonly string[],
): { ok: true; ids: string[] } | { ok: false; message: string } {
  try {
    const resolver = createAuthResolver({ store: openAuthStore(resolveConfigDir(env)), env, profileOrder });
    const ids = resolver.candidates().map((c) => c.profileId);
    return ids.length ? { ok: true, ids } : { ok: false, message: NO_CREDENTIALS_MESSAGE };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

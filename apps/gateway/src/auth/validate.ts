/** Shape checks for pasted Anthropic credentials. Secrets never appear in the messages. */

export const SETUP_TOKEN_PREFIX = "sk-ant-oat01-";
export const SETUP_TOKEN_MIN_LENGTH = 80;
export const API_KEY_PREFIX = "sk-ant-";

export type ValidationResult = { ok: true; value: string; warning?: string } | { ok: false; message: string };

/** Pasted text may carry line wraps, spaces or quotes from the terminal; none belong in a token. */
function clean(raw: string): string {
  return raw.replace(/\s+/g, "").replace(/^["']|["']$/g, "");
}

export function validateSetupToken(raw: string): ValidationResult {
  const token = clean(raw);
  if (!token) return { ok: false, message: "No token given. Run `claude setup-token` and paste the token it prints." };
  if (!token.startsWith(SETUP_TOKEN_PREFIX)) {
    const hint = token.startsWith(API_KEY_PREFIX)
      ? " This looks like an API key; store it with `openassistant auth anthropic api-key` instead."
      : " Run `claude setup-token` and paste the whole token it prints.";
    return { ok: false, message: `A Claude setup-token starts with "${SETUP_TOKEN_PREFIX}".${hint}` };
  }
  if (token.length < SETUP_TOKEN_MIN_LENGTH) {
    return {
      ok: false,
      message: `That setup-token is ${token.length} characters; a complete one is at least ${SETUP_TOKEN_MIN_LENGTH}. It was probably cut off while copying; copy the whole line printed by \`claude setup-token\`.`,
    };
  }
  return { ok: true, value: token };
}

export function validateApiKey(raw: string): ValidationResult {
  const key = clean(raw);
  if (!key)
    return {
      ok: false,
      message: "No API key given. Create one at https://console.anthropic.com/settings/keys and paste it.",
    };
  if (key.startsWith(SETUP_TOKEN_PREFIX)) {
    return {
      ok: false,
      message:
        "This is a Claude setup-token, not an API key; store it with `openassistant auth anthropic setup-token`.",
    };
  }
  if (!key.startsWith(API_KEY_PREFIX)) {
    return {
      ok: true,
      value: key,
      warning: `Anthropic API keys usually start with "${API_KEY_PREFIX}"; storing it anyway.`,
    };
  }
  return { ok: true, value: key };
}

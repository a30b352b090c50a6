import { DiscordAPIError, HTTPError } from "discord.js";

/** A short, token-free description of a Discord failure for logs and denial reasons. */
export function describeDiscordError(e: unknown): string {
  if (e instanceof DiscordAPIError) {
    const known: Record<number, string> = {
      10003: "the channel or thread no longer exists",
      10008: "the message no longer exists",
      50001: "the bot cannot see that channel",
      50007: "the user does not accept DMs from the bot",
      50013: "the bot lacks permission to post there",
      50083: "the thread is archived",
    };
    return `${known[Number(e.code)] ?? e.message} (Discord error ${e.code}, HTTP ${e.status})`;
  }
  if (e instanceof HTTPError) return `Discord answered HTTP ${e.status}`;
  return e instanceof Error ? e.message : String(e);
}

/** Network errors and Discord 5xx: worth retrying later. A 4xx is final (retrying cannot help). */
export function isTransient(e: unknown): boolean {
  if (e instanceof DiscordAPIError) return e.status >= 500 || e.status === 429;
  if (e instanceof HTTPError) return e.status >= 500;
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (
    typeof code === "string" &&
    /^(ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|ENETUNREACH|EHOSTUNREACH|UND_ERR|ConnectionRefused|ConnectionClosed)/.test(
      code,
    )
  )
    return true;
  return e.name === "AbortError" || /fetch failed|Unable to connect|socket|network|timed? ?out/i.test(e.message);
}

/** Exit codes of `openassistant start` when Discord cannot be reached at start (sysexits.h values). */
export const DISCORD_EXIT_CODES = { network: 69, token: 77, intent: 78 } as const;

/** A start failure with its own message and exit code, and no stack trace for the user. */
export class DiscordStartError extends Error {
  constructor(
    readonly kind: keyof typeof DISCORD_EXIT_CODES,
    message: string,
  ) {
    super(message);
    this.name = "DiscordStartError";
  }
  get exitCode(): number {
    return DISCORD_EXIT_CODES[this.kind];
  }
}

/** Tells a login failure apart: disabled Message Content intent, bad token, or no network. Null when it is none of them. */
export function classifyStartError(e: unknown, token: string): DiscordStartError | null {
  const msg = (e instanceof Error ? e.message : String(e)).replaceAll(token, "[token]");
  const code = (e as { code?: unknown } | null)?.code;
  if (/disallowed intents|4014/i.test(msg)) {
    return new DiscordStartError(
      "intent",
      "discord: Discord refused the connection because the Message Content intent is not enabled for this bot (close code 4014). Open https://discord.com/developers/applications → your app → Bot → Privileged Gateway Intents, turn on Message Content Intent, then start again.",
    );
  }
  if (
    code === "TokenInvalid" ||
    (e instanceof DiscordAPIError && e.status === 401) ||
    /invalid token|authentication failed|4004/i.test(msg)
  ) {
    return new DiscordStartError(
      "token",
      "discord: Discord rejected the bot token (401 Unauthorized). Reset the token on the Bot tab of the developer portal and update DISCORD_TOKEN (or discord.token).",
    );
  }
  if (isTransient(e) || /ENOTFOUND|ECONNREFUSED|getaddrinfo/i.test(msg)) {
    return new DiscordStartError(
      "network",
      `discord: cannot reach Discord (${msg}). Check the network/DNS of this machine (and OPENASSISTANT_DISCORD_API if set), then start again.`,
    );
  }
  return null;
}

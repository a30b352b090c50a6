import { existsSync } from "node:fs";
import { receiptKeyPath } from "@openassistant/core/receipts";
import { resolveConfigDir } from "../auth/paths.ts";
import { createAuthResolver } from "../auth/resolve.ts";
import { openAuthStore } from "../auth/store.ts";
import type { EnvLike, ResolvedCredential } from "../auth/types.ts";
import { API_KEY_PREFIX, SETUP_TOKEN_MIN_LENGTH, SETUP_TOKEN_PREFIX } from "../auth/validate.ts";
import { NO_CREDENTIALS_MESSAGE } from "./credentials.ts";
import { anthropicEndpoint } from "../config-adapter.ts";
import { buildSdkClient, DEFAULT_ANTHROPIC_BASE_URL } from "../model/sdk-client.ts";
import type { ChosenStorage } from "../storage/index.ts";
import { loadAnthropicSdk } from "../model/sdk.ts";

export type CheckLevel = "ok" | "warn" | "fail";
export interface DoctorCheck {
  readonly name: string;
  readonly level: CheckLevel;
  readonly detail: string;
}

/** Which credentials exist, in order, and the ones whose shape is wrong for their type. */
export function checkCredentialShapes(env: EnvLike, profileOrder?: readonly string[]): DoctorCheck[] {
  let candidates: ReturnType<ReturnType<typeof createAuthResolver>["candidates"]>;
  try {
    candidates = createAuthResolver({ store: openAuthStore(resolveConfigDir(env)), env, profileOrder }).candidates();
  } catch (e) {
    return [{ name: "credentials", level: "fail", detail: e instanceof Error ? e.message : String(e) }];
  }
  if (!candidates.length) return [{ name: "credentials", level: "fail", detail: NO_CREDENTIALS_MESSAGE }];
  const out: DoctorCheck[] = [
    { name: "credentials", level: "ok", detail: `Anthropic: ${candidates.map((c) => c.profileId).join(", ")}` },
  ];
  for (const c of candidates) {
    const where = c.source === "env" ? c.profileId.slice(4) : `profile ${c.profileId}`;
    if (c.type === "api_key" && c.secret.startsWith(SETUP_TOKEN_PREFIX))
      out.push({
        name: "credentials",
        level: "fail",
        detail: `${where} is stored as an API key but holds a Claude setup-token (${SETUP_TOKEN_PREFIX}…), which is sent the wrong way and rejected. ${c.source === "env" ? "Put it in ANTHROPIC_OAUTH_TOKEN instead." : `Run \`openassistant auth remove ${c.profileId}\`, then \`openassistant auth anthropic setup-token\`.`}`,
      });
    else if (c.type === "api_key" && !c.secret.startsWith(API_KEY_PREFIX))
      out.push({
        name: "credentials",
        level: "warn",
        detail: `${where} does not look like an Anthropic API key (they start with "${API_KEY_PREFIX}"); fine for a proxy that expects its own keys, otherwise copy the key again.`,
      });
    else if (
      c.type === "token" &&
      (!c.secret.startsWith(SETUP_TOKEN_PREFIX) || c.secret.length < SETUP_TOKEN_MIN_LENGTH)
    )
      out.push({
        name: "credentials",
        level: "fail",
        detail: `${where} is stored as a setup-token but is not one (${c.secret.startsWith(API_KEY_PREFIX) ? "it is an API key" : `expected ${SETUP_TOKEN_PREFIX}… of at least ${SETUP_TOKEN_MIN_LENGTH} characters`}). ${c.source === "env" ? "Fix the variable." : `Run \`openassistant auth remove ${c.profileId}\` and add it again with the right command.`}`,
      });
  }
  return out;
}

/**
 * The endpoint in effect, what set it, and whether it answers: a free token count
 * (`POST /v1/messages/count_tokens`) with the first credential and the configured model, through
 * the same SDK client the gateway uses. Without a credential, any HTTP answer counts as reachable.
 */
export async function checkEndpoint(
  env: EnvLike,
  opts: { model: string; profileOrder?: readonly string[]; timeoutMs?: number },
): Promise<DoctorCheck> {
  const { baseURL, setBy } = anthropicEndpoint(env);
  const url = baseURL ?? DEFAULT_ANTHROPIC_BASE_URL;
  const origin =
    setBy === "default"
      ? "the default; set OPENASSISTANT_ANTHROPIC_BASE_URL (or ANTHROPIC_BASE_URL) for a proxy"
      : `set by ${setBy}${setBy === "ANTHROPIC_BASE_URL" ? "; OPENASSISTANT_ANTHROPIC_BASE_URL would take precedence" : ""}`;
  const fix =
    setBy === "default"
      ? "Check the network connection."
      : `Fix or unset ${setBy} (now ${JSON.stringify(url)}), or start what should answer there.`;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let cred: ResolvedCredential | undefined;
  try {
    cred = createAuthResolver({ store: openAuthStore(resolveConfigDir(env)), env, profileOrder: opts.profileOrder })
      .candidates()
      .at(0);
  } catch {
    cred = undefined; // the credentials check reports it
  }
  if (!cred) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      return {
        name: "endpoint",
        level: "warn",
        detail: `${url} (${origin}) answers (HTTP ${r.status}); no credential to try it with`,
      };
    } catch (e) {
      return { name: "endpoint", level: "fail", detail: `${url} (${origin}) cannot be reached: ${reason(e)}. ${fix}` };
    }
  }
  const { APIConnectionError, APIError } = await loadAnthropicSdk();
  try {
    const client = await buildSdkClient(cred, { baseURL: url, timeoutMs });
    await client.messages.countTokens({ model: opts.model, messages: [{ role: "user", content: "doctor" }] });
    return {
      name: "endpoint",
      level: "ok",
      detail: `${url} (${origin}) answers; ${cred.profileId} is accepted for ${opts.model}`,
    };
  } catch (e) {
    if (e instanceof APIConnectionError)
      return { name: "endpoint", level: "fail", detail: `${url} (${origin}) cannot be reached: ${reason(e)}. ${fix}` };
    if (e instanceof APIError && (e.status === 401 || e.status === 403))
      return {
        name: "endpoint",
        level: "fail",
        detail: `${url} (${origin}) refuses ${cred.profileId} (HTTP ${e.status}: ${e.message}). Add a working credential: \`openassistant auth anthropic api-key\`.`,
      };
    return {
      name: "endpoint",
      level: "fail",
      detail: `${url} (${origin}) answered a token count for ${opts.model} with ${e instanceof APIError ? `HTTP ${e.status}: ` : ""}${reason(e)}. ${e instanceof APIError && (e.status === 400 || e.status === 404) ? "Check model.name in the config." : fix}`,
    };
  }
}

function reason(e: unknown): string {
  const err = e as { message?: string; cause?: { message?: string; code?: string } };
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(e);
}

/**
 * The receipt key (in the config dir, like `receipts verify`) and the whole keyed chain: an edited,
 * inserted or removed row, a removed run or a cut tail is named by its first bad row.
 */
export async function checkReceipts(storage: ChosenStorage, configDir: string): Promise<DoctorCheck> {
  const { backend, location } = storage;
  if (!(await backend.exists(location)))
    return { name: "receipts", level: "ok", detail: "no database yet (created by the first `openassistant start`)" };
  const keyFile = receiptKeyPath(configDir);
  try {
    if (!(await backend.hasReceipts(location))) return { name: "receipts", level: "ok", detail: "no receipts yet" };
    if (!existsSync(keyFile))
      return {
        name: "receipts",
        level: "fail",
        detail: `no receipt key at ${keyFile}: receipts cannot be verified. Run with the gateway's OPENASSISTANT_CONFIG_DIR, or restore the key file.`,
      };
    const opened = await backend.openReceipts(location, configDir);
    let v: Awaited<ReturnType<typeof opened.receipts.verify>>;
    try {
      v = await opened.receipts.verify();
    } finally {
      await opened.close();
    }
    return v.ok
      ? {
          name: "receipts",
          level: "ok",
          detail: `${v.keyed + v.legacy} receipt(s) verify (keyed chain, key ${keyFile}${v.legacy ? `; ${v.legacy} legacy` : ""}${v.head === "checked" ? "; tail checked" : ""})`,
        }
      : {
          name: "receipts",
          level: "fail",
          detail: `receipts were changed outside the gateway: first bad row ${v.brokenAt}: ${v.reason}`,
        };
  } catch (e) {
    return {
      name: "receipts",
      level: "fail",
      detail: `cannot verify receipts in ${storage.described}: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

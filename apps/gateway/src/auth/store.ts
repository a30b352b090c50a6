import { readFileSync, statSync } from "node:fs";
import { authStorePath } from "./paths.ts";
import type { AuthProfile, AuthProvider } from "./types.ts";
import { writePrivateFile } from "@openassistant/core/config";

/**
 * The auth profile file (`<configDir>/auth-profiles.json`, mode 0600).
 *
 * Every operation re-reads the file, so a running gateway sees profiles added by the CLI, and
 * every write is atomic (temp file in the same dir, fsync, rename) so a crash never leaves a
 * half-written file. Concurrent writers from two processes: last write wins.
 */
export interface AuthStoreData {
  version: 1;
  profiles: AuthProfile[];
  /** Preferred order per provider, set by `auth … setup-token/api-key` (newest first). */
  preferred: Partial<Record<AuthProvider, string[]>>;
}

export class AuthStoreError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "AuthStoreError";
  }
}

const PROVIDERS: readonly AuthProvider[] = ["anthropic"];
const TYPES = ["api_key", "token"] as const;

export class AuthStore {
  readonly path: string;

  constructor(readonly configDir: string) {
    this.path = authStorePath(configDir);
  }

  /** The file's contents; an empty store when it does not exist yet. */
  read(): AuthStoreData {
    let mode: number;
    try {
      mode = statSync(this.path).mode;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return emptyData();
      throw new AuthStoreError(`Cannot read ${this.path}: ${(e as Error).message}`, this.path);
    }
    if ((mode & 0o077) !== 0) {
      const octal = (mode & 0o777).toString(8).padStart(3, "0");
      throw new AuthStoreError(
        `Refusing to read ${this.path}: it holds secrets but is readable by other users (mode ${octal}). Run: chmod 600 ${this.path}`,
        this.path,
      );
    }
    const text = readFileSync(this.path, "utf8");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new AuthStoreError(
        `${this.path} is not valid JSON (${(e as Error).message}). Fix it by hand or delete it and add your credentials again with \`openassistant auth anthropic api-key\`.`,
        this.path,
      );
    }
    return parseData(json, this.path);
  }

  list(provider?: AuthProvider): AuthProfile[] {
    const { profiles } = this.read();
    return provider ? profiles.filter((p) => p.provider === provider) : profiles;
  }

  get(id: string): AuthProfile | undefined {
    return this.read().profiles.find((p) => p.id === id);
  }

  /** The provider's preferred order as stored (ids that still exist). */
  preferredOrder(provider: AuthProvider): string[] {
    const data = this.read();
    const ids = new Set(data.profiles.map((p) => p.id));
    return (data.preferred[provider] ?? []).filter((id) => ids.has(id));
  }

  /** Adds or replaces a profile (same id); with `prefer`, moves it to the front of the order. */
  upsert(profile: AuthProfile, opts: { prefer?: boolean } = {}): void {
    this.mutate((data) => {
      const i = data.profiles.findIndex((p) => p.id === profile.id);
      if (i >= 0) data.profiles[i] = profile;
      else data.profiles.push(profile);
      if (opts.prefer) {
        const order = (data.preferred[profile.provider] ?? []).filter((id) => id !== profile.id);
        data.preferred[profile.provider] = [profile.id, ...order];
      }
    });
  }

  /** Applies `change` to one profile and writes the file. Returns false if the id is unknown. */
  update(id: string, change: (p: AuthProfile) => void): boolean {
    let found = false;
    this.mutate((data) => {
      const p = data.profiles.find((x) => x.id === id);
      if (!p) return;
      change(p);
      found = true;
    });
    return found;
  }

  remove(id: string): boolean {
    let removed = false;
    this.mutate((data) => {
      const before = data.profiles.length;
      data.profiles = data.profiles.filter((p) => p.id !== id);
      removed = data.profiles.length !== before;
      for (const provider of PROVIDERS) {
        const order = data.preferred[provider];
        if (order) data.preferred[provider] = order.filter((x) => x !== id);
      }
    });
    return removed;
  }

  private mutate(change: (data: AuthStoreData) => void): void {
    const data = this.read();
    change(data);
    this.write(data);
  }

  private write(data: AuthStoreData): void {
    writePrivateFile(this.path, `${JSON.stringify(data, null, 2)}\n`);
  }
}

export function openAuthStore(configDir: string): AuthStore {
  return new AuthStore(configDir);
}

function emptyData(): AuthStoreData {
  return { version: 1, profiles: [], preferred: {} };
}

function fail(path: string, where: string, problem: string): never {
  throw new AuthStoreError(
    `${path}: ${where} ${problem}. Fix the file or remove the entry with \`openassistant auth remove <id>\`.`,
    path,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseData(json: unknown, path: string): AuthStoreData {
  if (!isObject(json)) fail(path, "the top level", "must be an object");
  const rawProfiles = json.profiles ?? [];
  if (!Array.isArray(rawProfiles)) fail(path, "profiles", "must be an array");
  const profiles = rawProfiles.map((raw, i) => parseProfile(raw, `profiles[${i}]`, path));
  const preferred: AuthStoreData["preferred"] = {};
  if (json.preferred !== undefined) {
    if (!isObject(json.preferred)) fail(path, "preferred", "must be an object of provider → profile ids");
    for (const provider of PROVIDERS) {
      const order = json.preferred[provider];
      if (order === undefined) continue;
      if (!Array.isArray(order) || !order.every((x) => typeof x === "string")) {
        fail(path, `preferred.${provider}`, "must be an array of profile ids");
      }
      preferred[provider] = order as string[];
    }
  }
  return { version: 1, profiles, preferred };
}

function parseProfile(raw: unknown, where: string, path: string): AuthProfile {
  if (!isObject(raw)) fail(path, where, "must be an object");
  const str = (key: string, required: boolean): string | undefined => {
    const v = raw[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== "string" || v === "") fail(path, `${where}.${key}`, "must be a non-empty string");
    return v;
  };
  const id = str("id", true)!;
  const provider = str("provider", true)!;
  if (!PROVIDERS.includes(provider as AuthProvider))
    fail(path, `${where}.provider`, `must be one of ${PROVIDERS.join(", ")}`);
  const type = str("type", true)!;
  if (!TYPES.includes(type as (typeof TYPES)[number])) fail(path, `${where}.type`, `must be "api_key" or "token"`);
  const profile: AuthProfile = {
    id,
    provider: provider as AuthProvider,
    type: type as AuthProfile["type"],
    secret: str("secret", true)!,
    createdAt: str("createdAt", false) ?? new Date(0).toISOString(),
  };
  const lastUsedAt = str("lastUsedAt", false);
  if (lastUsedAt) profile.lastUsedAt = lastUsedAt;
  const cooldownUntil = str("cooldownUntil", false);
  if (cooldownUntil) profile.cooldownUntil = cooldownUntil;
  if (raw.failures !== undefined) {
    if (typeof raw.failures !== "number" || raw.failures < 0)
      fail(path, `${where}.failures`, "must be a non-negative number");
    profile.failures = raw.failures;
  }
  const reason = str("lastFailureReason", false);
  if (reason) profile.lastFailureReason = reason as AuthProfile["lastFailureReason"];
  return profile;
}

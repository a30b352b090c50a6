import { describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { authStorePath, resolveConfigDir } from "./paths.ts";
import { AuthStoreError, openAuthStore } from "./store.ts";
import type { AuthProfile } from "./types.ts";

function profile(id: string, extra: Partial<AuthProfile> = {}): AuthProfile {
  return {
    id,
    provider: "anthropic",
    type: "api_key",
    secret: `sk-ant-api03-${id}-secretsecret`,
    createdAt: "2025-01-01T00:00:00.000Z",
    ...extra,
  };
}

describe("auth store file", () => {
  test("a missing file is an empty store; writes create the dir 0700 and the file 0600, atomically", () => {
    const dir = join(makeTempDir(), "nested", "openassistant");
    const store = openAuthStore(dir);
    expect(store.list()).toEqual([]);
    store.upsert(profile("anthropic:a"));
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    store.upsert(profile("anthropic:b"), { prefer: true });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["auth-profiles.json"]); // no temp files left behind
    expect(store.list().map((p) => p.id)).toEqual(["anthropic:a", "anthropic:b"]);
    expect(store.preferredOrder("anthropic")).toEqual(["anthropic:b"]);
  });

  test("refuses a group/world readable file and says to chmod 600; 0600 is read", () => {
    const dir = makeTempDir();
    const store = openAuthStore(dir);
    store.upsert(profile("anthropic:a"));
    chmodSync(store.path, 0o644);
    expect(() => store.list()).toThrow(AuthStoreError);
    expect(() => store.list()).toThrow(`Run: chmod 600 ${store.path}`);
    expect(() => store.list()).toThrow("mode 644");
    chmodSync(store.path, 0o640);
    expect(() => store.list()).toThrow("chmod 600");
    chmodSync(store.path, 0o600);
    expect(store.list().map((p) => p.id)).toEqual(["anthropic:a"]);
  });

  test("upsert replaces by id, prefer moves to the front, remove drops from the order", () => {
    const store = openAuthStore(makeTempDir());
    store.upsert(profile("anthropic:a"), { prefer: true });
    store.upsert(profile("anthropic:b"), { prefer: true });
    store.upsert(profile("anthropic:a", { type: "token", secret: "sk-ant-oat01-replaced" }), { prefer: true });
    expect(store.preferredOrder("anthropic")).toEqual(["anthropic:a", "anthropic:b"]);
    expect(store.get("anthropic:a")!.secret).toBe("sk-ant-oat01-replaced");
    expect(store.list()).toHaveLength(2);
    expect(store.remove("anthropic:a")).toBe(true);
    expect(store.remove("anthropic:a")).toBe(false);
    expect(store.preferredOrder("anthropic")).toEqual(["anthropic:b"]);
  });

  test("a broken file gets an error naming the file and the field", () => {
    const dir = makeTempDir();
    const path = authStorePath(dir);
    writeFileSync(path, "{ not json", { mode: 0o600 });
    expect(() => openAuthStore(dir).list()).toThrow(`${path} is not valid JSON`);
    writeFileSync(
      path,
      JSON.stringify({ profiles: [{ id: "anthropic:x", provider: "anthropic", type: "password", secret: "s" }] }),
      { mode: 0o600 },
    );
    expect(() => openAuthStore(dir).list()).toThrow(`profiles[0].type must be "api_key" or "token"`);
    writeFileSync(path, JSON.stringify({ profiles: [{ id: "anthropic:x", provider: "anthropic", type: "token" }] }), {
      mode: 0o600,
    });
    expect(() => openAuthStore(dir).list()).toThrow("profiles[0].secret must be a non-empty string");
  });

  test("config dir comes from the env object passed in, else ~/.config/openassistant", () => {
    expect(resolveConfigDir({ OPENASSISTANT_CONFIG_DIR: "/x/y" }, "/home/u")).toBe("/x/y");
    expect(resolveConfigDir({}, "/home/u")).toBe("/home/u/.config/openassistant");
    expect(authStorePath("/x/y")).toBe("/x/y/auth-profiles.json");
  });
});

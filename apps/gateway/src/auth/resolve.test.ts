import { describe, expect, test } from "bun:test";
import { makeTempDir } from "@openassistant/testkit";
import { AuthError, createAuthResolver } from "./resolve.ts";
import { openAuthStore, type AuthStore } from "./store.ts";
import type { AuthProfile, RotationEvent } from "./types.ts";

const MIN = 60_000;

function storeWith(...ids: string[]): AuthStore {
  const store = openAuthStore(makeTempDir());
  for (const id of ids) store.upsert(profile(id));
  return store;
}

function profile(id: string, extra: Partial<AuthProfile> = {}): AuthProfile {
  return {
    id,
    provider: "anthropic",
    type: "api_key",
    secret: `sk-ant-api03-${id}`,
    createdAt: "2025-01-01T00:00:00.000Z",
    ...extra,
  };
}

function clock(start = Date.parse("2025-06-01T12:00:00Z")) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("credential resolution order", () => {
  test("pinned > config order > store preference > remaining profiles > env", () => {
    const store = storeWith("anthropic:a", "anthropic:b", "anthropic:c", "anthropic:d");
    store.upsert(profile("anthropic:c"), { prefer: true });
    const env = { ANTHROPIC_API_KEY: "sk-ant-api03-env", ANTHROPIC_OAUTH_TOKEN: "sk-ant-oat01-envtoken" };
    const ids = (o: { pinnedProfile?: string; profileOrder?: string[] }) =>
      createAuthResolver({ store, env, ...o })
        .candidates()
        .map((c) => c.profileId);

    expect(ids({})).toEqual([
      "anthropic:c",
      "anthropic:a",
      "anthropic:b",
      "anthropic:d",
      "env:ANTHROPIC_API_KEY",
      "env:ANTHROPIC_OAUTH_TOKEN",
    ]);
    expect(ids({ profileOrder: ["anthropic:d", "anthropic:missing", "anthropic:b"] }).slice(0, 3)).toEqual([
      "anthropic:d",
      "anthropic:b",
      "anthropic:c",
    ]);
    expect(ids({ pinnedProfile: "anthropic:b", profileOrder: ["anthropic:d"] }).slice(0, 3)).toEqual([
      "anthropic:b",
      "anthropic:d",
      "anthropic:c",
    ]);
    expect(createAuthResolver({ store, env, pinnedProfile: "anthropic:b" }).resolve().profileId).toBe("anthropic:b");
  });

  test("env fallback: ANTHROPIC_API_KEY as a key first, then ANTHROPIC_OAUTH_TOKEN as a token", () => {
    const store = storeWith();
    const both = createAuthResolver({
      store,
      env: { ANTHROPIC_OAUTH_TOKEN: "sk-ant-oat01-t", ANTHROPIC_API_KEY: "sk-ant-api03-k" },
    });
    expect(both.resolve()).toEqual({
      profileId: "env:ANTHROPIC_API_KEY",
      source: "env",
      type: "api_key",
      secret: "sk-ant-api03-k",
    });
    const keyOnly = createAuthResolver({ store, env: { ANTHROPIC_API_KEY: " sk-ant-api03-k " } });
    expect(keyOnly.resolve()).toEqual({
      profileId: "env:ANTHROPIC_API_KEY",
      source: "env",
      type: "api_key",
      secret: "sk-ant-api03-k",
    });
  });

  test("no credentials: an actionable error naming the commands", () => {
    const r = createAuthResolver({ store: storeWith(), env: {} });
    try {
      r.resolve();
      throw new Error("expected resolve() to throw");
    } catch (e) {
      expect(e).toBeInstanceOf(AuthError);
      expect((e as AuthError).kind).toBe("no_credentials");
      expect((e as AuthError).message).toContain("openassistant auth anthropic api-key");
      expect((e as AuthError).message).toContain("openassistant auth anthropic setup-token");
    }
  });

  test("a pin to a missing profile is an error, not a silent fallback", () => {
    const r = createAuthResolver({ store: storeWith("anthropic:a"), pinnedProfile: "anthropic:gone" });
    expect(() => r.resolve()).toThrow('pinned to auth profile "anthropic:gone"');
  });
});

describe("cooldown and rotation", () => {
  test("failures cool the profile down with growing, persisted backoff and rotate with an event", () => {
    const store = storeWith("anthropic:a", "anthropic:b");
    const c = clock();
    const events: RotationEvent[] = [];
    const r = createAuthResolver({ store, now: c.now, onRotate: (e) => events.push(e) });

    const a = r.resolve();
    expect(a.profileId).toBe("anthropic:a");
    const next = r.fail(a, "rate_limit", { message: "slow down" });
    expect(next?.profileId).toBe("anthropic:b");
    expect(events).toEqual([
      {
        from: "anthropic:a",
        to: "anthropic:b",
        reason: "rate_limit",
        cooldownUntil: new Date(c.now() + MIN).toISOString(),
        message: "slow down",
      },
    ]);

    // Persisted: a fresh resolver (e.g. after a restart) sees the cooldown too.
    const fresh = createAuthResolver({ store: openAuthStore(store.configDir), now: c.now });
    expect(fresh.resolve().profileId).toBe("anthropic:b");
    expect(store.get("anthropic:a")).toMatchObject({
      failures: 1,
      lastFailureReason: "rate_limit",
      cooldownUntil: new Date(c.now() + MIN).toISOString(),
    });

    // After the cooldown, a fails again: 5 minutes this time, then 25.
    c.advance(MIN + 1);
    expect(r.resolve().profileId).toBe("anthropic:a");
    r.fail(r.resolve(), "auth");
    expect(Date.parse(store.get("anthropic:a")!.cooldownUntil!) - c.now()).toBe(5 * MIN);
    c.advance(5 * MIN + 1);
    r.fail(r.resolve(), "billing");
    expect(Date.parse(store.get("anthropic:a")!.cooldownUntil!) - c.now()).toBe(25 * MIN);

    // An overload pauses the profile briefly and does not grow the backoff.
    c.advance(25 * MIN + 1);
    r.fail(r.resolve(), "overloaded");
    expect(Date.parse(store.get("anthropic:a")!.cooldownUntil!) - c.now()).toBe(30_000);
    expect(store.get("anthropic:a")!.failures).toBe(3);

    // Success resets the backoff.
    c.advance(30_001);
    r.succeed(r.resolve());
    const cleared = store.get("anthropic:a")!;
    expect(cleared.failures).toBeUndefined();
    expect(cleared.cooldownUntil).toBeUndefined();
    expect(cleared.lastUsedAt).toBe(new Date(c.now()).toISOString());
  });

  test("retry-after longer than the backoff step sets the cooldown", () => {
    const store = storeWith("anthropic:a");
    const c = clock();
    const r = createAuthResolver({ store, now: c.now });
    expect(r.fail(r.resolve(), "rate_limit", { retryAfterMs: 10 * MIN })).toBeNull();
    expect(Date.parse(store.get("anthropic:a")!.cooldownUntil!) - c.now()).toBe(10 * MIN);
  });

  test("when everything cools down: falls back to env, then a clear error with the earliest time", () => {
    const store = storeWith("anthropic:a");
    const c = clock();
    const events: RotationEvent[] = [];
    const r = createAuthResolver({
      store,
      now: c.now,
      env: { ANTHROPIC_API_KEY: "sk-ant-api03-env" },
      onRotate: (e) => events.push(e),
    });
    const env = r.fail(r.resolve(), "auth");
    expect(env?.profileId).toBe("env:ANTHROPIC_API_KEY");
    expect(r.fail(env!, "rate_limit")).toBeNull();
    expect(events.map((e) => `${e.from}->${e.to}`)).toEqual(["anthropic:a->env:ANTHROPIC_API_KEY"]);
    try {
      r.resolve();
      throw new Error("expected resolve() to throw");
    } catch (e) {
      const err = e as AuthError;
      expect(err.kind).toBe("all_cooling_down");
      expect(err.availableAt?.getTime()).toBe(c.now() + MIN);
      expect(err.message).toContain("anthropic:a until");
      expect(err.message).toContain("openassistant auth anthropic api-key");
      expect(err.message).not.toContain("sk-ant-api03-env");
    }
    c.advance(MIN + 1);
    expect(r.resolve().profileId).toBe("anthropic:a");
  });
});

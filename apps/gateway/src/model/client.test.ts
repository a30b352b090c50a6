import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import {
  fakeAnthropicErrors,
  makeTempDir,
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
  type FakeAnthropic,
} from "@openassistant/testkit";
import { createAuthResolver } from "../auth/resolve.ts";
import { openAuthStore, type AuthStore } from "../auth/store.ts";
import type { AuthProfile, AuthProfileType, EnvLike, RotationEvent } from "../auth/types.ts";
import { createModelClient, type ModelClientOptions } from "./client.ts";
import { ModelError } from "./errors.ts";
import { buildSdkClient } from "./sdk-client.ts";

// Anthropic's documented value for subscription (OAuth) tokens, written out: a typo in the
// exported constant must fail here, not be compared with itself.
const OAUTH_BETA_HEADER = "oauth-2025-04-20";

// The real @anthropic-ai/sdk talking to the fake server from the test kit.
const TOKEN = `sk-ant-oat01-${"t".repeat(80)}`;
const KEY_A = "sk-ant-api03-aaaaaaaaaaaaaaaaaaaa";
const KEY_B = "sk-ant-api03-bbbbbbbbbbbbbbbbbbbb";

// The SDK would read these if we let it; they must have no effect.
const LEAKY_ENV = {
  ANTHROPIC_BASE_URL: "http://127.0.0.1:9/bogus",
  ANTHROPIC_API_KEY: "sk-ant-api03-from-process-env",
  ANTHROPIC_AUTH_TOKEN: "from-process-env-auth-token",
  ANTHROPIC_CUSTOM_HEADERS: "X-Leaked: yes\nanthropic-beta: leaked-beta",
  ANTHROPIC_LOG: "debug",
};
const saved: Record<string, string | undefined> = {};

let api: FakeAnthropic;
beforeAll(async () => {
  for (const [k, v] of Object.entries(LEAKY_ENV)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  api = await startFakeAnthropic();
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await api.close();
});
afterEach(() => {
  expect(api.remaining()).toBe(0); // every scripted turn was used
  api.requests.length = 0;
});

const MODEL = "claude-haiku-4-5";

function storeWith(...profiles: Array<[id: string, type: AuthProfileType, secret: string]>): AuthStore {
  const store = openAuthStore(makeTempDir());
  for (const [id, type, secret] of profiles) {
    const p: AuthProfile = { id, provider: "anthropic", type, secret, createdAt: new Date().toISOString() };
    store.upsert(p);
  }
  return store;
}

function client(
  store: AuthStore,
  extra: Partial<ModelClientOptions> & { env?: EnvLike; onRotate?: (e: RotationEvent) => void } = {},
) {
  const { env, onRotate, ...rest } = extra;
  const auth = createAuthResolver({ store, env: env ?? {}, onRotate });
  // claude-haiku-4-5 does not think unless asked, so these transport tests see only scripted blocks.
  // Same-key waits are off here (rateLimitRetries 0) and tested on their own below.
  return createModelClient({
    auth,
    baseURL: api.url,
    model: MODEL,
    maxTokens: 256,
    transientDelayMs: 1,
    rateLimitRetries: 0,
    ...rest,
  });
}

const userMessage = { messages: [{ role: "user" as const, content: "hi" }] };

async function expectModelError(p: Promise<unknown>): Promise<ModelError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ModelError);
    return e as ModelError;
  }
  throw new Error("expected a ModelError");
}

describe("transport through the real SDK", () => {
  test("SSE turn: streams text deltas, returns the final message with usage, sends defaults", async () => {
    api.script([
      textTurn("Hello there, friend!", {
        usage: { input_tokens: 11, output_tokens: 4, cache_read_input_tokens: 9, cache_creation_input_tokens: 3 },
      }),
    ]);
    const deltas: string[] = [];
    const msg = await client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(
      { ...userMessage, system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }] },
      { onText: (d) => deltas.push(d) },
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello there, friend!");
    expect(msg.content).toHaveLength(1);
    expect(msg.content[0]).toMatchObject({ type: "text", text: "Hello there, friend!" });
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.usage).toMatchObject({
      input_tokens: 11,
      output_tokens: 4,
      cache_read_input_tokens: 9,
      cache_creation_input_tokens: 3,
    });
    const req = api.messageRequests()[0]!;
    expect(req.body).toMatchObject({ model: MODEL, max_tokens: 256, stream: true });
    expect(req.body.system[0].cache_control).toEqual({ type: "ephemeral" }); // passed through untouched
  });

  test("tool_use blocks are parsed from input_json_delta chunks", async () => {
    api.script([
      toolUseTurn(
        { id: "toolu_01", name: "execute", input: { code: "return tools.a.b({ x: 1 })" } },
        { text: "Let me check.", chunkSize: 3 },
      ),
    ]);
    const msg = await client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage({
      ...userMessage,
      tools: [
        {
          name: "execute",
          description: "run code",
          input_schema: { type: "object", properties: { code: { type: "string" } } },
        },
      ],
    });
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.content[1]).toEqual({
      type: "tool_use",
      id: "toolu_01",
      name: "execute",
      input: { code: "return tools.a.b({ x: 1 })" },
    } as never);
    expect(api.messageRequests()[0]!.body.tools[0].name).toBe("execute");
  });

  test("JSON turn through an SDK client built by buildSdkClient", async () => {
    api.script([toolUseTurn({ id: "toolu_9", name: "execute", input: { code: "1" } })]);
    const sdk = await buildSdkClient(
      { profileId: "anthropic:a", source: "profile", type: "api_key", secret: KEY_A },
      { baseURL: api.url },
    );
    const msg = await sdk.messages.create({ model: MODEL, max_tokens: 10, ...userMessage });
    expect(msg.content[0]).toEqual({ type: "tool_use", id: "toolu_9", name: "execute", input: { code: "1" } } as never);
    expect(api.messageRequests()[0]!.body.stream).toBeUndefined();
  });

  test("token profile: Bearer token + anthropic-beta oauth header; no impersonation", async () => {
    api.script([textTurn("ok")]);
    await client(storeWith(["anthropic:manual", "token", TOKEN])).streamMessage(userMessage, {
      betas: ["prompt-caching-2024-07-31"],
    });
    const h = api.messageRequests()[0]!.headers;
    expect(h.authorization).toBe(`Bearer ${TOKEN}`);
    expect(h["x-api-key"]).toBeUndefined();
    expect(h["anthropic-beta"]).toBe(`${OAUTH_BETA_HEADER},prompt-caching-2024-07-31`);
    expect(h["user-agent"]).toMatch(/^Anthropic\/JS /);
    expect(h["user-agent"]).not.toContain("claude-cli");
    expect(h["x-app"]).toBeUndefined();
    const body = api.messageRequests()[0]!.body;
    expect(body.system).toBeUndefined(); // nothing injected
  });

  test("api_key profile: SDK 1.12 sends the key as Bearer, and no oauth beta", async () => {
    api.script([textTurn("ok")]);
    await client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(userMessage);
    const h = api.messageRequests()[0]!.headers;
    expect(h.authorization).toBe(`Bearer ${KEY_A}`);
    expect(h["x-api-key"]).toBeUndefined();
    expect(h["anthropic-beta"]).toBeUndefined();
  });

  test("ANTHROPIC_* in process.env is ignored (base URL, key, token, custom headers)", async () => {
    expect(process.env.ANTHROPIC_BASE_URL).toBe(LEAKY_ENV.ANTHROPIC_BASE_URL);
    api.script([textTurn("ok"), textTurn("ok")]);
    // Reached the fake server (not the bogus base URL) with our credential only.
    await client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(userMessage);
    await client(storeWith(["anthropic:t", "token", TOKEN])).streamMessage(userMessage);
    const [a, t] = api.messageRequests();
    expect(a!.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(a!.headers["x-leaked"]).toBeUndefined();
    expect(a!.headers["anthropic-beta"]).toBeUndefined();
    expect(t!.headers["anthropic-beta"]).toBe(OAUTH_BETA_HEADER);
    expect(t!.headers["x-leaked"]).toBeUndefined();
    // Without a baseURL the client targets the real API, not $ANTHROPIC_BASE_URL.
    expect((await buildSdkClient({ profileId: "p", source: "profile", type: "api_key", secret: KEY_A })).baseURL).toBe(
      "https://api.anthropic.com",
    );
    // And the resolver does not read process.env either: no env object, no credentials.
    const none = createModelClient({
      auth: createAuthResolver({ store: storeWith() }),
      model: "m",
      maxTokens: 1,
      baseURL: api.url,
    });
    const err = await expectModelError(none.streamMessage(userMessage));
    expect(err.kind).toBe("no_credentials");
    expect(err.message).toContain("openassistant auth anthropic api-key");
  });

  test("an aborted call becomes kind aborted", async () => {
    api.script([textTurn("slow", { delayMs: 300 })]);
    const ctrl = new AbortController();
    const p = client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(userMessage, { signal: ctrl.signal });
    setTimeout(() => ctrl.abort(), 30);
    expect((await expectModelError(p)).kind).toBe("aborted");
    await Bun.sleep(300); // let the fake finish its delayed turn before the next test
  });
});

describe("rotation through profiles", () => {
  test("429 on the first profile: cooldown persisted, event emitted, second profile answers", async () => {
    api.script([fakeAnthropicErrors.rateLimited(120), textTurn("from b")]);
    const store = storeWith(["anthropic:a", "api_key", KEY_A], ["anthropic:b", "api_key", KEY_B]);
    const events: RotationEvent[] = [];
    const perCall: RotationEvent[] = [];
    const msg = await client(store, { onRotate: (e) => events.push(e) }).streamMessage(userMessage, {
      onRotate: (e) => perCall.push(e),
    });
    expect(msg.content[0]).toMatchObject({ text: "from b" });
    expect(api.messageRequests().map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_B}`]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ from: "anthropic:a", to: "anthropic:b", reason: "rate_limit" });
    expect(perCall).toEqual(events);
    const a = openAuthStore(store.configDir).get("anthropic:a")!;
    expect(a.failures).toBe(1);
    // retry-after 120 s beats the 1-minute first step
    expect(Date.parse(a.cooldownUntil!) - Date.now()).toBeGreaterThan(110_000);
    expect(openAuthStore(store.configDir).get("anthropic:b")!.lastUsedAt).toBeDefined();
  });

  test("401 on a token profile rotates to the API key; the next call starts with the API key", async () => {
    api.script([fakeAnthropicErrors.authentication("invalid bearer token"), textTurn("ok"), textTurn("again")]);
    const store = storeWith(["anthropic:manual", "token", TOKEN], ["anthropic:key", "api_key", KEY_A]);
    const events: RotationEvent[] = [];
    const c = client(store, { onRotate: (e) => events.push(e) });
    await c.streamMessage(userMessage);
    expect(events).toEqual([
      expect.objectContaining({
        from: "anthropic:manual",
        to: "anthropic:key",
        reason: "auth",
        message: "invalid bearer token",
      }),
    ]);
    expect(openAuthStore(store.configDir).get("anthropic:manual")).toMatchObject({
      failures: 1,
      lastFailureReason: "auth",
    });
    await c.streamMessage(userMessage);
    const auths = api.messageRequests().map((r) => r.headers.authorization);
    expect(auths).toEqual([`Bearer ${TOKEN}`, `Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);
    expect(api.messageRequests()[1]!.headers["anthropic-beta"]).toBeUndefined();
  });

  test("every profile failing: a ModelError naming what was tried, and no further requests", async () => {
    api.script([fakeAnthropicErrors.rateLimited(5), fakeAnthropicErrors.overloaded()]);
    const store = storeWith(["anthropic:a", "api_key", KEY_A], ["anthropic:b", "api_key", KEY_B]);
    const c = client(store);
    const err = await expectModelError(c.streamMessage(userMessage));
    expect(err.kind).toBe("overloaded");
    expect(err.message).toContain("Anthropic is overloaded, try again in a minute");
    expect(err.message).toContain("tried anthropic:a: rate_limit, anthropic:b: overloaded");
    expect(err.profileId).toBe("anthropic:b");
    // Both are cooling down now: the next call fails fast without touching the network.
    const again = await expectModelError(c.streamMessage(userMessage));
    expect(again.kind).toBe("credentials_cooling_down");
    expect(again.message).toContain("cooling down");
    expect(again.retryAfterSeconds).toBeGreaterThan(0);
    expect(api.messageRequests()).toHaveLength(2);
  });

  test("setup-token rejected for third-party use: clear message telling the user to add an API key", async () => {
    api.script([fakeAnthropicErrors.setupTokenRejected()]);
    const err = await expectModelError(
      client(storeWith(["anthropic:manual", "token", TOKEN])).streamMessage(userMessage),
    );
    expect(err.kind).toBe("setup_token_rejected");
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      "Anthropic only allows Claude setup-tokens inside Claude Code, so anthropic:manual cannot be used here; add an API key with `openassistant auth anthropic api-key`.",
    );
    expect(err.message).not.toContain(TOKEN);
  });

  test("setup-token rejected but an API key exists: the call continues on the key", async () => {
    api.script([fakeAnthropicErrors.setupTokenRejected(), textTurn("via key")]);
    const events: RotationEvent[] = [];
    const store = storeWith(["anthropic:manual", "token", TOKEN], ["anthropic:key", "api_key", KEY_A]);
    const msg = await client(store, { onRotate: (e) => events.push(e) }).streamMessage(userMessage);
    expect(msg.content[0]).toMatchObject({ text: "via key" });
    expect(events[0]).toMatchObject({ from: "anthropic:manual", to: "anthropic:key", reason: "auth" });
  });

  test("env fallback is used after profiles and rotated like one", async () => {
    api.script([fakeAnthropicErrors.authentication(), textTurn("env ok")]);
    const events: RotationEvent[] = [];
    const c = client(storeWith(["anthropic:a", "api_key", KEY_A]), {
      env: { ANTHROPIC_OAUTH_TOKEN: TOKEN },
      onRotate: (e) => events.push(e),
    });
    await c.streamMessage(userMessage);
    expect(events[0]).toMatchObject({ from: "anthropic:a", to: "env:ANTHROPIC_OAUTH_TOKEN" });
    const second = api.messageRequests()[1]!.headers;
    expect(second.authorization).toBe(`Bearer ${TOKEN}`);
    expect(second["anthropic-beta"]).toBe(OAUTH_BETA_HEADER);
  });

  test("maxAttempts bounds the rotation", async () => {
    api.script([fakeAnthropicErrors.overloaded(), fakeAnthropicErrors.overloaded()]);
    const store = storeWith(
      ["anthropic:a", "api_key", KEY_A],
      ["anthropic:b", "api_key", KEY_B],
      ["anthropic:c", "api_key", KEY_A],
    );
    const err = await expectModelError(client(store, { maxAttempts: 2 }).streamMessage(userMessage));
    expect(err.kind).toBe("overloaded");
    expect(api.messageRequests()).toHaveLength(2);
  });
});

describe("error mapping", () => {
  test("rate limit with one profile: message carries retry-after", async () => {
    api.script([fakeAnthropicErrors.rateLimited(42)]);
    const err = await expectModelError(client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(userMessage));
    expect(err.kind).toBe("rate_limited");
    expect(err.retryAfterSeconds).toBe(42);
    expect(err.message).toBe("Anthropic's rate limit was reached for anthropic:a; retry after 42 s.");
  });

  test("401 on an API key: names the profile and the command", async () => {
    api.script([fakeAnthropicErrors.authentication()]);
    const err = await expectModelError(
      client(storeWith(["anthropic:work", "api_key", KEY_A])).streamMessage(userMessage),
    );
    expect(err.kind).toBe("auth");
    expect(err.message).toBe(
      "The API key for profile anthropic:work was rejected (invalid x-api-key); run `openassistant auth anthropic api-key`.",
    );
  });

  test("403 permission, expired token and billing errors cool down and map", async () => {
    api.script([fakeAnthropicErrors.permission(), fakeAnthropicErrors.tokenExpired(), fakeAnthropicErrors.billing()]);
    const e1 = await expectModelError(client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(userMessage));
    expect(e1.kind).toBe("auth");
    expect(e1.status).toBe(403);
    const e2 = await expectModelError(client(storeWith(["anthropic:t", "token", TOKEN])).streamMessage(userMessage));
    expect(e2.kind).toBe("token_expired");
    expect(e2.message).toContain("claude setup-token");
    const billingStore = storeWith(["anthropic:a", "api_key", KEY_A]);
    const e3 = await expectModelError(client(billingStore).streamMessage(userMessage));
    expect(e3.kind).toBe("billing");
    expect(openAuthStore(billingStore.configDir).get("anthropic:a")!.lastFailureReason).toBe("billing");
  });

  test("prompt too long: kind context_too_long, no cooldown, no rotation", async () => {
    api.script([fakeAnthropicErrors.promptTooLong()]);
    const store = storeWith(["anthropic:a", "api_key", KEY_A], ["anthropic:b", "api_key", KEY_B]);
    const err = await expectModelError(client(store).streamMessage(userMessage));
    expect(err.kind).toBe("context_too_long");
    expect(openAuthStore(store.configDir).get("anthropic:a")!.cooldownUntil).toBeUndefined();
    expect(api.messageRequests()).toHaveLength(1);
  });

  test("an overload error in the middle of the stream is mapped and rotated", async () => {
    api.script([fakeAnthropicErrors.overloaded({ midStream: true }), textTurn("recovered")]);
    const store = storeWith(["anthropic:a", "api_key", KEY_A], ["anthropic:b", "api_key", KEY_B]);
    const msg = await client(store).streamMessage(userMessage);
    expect(msg.content[0]).toMatchObject({ text: "recovered" });
    expect(openAuthStore(store.configDir).get("anthropic:a")!.lastFailureReason).toBe("overloaded");
  });

  test("a 500 is retried once on the same profile without cooldown", async () => {
    api.script([fakeAnthropicErrors.apiError(500), textTurn("second try")]);
    const store = storeWith(["anthropic:a", "api_key", KEY_A]);
    const msg = await client(store).streamMessage(userMessage);
    expect(msg.content[0]).toMatchObject({ text: "second try" });
    expect(api.messageRequests().map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);
    expect(openAuthStore(store.configDir).get("anthropic:a")!.failures).toBeUndefined();
  });
});

describe("one credential: rate limits and overloads are waited out on the same key", () => {
  const waiting = (store: AuthStore, retries: Array<{ seconds: number; reason: string }>) => ({
    client: client(store, { rateLimitRetries: 2, maxRetryWaitMs: 30 }),
    opts: { onRetry: (r: { seconds: number; reason: string }) => retries.push(r) },
  });

  test("429 then ok: waits retry-after (capped), retries the same key, no cooldown", async () => {
    api.script([
      { error: { ...fakeAnthropicErrors.rateLimited(1).error, headers: { "retry-after-ms": "20" } } },
      textTurn("after the wait"),
    ]);
    const store = storeWith(["anthropic:a", "api_key", KEY_A]);
    const retries: Array<{ seconds: number; reason: string }> = [];
    const { client: c, opts } = waiting(store, retries);
    const msg = await c.streamMessage(userMessage, opts);
    expect(msg.content[0]).toMatchObject({ text: "after the wait" });
    expect(retries).toEqual([{ seconds: 1, reason: "rate limited" }]);
    expect(api.messageRequests().map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);
    expect(openAuthStore(store.configDir).get("anthropic:a")!.cooldownUntil).toBeUndefined();
  });

  test("529 once, and an overload mid-stream before any output: both retried on the same key", async () => {
    api.script([
      fakeAnthropicErrors.overloaded(),
      fakeAnthropicErrors.overloaded({ midStream: true }),
      textTurn("third time"),
    ]);
    const retries: Array<{ seconds: number; reason: string }> = [];
    const { client: c, opts } = waiting(storeWith(["anthropic:a", "api_key", KEY_A]), retries);
    const msg = await c.streamMessage(userMessage, opts);
    expect(msg.content[0]).toMatchObject({ text: "third time" });
    expect(retries.map((r) => r.reason)).toEqual(["Anthropic is overloaded", "Anthropic is overloaded"]);
  });

  test("an api_error event mid-stream is retried like a 5xx", async () => {
    api.script([{ error: { ...fakeAnthropicErrors.apiError(500).error, midStream: true } }, textTurn("recovered")]);
    const msg = await client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(userMessage);
    expect(msg.content[0]).toMatchObject({ text: "recovered" });
  });

  test("an overload after some streamed text: the partial is withdrawn, then the call is made again whole", async () => {
    api.script([
      {
        error: {
          ...fakeAnthropicErrors.overloaded({ midStream: true, partialText: "The answer is forty" }).error,
          headers: { "retry-after-ms": "20" },
        },
      },
      textTurn("The answer is forty-two."),
    ]);
    const seen: string[] = [];
    const retries: Array<{ seconds: number; reason: string }> = [];
    // No cap below the API's retry-after: the wait shown is the one asked for (20 ms → 1 s), not the 2 s default.
    const c = client(storeWith(["anthropic:a", "api_key", KEY_A]), { rateLimitRetries: 2, maxRetryWaitMs: 60_000 });
    const msg = await c.streamMessage(userMessage, {
      onText: (d) => seen.push(d),
      onDiscard: () => seen.push("<discard>"),
      onRetry: (r) => retries.push(r),
    });
    expect(msg.content[0]).toMatchObject({ text: "The answer is forty-two." });
    // Live text as a viewer builds it: what follows the last discard is the answer, once.
    const live = seen.join("").split("<discard>");
    expect(live).toHaveLength(2);
    expect(live[0]).toBe("The answer is forty");
    expect(live[1]).toBe("The answer is forty-two.");
    expect(retries).toEqual([{ seconds: 1, reason: "Anthropic is overloaded" }]);
    // The retry is the same request (no partial text sent back as a prefill).
    const [first, second] = api.messageRequests();
    expect(second!.body).toEqual(first!.body);
  });

  test("an api_error event after some text is retried like a 5xx, the partial withdrawn", async () => {
    api.script([
      { error: { ...fakeAnthropicErrors.apiError(500).error, midStream: true, partialText: "Half" } },
      textTurn("Whole answer."),
    ]);
    let discarded = 0;
    const msg = await client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(userMessage, {
      onDiscard: () => discarded++,
    });
    expect(msg.content[0]).toMatchObject({ text: "Whole answer." });
    expect(discarded).toBe(1);
  });

  test("mid-stream overloads on every attempt: bounded, and the error says it gave up after the retries", async () => {
    const partial = () => fakeAnthropicErrors.overloaded({ midStream: true, partialText: "Part" });
    api.script([partial(), partial(), partial()]);
    const { client: c, opts } = waiting(storeWith(["anthropic:a", "api_key", KEY_A]), []);
    const err = await expectModelError(c.streamMessage(userMessage, opts));
    expect(err.kind).toBe("overloaded");
    expect(err.message).toContain("gave up after 3 attempts");
    expect(api.messageRequests()).toHaveLength(3);
  });

  test("a retry-after longer than the cap is not waited: a clear error with the time", async () => {
    api.script([fakeAnthropicErrors.rateLimited(600)]);
    const { client: c, opts } = waiting(storeWith(["anthropic:a", "api_key", KEY_A]), []);
    const err = await expectModelError(c.streamMessage(userMessage, opts));
    expect(err.kind).toBe("rate_limited");
    expect(err.message).toContain("retry after 600 s");
  });

  test("with several credentials, a 429's cooldown follows retry-after instead of the 1-minute step", async () => {
    api.script([fakeAnthropicErrors.rateLimited(3), textTurn("from b")]);
    const store = storeWith(["anthropic:a", "api_key", KEY_A], ["anthropic:b", "api_key", KEY_B]);
    const before = Date.now();
    await client(store).streamMessage(userMessage);
    const until = Date.parse(openAuthStore(store.configDir).get("anthropic:a")!.cooldownUntil!);
    expect(until - before).toBeLessThan(30_000);
    expect(until - before).toBeGreaterThanOrEqual(2_000);
  });

  test("a spend limit (402 billing_error) is not retried and says so", async () => {
    api.script([fakeAnthropicErrors.spendLimit()]);
    const { client: c, opts } = waiting(storeWith(["anthropic:a", "api_key", KEY_A]), []);
    const err = await expectModelError(c.streamMessage(userMessage, opts));
    expect(err.kind).toBe("billing");
    expect(err.message).toContain("not retried");
    expect(api.messageRequests()).toHaveLength(1);
  });

  test("every known form of a setup-token rejection falls back to the API key", async () => {
    for (const rejection of [
      fakeAnthropicErrors.setupTokenRejected(),
      fakeAnthropicErrors.oauthNotSupported(),
      fakeAnthropicErrors.bareError(),
    ]) {
      api.script([rejection, textTurn("via key")]);
      const store = storeWith(["anthropic:manual", "token", TOKEN], ["anthropic:key", "api_key", KEY_A]);
      const msg = await client(store).streamMessage(userMessage);
      expect(msg.content[0]).toMatchObject({ text: "via key" });
      expect(openAuthStore(store.configDir).get("anthropic:manual")!.lastFailureReason).toBe("auth");
    }
  });

  test("errors carry the request id from the error body / header", async () => {
    api.script([fakeAnthropicErrors.authentication()]);
    const err = await expectModelError(client(storeWith(["anthropic:a", "api_key", KEY_A])).streamMessage(userMessage));
    expect(err.requestId).toMatch(/^req_fake_/);
  });
});

import { describe, expect, test } from "bun:test";
import { cooldownMs } from "./cooldown.ts";
import { maskSecret } from "./mask.ts";
import { validateApiKey, validateSetupToken } from "./validate.ts";

const GOOD_TOKEN = `sk-ant-oat01-${"Ab3_-".repeat(14)}`; // 83 chars

describe("setup-token validation", () => {
  test("accepts a full token, stripping whitespace and line wraps from pasting", () => {
    const r = validateSetupToken(`  ${GOOD_TOKEN.slice(0, 40)}\n${GOOD_TOKEN.slice(40)}\n`);
    expect(r).toEqual({ ok: true, value: GOOD_TOKEN });
  });

  test("rejects a wrong prefix, pointing API keys at the api-key command", () => {
    const r = validateSetupToken("sk-ant-api03-abcdefghijklmnopqrstuvwxyz");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toContain('starts with "sk-ant-oat01-"');
      expect(r.message).toContain("openassistant auth anthropic api-key");
    }
    const r2 = validateSetupToken("hello");
    expect(!r2.ok && r2.message).toContain("claude setup-token");
  });

  test("rejects a truncated token with its length and the minimum", () => {
    const r = validateSetupToken(GOOD_TOKEN.slice(0, 50));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toContain("50 characters");
      expect(r.message).toContain("at least 80");
      expect(r.message).not.toContain(GOOD_TOKEN.slice(0, 50)); // never echo the secret
    }
    expect(validateSetupToken("").ok).toBe(false);
  });
});

describe("api key validation", () => {
  test("accepts sk-ant- keys, warns on other shapes, refuses setup-tokens", () => {
    expect(validateApiKey("sk-ant-api03-abc")).toEqual({ ok: true, value: "sk-ant-api03-abc" });
    const odd = validateApiKey("some-proxy-key");
    expect(odd.ok && odd.warning).toContain('usually start with "sk-ant-"');
    const tok = validateApiKey(GOOD_TOKEN);
    expect(!tok.ok && tok.message).toContain("openassistant auth anthropic setup-token");
    expect(validateApiKey("  ").ok).toBe(false);
  });
});

describe("masking and backoff", () => {
  test("masks to prefix + last four", () => {
    expect(maskSecret("sk-ant-api03-aaaaaaaaaaaaaaaaaaaaabcd")).toBe("sk-ant-…abcd");
    expect(maskSecret(GOOD_TOKEN)).toBe(`sk-ant-…${GOOD_TOKEN.slice(-4)}`);
    expect(maskSecret("xyz0123456789wxyz")).toBe("xyz…wxyz");
    expect(maskSecret("short")).toBe("••••");
  });

  test("cooldown grows 1 → 5 → 25 → 60 minutes and a longer retry-after wins", () => {
    const min = 60_000;
    expect([1, 2, 3, 4, 5, 9].map((n) => cooldownMs(n) / min)).toEqual([1, 5, 25, 60, 60, 60]);
    expect(cooldownMs(1, 90_000)).toBe(90_000);
    expect(cooldownMs(2, 1_000)).toBe(5 * min);
    // An overload is short and never escalates, whatever the failure count.
    expect(cooldownMs(4, undefined, "overloaded")).toBe(30_000);
    expect(cooldownMs(1, 45_000, "overloaded")).toBe(45_000);
  });
});

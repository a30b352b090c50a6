import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSecretRegistry } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit";
import { resolveHttpToken } from "./token.ts";

describe("the HTTP token", () => {
  test("whether made, stored or configured (any length), it is registered for redaction when read", () => {
    const dir = makeTempDir("oa-http-token-");
    for (const configured of [undefined, undefined, "tok6!x"]) {
      const secrets = createSecretRegistry();
      const { token } = resolveHttpToken(dir, configured, secrets);
      expect(secrets.redact(`auth ${token} end`)).toBe("auth [redacted] end");
      expect([...secrets.sources()]).toEqual(["http-token"]);
    }
  });

  test("is made once (0600), printed once, then reused; a configured one wins", () => {
    const dir = makeTempDir("oa-http-token-");
    const made = resolveHttpToken(dir, undefined, createSecretRegistry());
    expect(made.created).toBe(true);
    expect(made.token).toMatch(/^oa_[A-Za-z0-9_-]{43}$/);
    expect(statSync(join(dir, "http-token")).mode & 0o777).toBe(0o600);
    expect(resolveHttpToken(dir, undefined, createSecretRegistry())).toEqual({
      token: made.token,
      created: false,
      path: join(dir, "http-token"),
    });
    expect(resolveHttpToken(dir, "from-config", createSecretRegistry())).toEqual({
      token: "from-config",
      created: false,
    });
  });

  test("a stored token cut short (a full disk) is refused with what to do, never used as a short token", () => {
    const dir = makeTempDir("oa-http-token-");
    const made = resolveHttpToken(dir, undefined, createSecretRegistry());
    writeFileSync(join(dir, "http-token"), made.token.slice(0, 9), { mode: 0o600 });
    expect(() => resolveHttpToken(dir, undefined, createSecretRegistry())).toThrow(
      /http-token is not an HTTP token made by the gateway.*Delete it/,
    );
    expect(readFileSync(join(dir, "http-token"), "utf8")).toBe(made.token.slice(0, 9));
  });
});

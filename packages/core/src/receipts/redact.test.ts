import { describe, expect, test } from "bun:test";
import { clipText, createRedactor, previewJson, redactDeep } from "./redact.ts";

describe("createRedactor", () => {
  test("replaces known secret values (length ≥ 6), longest first, and their JSON-escaped form", () => {
    const redact = createRedactor(["hunter2-password", "hunter2", "abc", 'quo"te\\secret']);
    expect(redact("login with hunter2-password now")).toBe("login with [redacted] now");
    expect(redact("pw=hunter2;")).toBe("pw=[redacted];");
    expect(redact("abc is too short to redact")).toBe("abc is too short to redact");
    const json = JSON.stringify({ token: 'quo"te\\secret' });
    expect(redact(json)).toBe('{"token":"[redacted]"}');
    expect(redact('raw quo"te\\secret')).toBe("raw [redacted]");
  });

  test("secrets containing regexp characters are matched literally", () => {
    const redact = createRedactor(["a.b*c+d(e)"]);
    expect(redact("x a.b*c+d(e) y aXbbbcd(e)")).toBe("x [redacted] y aXbbbcd(e)");
  });

  test("obvious token shapes are redacted even when not configured", () => {
    const redact = createRedactor([]);
    const oat = `sk-ant-oat01-${"A".repeat(90)}`;
    expect(redact(`token ${oat} end`)).toBe("token [redacted] end");
    expect(redact("key sk-ant-api03-abcdefghijklmnop_QR-st")).toBe("key [redacted]");
    const discord = `${"M".repeat(26)}.GhIjKl.${"x".repeat(38)}`;
    expect(redact(`DISCORD_TOKEN=${discord}`)).toBe("DISCORD_TOKEN=[redacted]");
    expect(redact("Authorization: Bearer eyJhbGciOi.J9x-y_z")).toBe("Authorization: Bearer [redacted]");
    expect(redact("plain text with a.dotted.name and sk-ant")).toBe("plain text with a.dotted.name and sk-ant");
  });
});

describe("previewJson", () => {
  test("serializes values and clips long output with a marker", () => {
    expect(previewJson({ a: 1, b: "x" }, 100)).toBe('{"a":1,"b":"x"}');
    const long = previewJson({ text: "y".repeat(500) }, 100);
    expect(long.length).toBeLessThanOrEqual(100);
    expect(long).toMatch(/… \(\+\d+ chars\)$/);
    expect(previewJson(undefined, 50)).toBe("undefined");
  });

  test("never throws: cycles, BigInt, functions, errors, throwing toJSON", () => {
    const o: Record<string, unknown> = { n: 10n, f: function named() {}, e: new Error("boom") };
    o.self = o;
    const shared = { k: 1 };
    expect(previewJson(o, 500)).toBe('{"n":"10n","f":"[function named]","e":{"name":"Error","message":"boom"},"self":"[circular]"}');
    // A repeated (non-circular) reference is not mistaken for a cycle.
    expect(previewJson({ a: shared, b: shared }, 500)).toBe('{"a":{"k":1},"b":{"k":1}}');
    expect(previewJson({ toJSON() { throw new Error("nope"); } }, 500)).toBe("[unserializable: nope]");
  });

  test("with a redactor, secrets are removed before clipping so no partial secret survives", () => {
    const secret = "S3CRET-VALUE-0123456789";
    const redact = createRedactor([secret]);
    const value = { pad: "p".repeat(20), key: secret };
    const naive = redact(clipText(JSON.stringify(value), 56));
    expect(naive).toContain("S3CRET"); // the trap: the clip split the secret
    const safe = previewJson(value, 56, redact);
    expect(safe).not.toContain("S3CRET");
  });
});

describe("redactDeep", () => {
  test("scrubs every string of a JSON-shaped value, nested and in keys, and keeps the shape", () => {
    const redact = createRedactor(["hunter2-password"]);
    const event = { type: "turn.done", text: "pw is hunter2-password", nested: [{ note: 'quoted "hunter2-password"' }], n: 3, ok: true };
    expect(redactDeep(event, redact)).toEqual({ type: "turn.done", text: "pw is [redacted]", nested: [{ note: 'quoted "[redacted]"' }], n: 3, ok: true });
    expect(redactDeep<Record<string, number>>({ "hunter2-password": 1 }, redact)).toEqual({ "[redacted]": 1 });
    // Nothing to scrub: the same object comes back.
    const clean = { a: "b" };
    expect(redactDeep(clean, redact)).toBe(clean);
    expect(redactDeep(undefined, redact)).toBeUndefined();
  });
});

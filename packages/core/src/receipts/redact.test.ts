import { describe, expect, test } from "bun:test";
import { clipText, createRedactor, previewJson, redactDeep, TOKEN_PATTERNS } from "./redact.ts";

describe("createRedactor", () => {
  test("replaces known secret values (length ≥ 4), longest first, and their JSON-escaped form", () => {
    const redact = createRedactor(["hunter2-password", "hunter2", "abc", 'quo"te\\secret']);
    expect(redact("login with hunter2-password now")).toBe("login with [redacted] now");
    expect(redact("pw=hunter2;")).toBe("pw=[redacted];");
    expect(redact("abc is too short to redact")).toBe("abc is too short to redact");
    const json = JSON.stringify({ token: 'quo"te\\secret' });
    expect(redact(json)).toBe('{"token":"[redacted]"}');
    expect(redact('raw quo"te\\secret')).toBe("raw [redacted]");
  });

  test("any registered value from 4 characters is redacted, whatever its first character; 3 characters are not", () => {
    const odd = ["Zq7#Lp", "-dash-led", " space-led", "ñandú-key", "k9!Q"];
    const redact = createRedactor([...odd, "abc"]);
    for (const s of odd) {
      expect(redact(`[${s}]`)).toBe("[[redacted]]");
      expect(redact(Buffer.from(`u:${s}`).toString("base64"))).toContain("[redacted]"); // inside a Basic credential
      expect(redact(`x=${encodeURIComponent(s)}&`)).toBe("x=[redacted]&");
      expect(redact(Buffer.from(s).toString("hex"))).toBe("[redacted]");
    }
    expect(redact("abc is a syllable, not a secret")).toBe("abc is a syllable, not a secret");
    // Four characters count by code point: two emoji are 4 UTF-16 units but only 2 characters.
    expect(createRedactor(["😀😀"])("😀😀")).toBe("😀😀");
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

describe("createRedactor: the token shapes' one-scan pre-test", () => {
  // The redactor without the pre-test: every shape's pattern on every text, as before it.
  const slow = (text: string) => {
    let out = text;
    for (const { re, replacement, when } of TOKEN_PATTERNS)
      if (!when || when.test(out)) out = out.replace(re, replacement);
    return out;
  };
  const fast = createRedactor([]);
  const oat = `sk-ant-oat01-${"A".repeat(90)}`;
  const discord = `${"M".repeat(26)}.GhIjKl.${"x".repeat(38)}`;
  const shapes = [
    `token ${oat} end`,
    "key sk-ant-api03-abcdefghijklmnop_QR-st",
    `DISCORD_TOKEN=${discord}`,
    "Authorization: Bearer eyJhbGciOi.J9x-y_z",
    "authorization: bearer abcdefgh12345678",
    "AUTHORIZATION:BEARER\tabcdefgh12345678",
    `{"headers":{"authorization":"Bearer ${"z".repeat(40)}"},"key":"${oat}","bot":"${discord}"}`,
  ];

  test("every shape the patterns redact is still redacted, as the pattern-by-pattern scan does", () => {
    for (const text of shapes) {
      expect(fast(text)).toBe(slow(text));
      expect(fast(text)).not.toBe(text);
      for (const { needs, re } of TOKEN_PATTERNS)
        if (new RegExp(re.source, re.flags.replace("g", "")).test(text)) expect(needs.test(text)).toBe(true);
    }
  });

  test("on generated text near and inside every shape, the redactor equals the pattern-by-pattern scan", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    // mulberry32: seeded, so a failure reproduces.
    let seed = 13;
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n) | 0;
    };
    const run = (n: number) => Array.from({ length: n }, () => alphabet[rand(alphabet.length)]).join("");
    // Pieces of each shape, whole and nearly whole (a Discord token's three parts at lengths around theirs).
    const parts: Array<() => string> = [
      ...["sk-ant-", "SK-ANT-", "sk-an", "Bearer ", "bearer\t", "BEARER  ", "Bear", ".", ". ", " ", ":", '"', "é"].map(
        (p) => () => p,
      ),
      () => `${run(21 + rand(10))}.${run(5 + rand(4))}.${run(25 + rand(6))}`,
      () => run(rand(40)),
      () => run(rand(40)),
    ];
    const seen = new Map<RegExp, number>(TOKEN_PATTERNS.map((p) => [p.re, 0]));
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      for (let k = rand(6) + 1; k > 0; k--) text += parts[rand(parts.length)]!();
      expect(fast(text)).toBe(slow(text));
      // Each shape's `needs` holds wherever the shape itself matches.
      for (const { re, needs } of TOKEN_PATTERNS)
        if (new RegExp(re.source, re.flags.replace("g", "")).test(text)) {
          seen.set(re, seen.get(re)! + 1);
          expect(needs.test(text)).toBe(true);
        }
    }
    // Every shape occurs often enough in the generated texts for the agreement to mean something.
    for (const count of seen.values()) expect(count).toBeGreaterThan(500);
  });
});

describe("createRedactor: the forms a secret leaks in", () => {
  // Plain, with URL-reserved characters, with a space, a quote and a backslash, and non-ASCII.
  const SECRETS = [
    "wx-live-7f3c9a1e5b2d4c6f8a0e",
    "p@ss/w0rd+&=?#!",
    "correct horse battery",
    'q"uo\\te-Sécrét-ключ-🔑',
  ];
  const redact = createRedactor(SECRETS);
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const b64url = (s: string) => Buffer.from(s).toString("base64url");
  const encodings: Array<[string, (s: string) => string]> = [
    ["raw", (s) => s],
    ["JSON-escaped", (s) => JSON.stringify(s).slice(1, -1)],
    ["JSON-escaped twice", (s) => JSON.stringify(JSON.stringify(s)).slice(1, -1)],
    [
      "JSON with ASCII-only escapes",
      (s) =>
        JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
    ],
    ["encodeURIComponent", encodeURIComponent],
    [
      "encodeURIComponent, lower-case hex",
      (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ],
    ["form encoding (URLSearchParams)", (s) => new URLSearchParams({ k: s }).toString().slice(2)],
    ["form encoding (encodeURIComponent, space as +)", (s) => encodeURIComponent(s).replace(/%20/g, "+")],
    [
      "every character percent-encoded",
      (s) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""),
    ],
    ["base64", b64],
    ["base64 without padding", (s) => b64(s).replace(/=+$/, "")],
    ["base64url", b64url],
    ["base64url with padding", (s) => b64(s).replace(/\+/g, "-").replace(/\//g, "_")],
    ["hex", (s) => Buffer.from(s).toString("hex")],
    ["HEX", (s) => Buffer.from(s).toString("hex").toUpperCase()],
  ];
  for (const [name, encode] of encodings) {
    test(`${name}: every configured secret is replaced, in any surrounding text`, () => {
      for (const secret of SECRETS) {
        const leaked = encode(secret);
        for (const text of [
          leaked,
          `error: request to https://api.example/?key=${leaked}&x=1 failed`,
          `{"header":"${leaked}"}`,
          `${leaked}\n${leaked}`,
        ]) {
          const out = redact(text);
          expect({ name, secret, leaked: out.includes(leaked) }).toEqual({ name, secret, leaked: false });
          // Replaced whole: no leftover piece of the encoded secret (e.g. its last base64 characters).
          // (Two encodings above keep the JSON string's own quotes around it; those quotes stay.)
          if (!/^\\?"/.test(leaked))
            expect({ name, secret, out }).toEqual({ name, secret, out: text.split(leaked).join("[redacted]") });
        }
      }
    });
  }

  test("base64 of a longer string holding the secret, at each of the 3 byte alignments, standard and url-safe", () => {
    for (const secret of SECRETS) {
      for (const prefix of ["", "u:", "us:", "user:", "Authorization: Basic x:"]) {
        for (const suffix of ["", "!", "!!", "&more=1"]) {
          const bytes = Buffer.from(prefix + secret + suffix);
          for (const enc of [bytes.toString("base64"), bytes.toString("base64url")]) {
            const out = redact(`Basic ${enc}`);
            expect(out).toContain("[redacted]");
            // What is left is at most the characters that mix the secret's bits with its neighbours'.
            expect(out.length).toBeLessThan(`Basic ${enc}`.length);
            expect(
              Buffer.from(out.replace("Basic ", "").replace("[redacted]", ""), "base64").includes(
                Buffer.from(secret.slice(1, -1)),
              ),
            ).toBe(false);
          }
        }
      }
    }
  });

  test("ordinary text, other base64 and other hex are left alone", () => {
    const text = `lorem ipsum ${Buffer.from("not a secret at all").toString("base64")} ${Buffer.from("nothing here").toString("hex")} %20%2F \\u0041 q=caf%C3%A9`;
    expect(redact(text)).toBe(text);
  });

  test("a secret holding a quote cannot break the JSON that redactDeep parses back", () => {
    const secret = 'ab","cd';
    const r = createRedactor([secret]);
    // The raw secret matches across the end of one string and the start of the next.
    const value = { x: "ab", cd: 1, y: `has ${secret} inside` };
    const out = redactDeep(value, r) as Record<string, unknown>;
    expect(JSON.stringify(out)).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(out.y).toBe("has [redacted] inside");
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
    expect(previewJson(o, 500)).toBe(
      '{"n":"10n","f":"[function named]","e":{"name":"Error","message":"boom"},"self":"[circular]"}',
    );
    // A repeated (non-circular) reference is not mistaken for a cycle.
    expect(previewJson({ a: shared, b: shared }, 500)).toBe('{"a":{"k":1},"b":{"k":1}}');
    expect(
      previewJson(
        {
          toJSON() {
            throw new Error("nope");
          },
        },
        500,
      ),
    ).toBe("[unserializable: nope]");
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
    const event = {
      type: "turn.done",
      text: "pw is hunter2-password",
      nested: [{ note: 'quoted "hunter2-password"' }],
      n: 3,
      ok: true,
    };
    expect(redactDeep(event, redact)).toEqual({
      type: "turn.done",
      text: "pw is [redacted]",
      nested: [{ note: 'quoted "[redacted]"' }],
      n: 3,
      ok: true,
    });
    expect(redactDeep<Record<string, number>>({ "hunter2-password": 1 }, redact)).toEqual({ "[redacted]": 1 });
    // Nothing to scrub: the same object comes back.
    const clean = { a: "b" };
    expect(redactDeep(clean, redact)).toBe(clean);
    expect(redactDeep(undefined, redact)).toBeUndefined();
  });
});

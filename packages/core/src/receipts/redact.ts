export const REDACTED = "[redacted]";

/**
 * Registered values shorter than this (in characters) are not replaced: from 4 characters (at
 * least 4 UTF-8 bytes) every form below is at least 4 characters long, and a given 4-character
 * string turns up by chance in random base64 about once in 17 million positions. At 3 the
 * embedded-base64 forms shrink to 3 characters, which occur every ~250 KB of any base64 blob,
 * and the raw value is a syllable of ordinary words. Any longer value is redacted, whatever its
 * shape or first character.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * Token shapes that are secret whether or not we were told about them. `needs` is a pattern every
 * match contains (checked once for all shapes, below); `when` is a cheap test the text must pass
 * first (the Discord pattern alone costs ~1 ms per 100 KB; its test ~4 µs).
 */
export const TOKEN_PATTERNS: ReadonlyArray<{ re: RegExp; replacement: string; needs: RegExp; when?: RegExp }> = [
  // Anthropic API keys and Claude setup-tokens: sk-ant-api03-…, sk-ant-oat01-…
  { re: /sk-ant-[A-Za-z0-9_-]{8,}/g, replacement: REDACTED, needs: /sk-ant-/ },
  // Discord bot tokens: base64(user id) . base64(timestamp) . hmac
  {
    re: /\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}/g,
    replacement: REDACTED,
    needs: /\.[A-Za-z0-9_-]{6,7}\./,
    when: /\.[A-Za-z0-9_-]{6,7}\./,
  },
  // Authorization headers and anything written like one.
  { re: /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, replacement: `Bearer ${REDACTED}`, needs: /bearer/i },
];

/**
 * Text that holds none of the shapes' `needs` (ignoring case, which only widens it) matches no
 * shape: one scan settles the usual text (tool inputs and outputs) instead of one per shape.
 */
const TOKEN_HINT = new RegExp(TOKEN_PATTERNS.map((p) => `(?:${p.needs.source})`).join("|"), "i");

/**
 * Returns a function that replaces every known secret value and obvious token shapes with
 * `[redacted]`. A secret is found in the forms it leaks in:
 * - raw, JSON-escaped (`\"`, `\\`, `\n`, `\u00e9`, also escaped twice), URL-encoded
 *   (encodeURIComponent, form encoding with `+`, any mix of encoded and plain characters, either
 *   hex case);
 * - base64, standard and url-safe, with or without padding, standalone or embedded in a longer
 *   base64 string at any of the 3 byte alignments (e.g. `Basic base64(user:secret)`);
 * - hex of its UTF-8 bytes, lower or upper case.
 * Fixed forms are one alternation of literals (a fast scan). Escaped and percent-encoded forms,
 * which may mix encoded and plain characters, need a per-character pattern; that slower scan runs
 * only on text holding a `%` or a `\`, which every such form does.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const literals = new Set<string>();
  const encoded: Array<{ pattern: string; length: number }> = [];
  for (const s of new Set(secrets)) {
    if (typeof s !== "string" || [...s].length < MIN_SECRET_LENGTH) continue;
    for (const form of fixedForms(s)) literals.add(form);
    encoded.push({ pattern: [...s].map(charForms).join(""), length: s.length });
  }
  // Longest first: alternation takes the first branch that matches, so a secret that contains
  // another (or a full base64 form that contains its own embedded core) is replaced whole.
  const fixedRe = alternation([...literals].sort((a, b) => b.length - a.length).map(escapeRegExp));
  const encodedRe = alternation(encoded.sort((a, b) => b.length - a.length).map((e) => e.pattern));
  return (text: string): string => {
    if (typeof text !== "string" || text.length === 0) return text;
    let out = text;
    if (encodedRe && (out.includes("%") || out.includes("\\"))) out = out.replace(encodedRe, REDACTED);
    if (fixedRe) out = out.replace(fixedRe, REDACTED);
    if (TOKEN_HINT.test(out))
      for (const { re, replacement, when } of TOKEN_PATTERNS)
        if (!when || when.test(out)) out = out.replace(re, replacement);
    return out;
  };
}

function alternation(patterns: string[]): RegExp | undefined {
  return patterns.length ? new RegExp(patterns.join("|"), "g") : undefined;
}

const utf8 = new TextEncoder();

/** The forms of a secret that are fixed strings. */
function fixedForms(secret: string): string[] {
  const bytes = Buffer.from(utf8.encode(secret));
  const json = JSON.stringify(secret).slice(1, -1);
  const uri = encodeURIComponent(secret);
  const forms = [
    secret,
    json,
    JSON.stringify(json).slice(1, -1),
    uri,
    uri.replace(/%20/g, "+"),
    new URLSearchParams({ s: secret }).toString().slice(2),
  ];
  for (const alphabet of ["base64", "base64url"] as const) {
    const b64 = bytes.toString(alphabet);
    forms.push(b64, b64.replace(/=+$/, ""));
    // Inside a longer base64 string the secret's bytes start at one of 3 alignments; the
    // characters that encode only its own bits are the same whatever surrounds it.
    for (let offset = 1; offset < 3; offset++) {
      const enc = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet);
      forms.push(enc.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6)));
    }
    forms.push(b64.slice(0, Math.floor((8 * bytes.length) / 6)));
  }
  const hex = bytes.toString("hex");
  forms.push(hex, hex.toUpperCase());
  return forms;
}

/**
 * One character of a secret: itself, or (after a `%` or `\\`) its percent-encoded UTF-8 bytes or
 * JSON escape (once or twice). Grouping the encoded forms behind one `[%\\]` check keeps the
 * per-position cost of the scan to about two comparisons per secret.
 */
function charForms(c: string): string {
  const encoded: string[] = [];
  const json = JSON.stringify(c).slice(1, -1);
  if (json !== c) encoded.push(json, JSON.stringify(json).slice(1, -1));
  const cp = c.codePointAt(0)!;
  // `\u00e9`: serializers that write ASCII only; `\/`: some JSON writers.
  if (cp < 0x20 || cp > 0x7e || c === '"' || c === "\\")
    encoded.push(
      unitsOf(c)
        .map((u) => `\\u${u}`)
        .join(""),
    );
  if (c === "/") encoded.push("\\/");
  const patterns = encoded.map((e) => hexClass(escapeRegExp(e)));
  patterns.push([...utf8.encode(c)].map((b) => `%${hexClass(b.toString(16).padStart(2, "0"))}`).join(""));
  const plain = c === " " ? "[ +]" : escapeRegExp(c);
  return `(?:${plain}|(?=[%\\\\])(?:${patterns.join("|")}))`;
}

function unitsOf(c: string): string[] {
  const units: string[] = [];
  for (let i = 0; i < c.length; i++) units.push(c.charCodeAt(i).toString(16).padStart(4, "0"));
  return units;
}

function hexClass(hex: string): string {
  return hex.replace(/[a-f]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

/**
 * A JSON preview that never throws: cycles, BigInt, functions, symbols and errors are rendered
 * readably, and the text is cut to `maxChars` with a marker of how much was left out.
 * Pass `redact` so secrets are removed BEFORE cutting (a cut can split a secret so that the
 * remaining prefix no longer matches).
 */
export function previewJson(value: unknown, maxChars: number, redact?: (text: string) => string): string {
  let text = safeStringify(value);
  if (redact) text = redact(text);
  return clipText(text, maxChars);
}

export function clipText(text: string, maxChars: number): string {
  const max = Math.max(1, Math.floor(maxChars));
  if (text.length <= max) return text;
  const marker = `… (+${text.length - max} chars)`;
  // Keep the marker inside the budget when the budget allows it.
  const keep = max > marker.length * 2 ? max - marker.length : max;
  return `${text.slice(0, keep)}${marker}`;
}

function safeStringify(value: unknown): string {
  if (value === undefined) return "undefined";
  const ancestors: object[] = [];
  try {
    const out = JSON.stringify(value, function (this: unknown, _key, v: unknown) {
      if (typeof v === "bigint") return `${v}n`;
      if (typeof v === "function") return `[function ${v.name || "anonymous"}]`;
      if (typeof v === "symbol") return v.toString();
      if (v instanceof Error) return { name: v.name, message: v.message };
      if (typeof v === "object" && v !== null) {
        // `this` is the holder of `v`: unwind to it, then `v` is circular if it is its own ancestor.
        while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
        if (ancestors.includes(v)) return "[circular]";
        ancestors.push(v);
      }
      return v;
    });
    return out === undefined ? String(value) : out;
  } catch (e) {
    return `[unserializable: ${e instanceof Error ? e.message : String(e)}]`;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Scrubs every string inside a JSON-shaped value (events, stored messages): one pass over its
 * JSON text, so a field added later cannot slip past a field-by-field list.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  const json = JSON.stringify(value);
  if (json === undefined) return value;
  const scrubbed = redact(json);
  if (scrubbed === json) return value;
  try {
    return JSON.parse(scrubbed) as T;
  } catch {
    // A secret holding a quote matched across a string's end: scrub string by string instead.
    return redactStrings(JSON.parse(json), redact) as T;
  }
}

/** Every string of a JSON value (keys included) passed through `redact`. */
function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, redact));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, redact(k), {
      value: redactStrings(v, redact),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

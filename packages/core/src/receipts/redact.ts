export const REDACTED = "[redacted]";

/** Secrets shorter than this are not replaced by value: they would shred ordinary text. */
const MIN_SECRET_LENGTH = 6;

/** Token shapes that are secret whether or not we were told about them. */
const TOKEN_PATTERNS: Array<[RegExp, string]> = [
  // Anthropic API keys and Claude setup-tokens: sk-ant-api03-…, sk-ant-oat01-…
  [/sk-ant-[A-Za-z0-9_-]{8,}/g, REDACTED],
  // Discord bot tokens: base64(user id) . base64(timestamp) . hmac
  [/\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}/g, REDACTED],
  // Authorization headers and anything written like one.
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, `Bearer ${REDACTED}`],
];

/**
 * Returns a function that replaces every known secret value (and its JSON-escaped form, as it
 * appears inside JSON previews) and obvious token shapes with `[redacted]`.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const variants = new Set<string>();
  for (const s of secrets) {
    if (typeof s !== "string" || s.length < MIN_SECRET_LENGTH) continue;
    variants.add(s);
    variants.add(JSON.stringify(s).slice(1, -1));
  }
  // Longest first, so a secret that contains another is replaced whole.
  const known = [...variants].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const knownRe = known.length ? new RegExp(known.join("|"), "g") : undefined;
  return (text: string): string => {
    if (typeof text !== "string" || text.length === 0) return text;
    let out = knownRe ? text.replace(knownRe, REDACTED) : text;
    for (const [re, replacement] of TOKEN_PATTERNS) out = out.replace(re, replacement);
    return out;
  };
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
  return scrubbed === json ? value : (JSON.parse(scrubbed) as T);
}

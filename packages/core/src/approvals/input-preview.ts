/**
 * What an operator reads before approving: every field of a tool's input, one line per field
 * path (`a.b[2].c: value`), each line cut on its own with "… 1,240 more characters" so a long
 * field never hides the ones after it. Field names and values show invisible and bidi
 * characters escaped. When even the names do not fit, the preview says how many fields it left
 * out; the full input travels with the request (`inputJson`) for surfaces to attach.
 */
import { redactDeep } from "../receipts/redact.ts";
import { ELLIPSIS, cutText, escapeInvisible } from "../text/index.ts";

/** One leaf of the input: its path and its value as JSON text (both raw, not yet escaped). */
export interface InputField {
  readonly path: string;
  readonly value: string;
}

export interface FlatInput {
  /** The first `maxFields` leaves, in input order. */
  readonly fields: readonly InputField[];
  /** How many leaves the input has in all. */
  readonly total: number;
}

/** Nesting deeper than this is one preview line: the JSON of the subtree at that depth. */
const MAX_DEPTH = 32;
/** Nesting deeper than this is not kept at all (a marker says so). */
const MAX_DATA_DEPTH = 1_000;
/** Leaves kept for rendering; no surface shows more lines than this. */
const MAX_FIELDS = 2_000;
/** A field name longer than this is cut (with a marker) so one name cannot take the whole budget. */
const MAX_PATH = 120;
/** Value characters every shown field gets before any field gets more. */
const MIN_VALUE = 32;
/** The full input kept with an approval (the attached `input.json`); 6 MB of UTF-8 at most, under Discord's 10 MiB per file. */
export const MAX_INPUT_JSON = 2_000_000;
/** The stored preview's room when the whole input is too large to keep. */
const LARGE_INPUT_PREVIEW = 3_500;
/** How an `inputJson` cut at MAX_INPUT_JSON ends. */
export const INPUT_TOO_LARGE = "the input is too large to keep whole";

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The leaves of a JSON-like value, in order. A non-object input is one field named `(input)`. */
export function flattenInput(value: unknown, maxFields = MAX_FIELDS): FlatInput {
  return flattenPlain(plainData(value), maxFields);
}

/** flattenInput for data that is already plain JSON (parsed, or made by plainData). */
function flattenPlain(value: unknown, maxFields = MAX_FIELDS): FlatInput {
  const fields: InputField[] = [];
  let total = 0;
  // Recursion stops at MAX_DEPTH, so the stack stays shallow whatever the input.
  const walk = (path: string, v: unknown, depth: number): void => {
    const children = v !== null && typeof v === "object" && depth < MAX_DEPTH ? childCount(v) : 0;
    if (children === 0) {
      total++;
      if (fields.length < maxFields) fields.push({ path: path || "(input)", value: JSON.stringify(v) ?? "undefined" });
      return;
    }
    if (fields.length >= maxFields) {
      total += countLeaves(v, depth);
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(`${path}[${i}]`, v[i], depth + 1);
      return;
    }
    for (const [k, item] of Object.entries(v as object)) {
      if (item !== undefined)
        walk(IDENTIFIER.test(k) ? (path ? `${path}.${k}` : k) : `${path}[${JSON.stringify(k)}]`, item, depth + 1);
    }
  };
  walk("", value, 0);
  return { fields, total };
}

function childCount(v: object): number {
  return Array.isArray(v) ? v.length : Object.keys(v).length;
}

function countLeaves(v: unknown, depth: number): number {
  if (v === null || typeof v !== "object" || depth >= MAX_DEPTH || childCount(v) === 0) return 1;
  let n = 0;
  for (const item of Array.isArray(v) ? v : Object.values(v)) if (item !== undefined) n += countLeaves(item, depth + 1);
  return n;
}

export interface RenderOptions {
  /** Characters the whole preview may take. */
  readonly maxChars: number;
  /** The line that says fields were left out (default: "… and N more fields not shown"). */
  readonly moreFields?: (hidden: number) => string;
}

/**
 * The preview as lines `path: value`, within `maxChars`. Every shown field gets its (escaped)
 * name and at least a prefix of its value; the rest of the budget goes to the fields that need
 * it, short ones whole first (max-min fair). Fields are left out, counted, only when even that
 * minimum does not fit.
 */
export function renderInputPreview(input: FlatInput, options: RenderOptions): string {
  const budget = Math.max(0, Math.floor(options.maxChars));
  const moreFields = options.moreFields ?? defaultMoreFields;
  const lines = input.fields.map((f) => ({
    name: `${cutText(escapeInvisible(f.path), MAX_PATH)}: `,
    value: escapeInvisible(f.value),
  }));
  const lineCost = (i: number, valueChars: number) => lines[i]!.name.length + valueChars + (i > 0 ? 1 : 0);
  const minValue = (i: number) => Math.min(lines[i]!.value.length, MIN_VALUE);

  // How many fields get at least their minimum, leaving room for the "more fields" line if needed.
  let shown = 0;
  let used = 0;
  while (shown < lines.length) {
    const cost = lineCost(shown, minValue(shown));
    const hiddenAfter = input.total - (shown + 1);
    const reserve = hiddenAfter > 0 ? moreFields(hiddenAfter).length + 1 : 0;
    if (used + cost + reserve > budget) break;
    used += cost;
    shown++;
  }
  const hidden = input.total - shown;
  const note = hidden > 0 ? moreFields(hidden) : "";
  if (shown === 0) return cutText(note, budget, { marker: ELLIPSIS });

  // Hand out what is left: every field still needing characters gets an equal share; a field
  // that needs less than its share is shown whole and its leftover is shared again.
  const alloc = lines.slice(0, shown).map((_, i) => minValue(i));
  let spare = budget - used - (note ? note.length + 1 : 0);
  let needy = alloc.map((_, i) => i).filter((i) => lines[i]!.value.length > alloc[i]!);
  while (spare > 0 && needy.length > 0) {
    const share = Math.max(1, Math.floor(spare / needy.length));
    const still: number[] = [];
    for (const i of needy) {
      if (spare <= 0) break;
      const give = Math.min(share, lines[i]!.value.length - alloc[i]!, spare);
      alloc[i]! += give;
      spare -= give;
      if (alloc[i]! < lines[i]!.value.length) still.push(i);
    }
    needy = still;
  }

  const out = lines.slice(0, shown).map((l, i) => l.name + cutText(l.value, alloc[i]!));
  if (note) out.push(note);
  return out.join("\n");
}

function defaultMoreFields(hidden: number): string {
  return `… and ${hidden.toLocaleString("en-US")} more field${hidden === 1 ? "" : "s"} not shown`;
}

/** What an approval request carries about its input. */
export interface ApprovalInput {
  /** The per-field preview (for stored records and plain-text views). */
  readonly inputPreview: string;
  /** The whole input as indented JSON, secrets redacted; cut (and marked) only past MAX_INPUT_JSON. */
  readonly inputJson: string;
}

/** The input of an approval request, with secrets removed before anything is cut or shown. */
export function approvalInput(input: unknown, redact: (text: string) => string, previewChars: number): ApprovalInput {
  const value = redactDeep(plainData(input), redact);
  const json = JSON.stringify(value, null, 2) ?? "undefined";
  if (json.length <= MAX_INPUT_JSON)
    return { inputPreview: renderInputPreview(flattenPlain(value), { maxChars: previewChars }), inputJson: json };
  // Surfaces cannot render fields from a cut JSON text: the stored preview is all they get, so it
  // gets a card's worth of room.
  return {
    inputPreview: renderInputPreview(flattenPlain(value), { maxChars: Math.max(previewChars, LARGE_INPUT_PREVIEW) }),
    inputJson: cutText(json, MAX_INPUT_JSON, {
      marker: (n) => `\n… ${n.toLocaleString("en-US")} more characters: ${INPUT_TOO_LARGE}`,
    }),
  };
}

/**
 * The per-field preview of an approval request within `maxChars`: rendered from its whole input
 * when that was kept, else its stored preview (older records, inputs too large to keep whole),
 * shown escaped and cut.
 */
export function requestInputPreview(
  request: { readonly inputPreview: string; readonly inputJson?: string },
  options: RenderOptions,
): string {
  if (request.inputJson !== undefined && !request.inputJson.endsWith(INPUT_TOO_LARGE))
    return previewInputJson(request.inputJson, options);
  return cutText(escapeInvisible(request.inputPreview || "(none)"), options.maxChars);
}

/** The per-field preview of a request's `inputJson`; text that is not JSON is shown escaped and cut. */
export function previewInputJson(inputJson: string, options: RenderOptions): string {
  let value: unknown;
  try {
    value = JSON.parse(inputJson);
  } catch {
    return cutText(escapeInvisible(inputJson), options.maxChars);
  }
  return renderInputPreview(flattenPlain(value), options);
}

/**
 * The input as plain JSON data, so that what is previewed, attached and redacted is exactly what
 * JSON.stringify writes, minus its losses: BigInt, Map, Set, functions, symbols and errors are
 * shown readably, cycles and nesting past MAX_DATA_DEPTH are replaced by a marker. (JSON.stringify
 * with a replacer is quadratic in nesting depth in Bun; this walk is linear.)
 */
function plainData(value: unknown, depth = 0, onPath = new Set<object>()): unknown {
  const v = toJsonValue(value);
  if (v === null || typeof v !== "object") return typeof v === "number" && !Number.isFinite(v) ? null : v;
  if (onPath.has(v)) return "[circular]";
  if (depth >= MAX_DATA_DEPTH) return `[nested deeper than ${MAX_DATA_DEPTH.toLocaleString("en-US")} levels: not kept]`;
  onPath.add(v);
  try {
    if (Array.isArray(v)) return v.map((item) => (item === undefined ? null : plainData(item, depth + 1, onPath)));
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      const plain = plainData(item, depth + 1, onPath);
      // defineProperty: a "__proto__" key stays an own field instead of setting the prototype.
      if (plain !== undefined)
        Object.defineProperty(out, k, { value: plain, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    onPath.delete(v);
  }
}

/** A value JSON can hold: what JSON.stringify would make of it, without losing BigInt and friends. */
function toJsonValue(v: unknown): unknown {
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "function") return `[function ${v.name || "anonymous"}]`;
  if (typeof v === "symbol") return v.toString();
  if (v instanceof Error) return { name: v.name, message: v.message };
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), x]));
  if (v instanceof Set) return [...v];
  if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") {
    try {
      return (v as { toJSON(): unknown }).toJSON();
    } catch {
      return "[unserializable]";
    }
  }
  return v;
}

/**
 * Parameter values serialized as the spec's `style` and `explode` say (OpenAPI 3.1.1 §4.8.12.4,
 * "Style Values" and "Style Examples"; the same rules as 3.0.x, whose table's `label` row was
 * corrected to RFC 6570 §3.2.5 in 3.0.4/3.1.1). Each value is percent-encoded (RFC 3986 §2.1)
 * before the style's delimiters are put between values, so a delimiter inside a value stays data.
 */
export type ParamStyle = "matrix" | "label" | "form" | "simple" | "spaceDelimited" | "pipeDelimited" | "deepObject";
export type ParamIn = "path" | "query" | "header" | "cookie";

export interface ParamSerialization {
  readonly style: ParamStyle;
  readonly explode: boolean;
  /** Query only: RFC 3986 reserved characters are sent as they are (`allowReserved: true`). */
  readonly allowReserved?: boolean;
  /** The parameter has `content` (one media type) instead of `schema`: its value is sent as JSON text. */
  readonly json?: boolean;
}

/** The defaults of §4.8.12.2: `form` for query and cookie, `simple` for path and header; `explode` is true for `form` only. */
export function serializationOf(
  where: ParamIn,
  p: { style?: unknown; explode?: unknown; allowReserved?: unknown; content?: unknown },
): ParamSerialization {
  const style = (
    typeof p.style === "string" ? p.style : where === "query" || where === "cookie" ? "form" : "simple"
  ) as ParamStyle;
  const explode = typeof p.explode === "boolean" ? p.explode : style === "form";
  return {
    style,
    explode,
    ...(p.allowReserved === true ? { allowReserved: true } : {}),
    ...(p.content && typeof p.content === "object" ? { json: true } : {}),
  };
}

/** Characters RFC 3986 §2.2 reserves, kept as they are for `allowReserved`. */
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encoder(allowReserved: boolean): (text: string) => string {
  if (!allowReserved)
    return (text) =>
      encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return (text) => [...text].map((c) => (RESERVED.test(c) ? c : encodeURIComponent(c))).join("");
}

/** A primitive as text; a nested object or array (which no style defines) as JSON. */
function text(value: unknown): string {
  if (value === null) return "null";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

type Shape =
  | { kind: "primitive"; value: string }
  | { kind: "array"; items: string[] }
  | { kind: "object"; entries: Array<[string, string]> };

function shapeOf(value: unknown, s: ParamSerialization): Shape {
  if (s.json) return { kind: "primitive", value: JSON.stringify(value) };
  if (Array.isArray(value)) return { kind: "array", items: value.map(text) };
  if (typeof value === "object" && value !== null)
    return {
      kind: "object",
      entries: Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, text(v)]),
    };
  return { kind: "primitive", value: text(value) };
}

/** A path parameter's text for its `{name}`, percent-encoded (the caller checks it stays one segment). */
export function serializePathValue(name: string, value: unknown, s: ParamSerialization): string {
  const e = encoder(false);
  const shape = shapeOf(value, s);
  const n = e(name);
  switch (s.style) {
    case "matrix":
      if (shape.kind === "primitive") return shape.value === "" ? `;${n}` : `;${n}=${e(shape.value)}`;
      if (shape.kind === "array")
        return s.explode ? shape.items.map((v) => `;${n}=${e(v)}`).join("") : `;${n}=${shape.items.map(e).join(",")}`;
      return s.explode
        ? shape.entries.map(([k, v]) => `;${e(k)}=${e(v)}`).join("")
        : `;${n}=${shape.entries.flatMap(([k, v]) => [e(k), e(v)]).join(",")}`;
    case "label":
      if (shape.kind === "primitive") return `.${e(shape.value)}`;
      if (shape.kind === "array") return `.${shape.items.map(e).join(s.explode ? "." : ",")}`;
      return s.explode
        ? `.${shape.entries.map(([k, v]) => `${e(k)}=${e(v)}`).join(".")}`
        : `.${shape.entries.flatMap(([k, v]) => [e(k), e(v)]).join(",")}`;
    default:
      return simple(shape, s.explode, e);
  }
}

function simple(shape: Shape, explode: boolean, e: (t: string) => string): string {
  if (shape.kind === "primitive") return e(shape.value);
  if (shape.kind === "array") return shape.items.map(e).join(",");
  return explode
    ? shape.entries.map(([k, v]) => `${e(k)}=${e(v)}`).join(",")
    : shape.entries.flatMap(([k, v]) => [e(k), e(v)]).join(",");
}

/** A query parameter as `name=value` pairs, already percent-encoded, joined by `&` into the query. */
export function serializeQuery(name: string, value: unknown, s: ParamSerialization): string[] {
  const e = encoder(s.allowReserved === true);
  const n = encoder(false)(name);
  const shape = shapeOf(value, s);
  if (shape.kind === "primitive") return [`${n}=${e(shape.value)}`];
  if (s.style === "deepObject") return deepPairs(n, value, e);
  const delimiter = s.style === "spaceDelimited" ? "%20" : s.style === "pipeDelimited" ? "%7C" : ",";
  if (shape.kind === "array")
    return s.explode ? shape.items.map((v) => `${n}=${e(v)}`) : [`${n}=${shape.items.map(e).join(delimiter)}`];
  return s.explode
    ? shape.entries.map(([k, v]) => `${encoder(false)(k)}=${e(v)}`)
    : [`${n}=${shape.entries.flatMap(([k, v]) => [e(k), e(v)]).join(delimiter)}`];
}

/**
 * `deepObject`: `name[key]=value`. The table defines one level of an object; deeper objects and
 * arrays (which it leaves undefined) nest the same way, arrays by index (`expand[0]=a`,
 * `items[0][price]=p`), as the APIs that use it (Stripe) and `qs`-style parsers read them.
 */
function deepPairs(prefix: string, value: unknown, e: (t: string) => string): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => deepPairs(`${prefix}%5B${i}%5D`, v, e));
  if (typeof value === "object" && value !== null)
    return Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .flatMap(([k, v]) => deepPairs(`${prefix}%5B${encoder(false)(k)}%5D`, v, e));
  return [`${prefix}=${e(text(value))}`];
}

/** A header parameter's value (`simple`, RFC 6570 §3.2.2), encoded like a URI component but for its delimiters. */
export function serializeHeader(value: unknown, s: ParamSerialization): string {
  // Header values are not URIs: only what a header may not carry (CR, LF, NUL, non-ASCII) is percent-encoded.
  const e = (t: string) => t.replace(/[^\x20-\x7e\t]/g, (c) => encodeURIComponent(c));
  return simple(shapeOf(value, s), s.explode, e);
}

/**
 * A cookie parameter as `name=value` pairs for one `Cookie` header (RFC 6265 §4.2.1), `form`
 * style: an exploded array or object is one pair per value. Values are percent-encoded: a cookie
 * value may not hold `;`, `,`, space or `"` (RFC 6265 §4.1.1).
 */
export function serializeCookie(name: string, value: unknown, s: ParamSerialization): string[] {
  const e = encoder(false);
  const shape = shapeOf(value, s);
  if (shape.kind === "primitive") return [`${name}=${e(shape.value)}`];
  if (shape.kind === "array")
    return s.explode ? shape.items.map((v) => `${name}=${e(v)}`) : [`${name}=${shape.items.map(e).join(",")}`];
  return s.explode
    ? shape.entries.map(([k, v]) => `${k}=${e(v)}`)
    : [`${name}=${shape.entries.flatMap(([k, v]) => [e(k), e(v)]).join(",")}`];
}

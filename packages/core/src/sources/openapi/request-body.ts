import { type ParamSerialization, serializeQuery } from "./serialize.ts";

/**
 * How an operation's request body is sent, chosen at load from the media types its `requestBody`
 * lists (OpenAPI 3.1.1 §4.8.13, §4.8.14, §4.8.15): plain JSON, so the parse cache keeps it.
 */
export type BodyKind = "json" | "form" | "multipart" | "text";

export interface BodyDescriptor {
  /** The `content-type` sent (for `*\/*`, `application/json` or `text/plain`, decided by the value). */
  readonly mediaType: string;
  readonly kind: BodyKind;
  /** `encoding` of a form or multipart body, by property name. */
  readonly encoding?: Record<string, BodyEncoding>;
  /** `*\/*`: a string is sent as text, anything else as JSON. */
  readonly any?: boolean;
}

export interface BodyEncoding {
  readonly contentType?: string;
  readonly style?: string;
  readonly explode?: boolean;
  readonly allowReserved?: boolean;
}

/** The media type without parameters, lower case (`Application/JSON; charset=utf-8` → `application/json`). */
export function essence(mediaType: string): string {
  return mediaType.split(";")[0]!.trim().toLowerCase();
}

/** JSON and every `+json` type (RFC 6839 §3.1): `application/merge-patch+json`, `application/json-patch+json`, `application/vnd.github+json`. */
export function isJson(mediaType: string): boolean {
  const e = essence(mediaType);
  return e === "application/json" || e.endsWith("+json") || e === "text/json";
}

/** A schema that is a string (or has no type and is binary): its value can be sent as the body's bytes. */
function stringSchema(schema: unknown, resolve: (n: unknown) => unknown): boolean {
  const s = resolve(schema) as { type?: unknown; format?: unknown } | undefined;
  if (!s) return true; // no schema: any value, sent as text
  return s.type === "string" || (Array.isArray(s.type) && s.type.includes("string")) || s.format === "binary";
}

export type BodyChoice =
  | { readonly ok: true; readonly body: BodyDescriptor; readonly schema: unknown }
  | { readonly ok: false; readonly reason: string };

/**
 * The media type the tool sends, in this order: JSON (`application/json`, then `+json`),
 * form-urlencoded, multipart, `text/*`, any other type whose schema is a string, `*\/*`. A body
 * none of them fits is a reason to leave the operation out (never a body dropped at call time).
 */
export function chooseBody(
  content: Record<string, { schema?: unknown; encoding?: unknown }>,
  resolve: (n: unknown) => unknown,
): BodyChoice {
  const types = Object.keys(content);
  const pick = (test: (e: string) => boolean) => types.find((t) => test(essence(t)));
  const encodingOf = (t: string) => {
    const enc = content[t]?.encoding;
    return enc && typeof enc === "object" ? { encoding: enc as Record<string, BodyEncoding> } : {};
  };
  const json = pick((e) => e === "application/json") ?? pick((e) => isJson(e));
  if (json) return { ok: true, body: { mediaType: essence(json), kind: "json" }, schema: content[json]?.schema };
  const form = pick((e) => e === "application/x-www-form-urlencoded");
  if (form)
    return {
      ok: true,
      body: { mediaType: essence(form), kind: "form", ...encodingOf(form) },
      schema: content[form]?.schema,
    };
  const multipart = pick((e) => e === "multipart/form-data" || e === "multipart/mixed");
  if (multipart) {
    const schema = content[multipart]?.schema;
    const encoding = { ...binaryParts(schema, resolve), ...encodingOf(multipart).encoding };
    return { ok: true, body: { mediaType: essence(multipart), kind: "multipart", encoding }, schema };
  }
  const text =
    pick((e) => e.startsWith("text/")) ??
    types.find((t) => !t.includes("*") && stringSchema(content[t]?.schema, resolve));
  if (text)
    return {
      ok: true,
      body: { mediaType: essence(text), kind: "text" },
      schema: content[text]?.schema ?? { type: "string" },
    };
  const any = pick((e) => e === "*/*" || e === "application/*");
  if (any)
    return { ok: true, body: { mediaType: essence(any), kind: "json", any: true }, schema: content[any]?.schema };
  return {
    ok: false,
    reason: `its request body (${types.join(", ") || "no media type"}) cannot be built from a tool's input: only JSON, form-urlencoded, multipart/form-data, text and string-schema bodies can`,
  };
}

/** A `format: binary` (or `contentMediaType`) property is a file part: its default content type (§4.8.15.2). */
function binaryParts(schema: unknown, resolve: (n: unknown) => unknown): Record<string, BodyEncoding> {
  const properties = (resolve(schema) as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const out: Record<string, BodyEncoding> = {};
  for (const [name, raw] of Object.entries(properties)) {
    const p = resolve(raw) as { format?: unknown; contentMediaType?: unknown } | undefined;
    const contentType =
      typeof p?.contentMediaType === "string"
        ? p.contentMediaType
        : p?.format === "binary"
          ? "application/octet-stream"
          : undefined;
    if (contentType) Object.defineProperty(out, name, { value: { contentType }, enumerable: true });
  }
  return out;
}

/** The body and its `content-type` for one call; `undefined` content-type lets fetch set multipart's boundary. */
export function buildBody(d: BodyDescriptor, value: unknown): { body: string | FormData; contentType?: string } {
  if (d.kind === "json" && d.any && typeof value === "string")
    return { body: value, contentType: "text/plain; charset=utf-8" };
  if (d.kind === "json") return { body: JSON.stringify(value), contentType: d.any ? "application/json" : d.mediaType };
  if (d.kind === "text")
    return { body: typeof value === "string" ? value : JSON.stringify(value), contentType: d.mediaType };
  const entries = Object.entries(objectValue(value, d.mediaType)).filter(([, v]) => v !== undefined);
  if (d.kind === "form") return { body: formBody(entries, d.encoding), contentType: d.mediaType };
  return { body: multipartBody(entries, d.encoding) };
}

function objectValue(value: unknown, mediaType: string): Record<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new Error(
    `a ${mediaType} body is an object of fields, got ${Array.isArray(value) ? "an array" : typeof value}`,
  );
}

/**
 * `application/x-www-form-urlencoded` (§4.8.15.1, RFC 1866 §8.2.1): each property by its
 * `encoding` style (default `form`, exploded); a property whose encoding names only a JSON
 * `contentType` is sent as JSON text.
 */
function formBody(entries: Array<[string, unknown]>, encoding: Record<string, BodyEncoding> = {}): string {
  const pairs: string[] = [];
  for (const [name, value] of entries) {
    const enc = Object.hasOwn(encoding, name) ? encoding[name]! : {};
    const styled = enc.style !== undefined || enc.explode !== undefined || enc.allowReserved !== undefined;
    if (!styled && enc.contentType && isJson(enc.contentType)) {
      pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(JSON.stringify(value))}`);
      continue;
    }
    // The query serializer's pairs are RFC 3986 percent-encoded, which form-urlencoded decoders read as well.
    pairs.push(...serializeQuery(name, value, styleOf(enc)));
  }
  return pairs.join("&");
}

function styleOf(enc: BodyEncoding): ParamSerialization {
  const style = (enc.style ?? "form") as ParamSerialization["style"];
  return { style, explode: enc.explode ?? style === "form", ...(enc.allowReserved ? { allowReserved: true } : {}) };
}

/** A styled field's `name=value` pairs, decoded again for a multipart body's text parts. */
function styledPairs(name: string, value: unknown, enc: BodyEncoding): Array<[string, string]> {
  return serializeQuery(name, value, styleOf(enc)).map((pair) => {
    const at = pair.indexOf("=");
    return [decodeURIComponent(pair.slice(0, at)), decodeURIComponent(pair.slice(at + 1))];
  });
}

/**
 * `multipart/form-data` (§4.8.15.2, RFC 7578): one part per property; an array of primitives is
 * one part per item; an object (or an array of objects) is a JSON part, or the encoding's
 * `contentType`; a `format: binary` string is a file part whose bytes are the string.
 */
function multipartBody(entries: Array<[string, unknown]>, encoding: Record<string, BodyEncoding> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of entries) {
    const enc = Object.hasOwn(encoding, name) ? encoding[name]! : {};
    if (enc.style !== undefined && typeof value === "object" && value !== null) {
      // OpenAPI 3.1.1 §4.8.15.1: a `style` applies to multipart too: one text part per serialized pair.
      for (const pair of styledPairs(name, value, enc)) form.append(pair[0], pair[1]);
      continue;
    }
    const contentType = enc.contentType;
    const values = Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null) ? value : [value];
    for (const v of values) {
      if (typeof v === "object" && v !== null)
        form.append(
          name,
          new Blob([JSON.stringify(v)], { type: contentType?.split(",")[0]?.trim() || "application/json" }),
        );
      else if (contentType && !contentType.startsWith("text/plain"))
        form.append(name, new Blob([String(v)], { type: contentType.split(",")[0]!.trim() }), name);
      else form.append(name, String(v));
    }
  }
  return form;
}

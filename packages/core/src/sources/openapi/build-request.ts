import { ownValue } from "../../tools/own-keys.ts";
import type { OperationDescriptor } from "./operations.ts";
import { buildBody } from "./request-body.ts";
import { fillPath, pathSegment, requestUrl } from "./request-url.ts";
import { serializeCookie, serializeHeader, serializePathValue, serializeQuery } from "./serialize.ts";

export interface BuiltRequest {
  readonly url: URL;
  readonly headers: Record<string, string>;
  /** Absent when the caller passed no body (or the operation has none). */
  readonly body?: string | FormData;
}

/**
 * One call's URL, headers and body, built from the tool's input as the spec says: each
 * parameter by its key and serialization (serialize.ts), the body in its media type
 * (request-body.ts). Only what the caller passed is sent: nothing is filled in.
 */
export function buildRequest(op: OperationDescriptor, baseUrl: string, input: Record<string, unknown>): BuiltRequest {
  const operation = `${op.method} ${op.path}`;
  const segments = new Map<string, string>();
  const query: string[] = [];
  const cookies: string[] = [];
  const headers: Record<string, string> = { accept: "application/json" };
  for (const p of op.params) {
    const value = ownValue(input, p.key);
    if (value === undefined) continue;
    if (p.in === "path") segments.set(p.name, pathSegment(p.name, serializePathValue(p.name, value, p), operation));
    else if (p.in === "query") query.push(...serializeQuery(p.name, value, p));
    else if (p.in === "header") headers[p.name.toLowerCase()] = serializeHeader(value, p);
    else cookies.push(...serializeCookie(p.name, value, p));
  }
  // Each path parameter fills one segment; the URL keeps the base URL's origin and path prefix.
  const url = requestUrl(baseUrl, fillPath(op.path, segments, operation), operation);
  if (query.length > 0) url.search = [url.search.slice(1), ...query].filter(Boolean).join("&");
  if (cookies.length > 0) headers.cookie = cookies.join("; ");
  const value = op.body ? ownValue(input, "body") : undefined;
  if (!op.body || value === undefined) return { url, headers };
  const built = buildBody(op.body, value);
  if (built.contentType) headers["content-type"] = built.contentType;
  return { url, headers, body: built.body };
}

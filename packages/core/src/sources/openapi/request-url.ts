/**
 * The URL of one operation's request, built so that it stays where the spec and the config say:
 * each path parameter fills exactly one segment, and the result keeps the base URL's origin and
 * path prefix. Anything else is refused with an error naming the parameter (the tool call fails;
 * nothing is sent).
 */
export class RequestUrlError extends Error {}

/** Percent-decoding applied until nothing changes (double-encoded `%252e` included), at most 5 times: the value arrives encoded once more by serialize.ts. */
function decodedForms(value: string): string[] {
  const forms = [value];
  let current = value;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      next = current.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    }
    if (next === current) break;
    forms.push(next);
    current = next;
  }
  return forms;
}

/**
 * A path parameter's serialized text (serialize.ts: already percent-encoded, so `/`, `\\`, `?`,
 * `#`, `%` in a value are data), refused when empty or when it is, in any decoded form, a dot
 * segment or contains one (`..`, `.`, `%2e%2e`, `..%2f`, `..\\`): a server that decodes before
 * routing must not climb out of the operation's path either.
 */
export function pathSegment(name: string, encoded: string, operation: string): string {
  if (encoded === "") throw new RequestUrlError(`${operation}: path parameter "${name}" is empty`);
  for (const form of decodedForms(encoded))
    if (form.split(/[/\\]/).some((part) => part === "." || part === ".."))
      throw new RequestUrlError(
        `${operation}: path parameter "${name}" (${JSON.stringify(safeDecode(encoded).slice(0, 80))}) would leave its path segment (a "." or ".." segment, also percent-encoded); pass the name of one item`,
      );
  return encoded;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Fills the operation's path template; a `{name}` without a value is refused. */
export function fillPath(template: string, values: ReadonlyMap<string, string>, operation: string): string {
  return template.replace(/\{([^}]*)\}/g, (_m, name: string) => {
    const segment = values.get(name);
    if (segment === undefined) throw new RequestUrlError(`${operation}: path parameter "${name}" is missing`);
    return segment;
  });
}

/**
 * `base` + `path` (+ nothing else): refused unless the result has the base's origin and stays
 * under its path (a spec path such as `/../admin` is someone else's too).
 */
export function requestUrl(base: string, path: string, operation: string): URL {
  const root = new URL(base);
  const prefix = root.pathname.replace(/\/$/, "");
  const url = new URL(root.href);
  url.pathname = `${prefix}${path}`;
  url.hash = "";
  if (url.origin !== root.origin || !(url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)))
    throw new RequestUrlError(
      `${operation}: the request URL ${url.origin}${url.pathname} is outside the base URL ${root.origin}${prefix || "/"}`,
    );
  return url;
}

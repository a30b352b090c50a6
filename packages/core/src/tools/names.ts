/**
 * Names from outside (OpenAPI operation ids, MCP tool names) as dotted paths the model can call:
 * `issues/list-for-repo` → `issues.listForRepo`, `get-sum` → `getSum`. Segments that would still
 * not be identifiers get a `_` prefix; names JavaScript treats specially get a `_` suffix.
 */
export function callableName(raw: string): string {
  return raw
    .split(/[/.]+/)
    .filter(Boolean)
    .map((seg) => {
      const camel = seg
        .replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))
        .replace(/^[A-Z]/, (c) => c.toLowerCase());
      const safe = /^[A-Za-z_][A-Za-z0-9_]*$/.test(camel) ? camel : `_${camel.replace(/[^A-Za-z0-9_]/g, "")}`;
      return safe === "then" || safe === "__proto__" ? `${safe}_` : safe;
    })
    .join(".");
}

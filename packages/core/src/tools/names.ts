/** One segment of a tool path: a JavaScript identifier. The only naming rule; everything else asks here. */
const SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Names that are valid identifiers but break JavaScript semantics when they name a tool or group:
 * a `then` makes its parent a thenable (`await tools.ns` or `return tools.ns` calls it and never
 * settles); `__proto__` sets a prototype instead of a property in object literals and on plain
 * objects.
 */
export const RESERVED_TOOL_NAMES: Readonly<Record<string, string>> = {
  then: "it would make its parent a thenable, so awaiting or returning that group calls the tool",
  // Computed: a literal `__proto__:` key would set this object's prototype, the very trap it names.
  ["__proto__"]: "it sets an object's prototype instead of a property in JavaScript",
};

/**
 * Top-level names only the gateway gives out: `$search` and `$describe` (discovery) and whatever
 * else it adds beside the loaded tools start with `$`, which no configured source can.
 */
export function isBuiltinNamespace(id: string): boolean {
  return id.startsWith("$");
}

export function isToolSegment(name: string): boolean {
  return SEGMENT.test(name);
}

/** Why a dotted tool path cannot be called from a snippet, or undefined when it can. */
export function toolPathProblem(path: string): "not-identifier" | "reserved" | undefined {
  const segments = path.split(".");
  if (!segments.every(isToolSegment)) return "not-identifier";
  if (segments.some((s) => Object.hasOwn(RESERVED_TOOL_NAMES, s))) return "reserved";
  return undefined;
}

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
      return Object.hasOwn(RESERVED_TOOL_NAMES, safe) ? `${safe}_` : safe;
    })
    .join(".");
}

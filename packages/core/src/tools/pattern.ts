const cache = new Map<string, RegExp>();

/**
 * Tool path patterns: `*` matches within one path segment, `**` across segments.
 * `calendar.*` matches `calendar.create`; `calendar.**` also matches `calendar.events.create`.
 */
export function toolPatternToRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    const body = pattern
      .split("**")
      .map((part) => part.split("*").map(escapeRegExp).join("[^.]*"))
      .join(".*");
    re = new RegExp(`^${body}$`);
    cache.set(pattern, re);
  }
  return re;
}

export function matchToolPattern(pattern: string, path: string): boolean {
  return toolPatternToRegExp(pattern).test(path);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

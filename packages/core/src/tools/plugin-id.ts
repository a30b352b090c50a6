import { isToolSegment } from "./names.ts";

/** A plugin id names the top-level group of its tools, so it follows the tool segment rule. */
export function isValidId(id: string): boolean {
  return isToolSegment(id);
}

/** `github-issues` → `github_issues`; `openassistant-plugin-calendar` / `@acme/oa-plugin-x` → `calendar` / `x`. */
export function normalizeId(name: string): string {
  let s = name.replace(/^@[^/]+\//, "").replace(/^(openassistant-plugin-|oa-plugin-|openassistant-)/, "");
  s = s.replace(/[^A-Za-z0-9_$]/g, "_");
  if (/^[0-9]/.test(s)) s = `_${s}`;
  return s || "_";
}

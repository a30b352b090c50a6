const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function isValidId(id: string): boolean {
  return IDENT.test(id);
}

/** `github-issues` → `github_issues`; `openassistant-plugin-calendar` / `@acme/oa-plugin-x` → `calendar` / `x`. */
export function normalizeId(name: string): string {
  let s = name.replace(/^@[^/]+\//, "").replace(/^(openassistant-plugin-|oa-plugin-|openassistant-)/, "");
  s = s.replace(/[^A-Za-z0-9_$]/g, "_");
  if (/^[0-9]/.test(s)) s = `_${s}`;
  return s || "_";
}

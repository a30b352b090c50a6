import { ownValue } from "./own-keys.ts";
import { matchToolPattern } from "./pattern.ts";

/**
 * `config.tools`: keys are tool paths, entry ids (covering everything under them) or patterns.
 * The most specific matching key decides (longest key without wildcards counts most); unmatched
 * tools are enabled.
 */
export function isToolEnabled(path: string, rules: Readonly<Record<string, boolean>>): boolean {
  let best: { score: number; value: boolean } | undefined;
  for (const [key, value] of Object.entries(rules)) {
    const hit = key === path || path.startsWith(`${key}.`) || (key.includes("*") && matchToolPattern(key, path));
    if (!hit) continue;
    const score = (key === path ? 10_000 : 0) + key.replace(/\*/g, "").length * 2 + (key.includes("*") ? 0 : 1);
    if (!best || score >= best.score) best = { score, value };
  }
  return best?.value ?? true;
}

/** An entry can be skipped without importing it when its id is switched off and no key re-enables anything under it. */
export function isEntryDisabled(id: string, rules: Readonly<Record<string, boolean>>): boolean {
  if (ownValue(rules, id) !== false) return false;
  return !Object.entries(rules).some(
    ([k, v]) =>
      v && k !== id && (k.startsWith(`${id}.`) || (k.includes("*") && matchToolPattern(k.split(".")[0]!, id))),
  );
}

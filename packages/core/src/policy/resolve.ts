import type { PolicyMode } from "../receipts/types.ts";
import { matchToolPattern } from "../tools/pattern.ts";
import type { PolicyRule } from "./types.ts";

export interface ResolvedPolicy {
  readonly mode: PolicyMode;
  /** The operator rule that decided, absent when the tool's own mode applies. */
  readonly rule?: PolicyRule;
}

/**
 * Effective policy for one call: the first matching operator rule wins, else the tool's own mode.
 * A tool that must always ask (`alwaysAsk`) can be denied by a rule but never made automatic.
 */
export function resolvePolicy(
  toolPath: string,
  toolApproval: "auto" | "required",
  rules: readonly PolicyRule[],
  alwaysAsk = false,
): ResolvedPolicy {
  for (const rule of rules) {
    if (!matchToolPattern(rule.match, toolPath)) continue;
    if (alwaysAsk && rule.mode === "auto") continue;
    return { mode: rule.mode, rule };
  }
  return { mode: alwaysAsk ? "required" : toolApproval };
}

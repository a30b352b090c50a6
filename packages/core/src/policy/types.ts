import type { PolicyMode } from "../receipts/types.ts";

/** Operator override by tool path pattern (glob: `*` within a segment, `**` across). First match wins. */
export interface PolicyRule {
  readonly match: string;
  readonly mode: PolicyMode;
  readonly reason?: string;
}

export type { PolicyRule } from "./types.ts";
export { resolvePolicy, type ResolvedPolicy } from "./resolve.ts";

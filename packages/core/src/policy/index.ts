export type { PolicyRule } from "./types.ts";
export { resolvePolicy } from "./resolve.ts";

/** Text helpers shared by the declarations and their renderer (no TypeScript here). */
export function escapeComment(text: string): string {
  return text.replaceAll("*/", "*\\/");
}

/** Placeholder prefix of helper type names for recursive schemas; renamed per mount path at assembly. */
export const AUX = "__OA_AUX_";

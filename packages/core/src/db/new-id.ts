/** Time-ordered ids with a readable prefix: `run_01a2…`, `call_…`, `turn_…`, `ses_…`. */
export function newId(prefix: string): string {
  // The UUIDv7's 32 hex digits without its dashes (8-4-4-4-12); slices cost less than replaceAll.
  const u = Bun.randomUUIDv7();
  return `${prefix}_${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}`;
}

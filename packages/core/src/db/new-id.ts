/** Time-ordered ids with a readable prefix: `run_01a2…`, `call_…`, `turn_…`, `ses_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${Bun.randomUUIDv7().replaceAll("-", "")}`;
}

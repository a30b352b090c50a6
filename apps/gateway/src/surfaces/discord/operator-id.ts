/**
 * Decisions made in Discord are recorded as `discord:<userId>` (in receipts and rules), so an audit
 * can tell surfaces apart. Rendering turns them back into mentions.
 */
export function discordOperatorId(userId: string): string {
  return `discord:${userId}`;
}

/** `discord:123` → `<@123>`; `timeout`, `rule:…`, `system` and other surfaces' ids stay readable text. */
export function renderOperator(by: string | undefined): string {
  if (!by) return "an operator";
  const m = /^discord:(\d+)$/.exec(by);
  if (m) return `<@${m[1]}>`;
  if (/^\d{15,21}$/.test(by)) return `<@${by}>`;
  if (by === "timeout") return "timeout";
  if (by.startsWith("rule:")) return `rule \`${by.slice(5)}\``;
  return `\`${by.replace(/`/g, "'")}\``;
}

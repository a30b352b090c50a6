/**
 * A secret shown for recognition only: `sk-ant-…abcd`. Short or unknown-shaped secrets reveal
 * less. Safe for logs and listings.
 */
export function maskSecret(secret: string): string {
  const s = secret.trim();
  if (s.length < 16) return "••••";
  const prefix = s.startsWith("sk-ant-") ? "sk-ant-" : s.slice(0, 3);
  return `${prefix}…${s.slice(-4)}`;
}

import type { CallProgress } from "@openassistant/core/codemode";

/** `tools.x.y: 3/10 message`, what a live status shows of a running call's progress (the runner cut the message and showed its invisible characters). */
export function progressNote(p: CallProgress): string {
  const amount = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
  return `tools.${p.toolPath}: ${amount}${p.message ? ` ${p.message}` : ""}`;
}

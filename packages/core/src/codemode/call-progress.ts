import type { ToolProgress } from "@openassistant/sdk";
import { cutText, ELLIPSIS } from "../text/cut.ts";
import { escapeInvisible } from "../text/escape.ts";
import type { CallProgress } from "./run-types.ts";

/** Characters of a progress message a surface shows (the message comes from the tool, e.g. an MCP server). */
export const PROGRESS_MESSAGE_CHARS = 200;

/**
 * A call's `ctx.progress`: each report goes to `onProgress` with the call's id and path, its
 * message redacted, cut and with invisible characters shown; reports that are not finite numbers,
 * or arrive after the call settled, are dropped.
 */
export function progressReporter(
  callId: string,
  toolPath: string,
  ctx: { readonly onProgress?: (p: CallProgress) => void; readonly redact: (text: string) => string },
  settled: () => boolean,
): (update: ToolProgress) => void {
  return (update) => {
    if (settled() || !ctx.onProgress) return;
    const progress = Number(update?.progress);
    if (!Number.isFinite(progress)) return;
    const total = Number(update.total);
    const raw = typeof update.message === "string" ? update.message : "";
    const message = raw
      ? escapeInvisible(cutText(ctx.redact(raw), PROGRESS_MESSAGE_CHARS, { marker: ELLIPSIS }))
      : undefined;
    ctx.onProgress({
      callId,
      toolPath,
      progress,
      ...(Number.isFinite(total) && update.total !== undefined ? { total } : {}),
      ...(message ? { message } : {}),
    });
  };
}

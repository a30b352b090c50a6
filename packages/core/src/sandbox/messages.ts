/** The texts of sandbox errors: each says what happened and what to do about it. */
const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

export const sandboxErrorMessages = {
  cpu: (ms: number) =>
    `The snippet used more than its ${ms} ms CPU budget inside the sandbox (waiting for tools does not count). Look for an endless loop or do less work per run.`,
  watchdog: (ms: number) =>
    `The snippet used more than its ${ms} ms CPU budget and stopped responding (stuck inside a built-in such as sort on a huge array), so its sandbox process was killed. Work on less data per run.`,
  wall: (ms: number) =>
    `The run took longer than its ${ms} ms wall-clock limit (tool calls and approvals included) and was stopped.`,
  memory: (bytes: number) => `The snippet ran out of memory (limit ${mb(bytes)}). Process less data at once.`,
  stack: "Maximum call stack size exceeded (runaway recursion?). Use a loop instead of deep recursion.",
  deadlock:
    "The snippet awaited a promise that can never settle: no tool call or other work is pending. Only tool calls and your own resolved promises can be awaited; timers (setTimeout) are not available.",
  output: (bytes: string, max: number) =>
    `The return value is ${bytes} bytes as JSON, over the ${max}-byte limit. Return a smaller summary (or log less).`,
  toolCalls: (max: number) =>
    `The snippet made more than ${max} tool calls in one run. Batch the work or split it across runs.`,
  logsTruncated: (max: number) => `[console output truncated: over the ${max}-byte limit]`,
  pendingCalls: (unsent: readonly string[], sent: readonly string[]) => {
    const list = (paths: readonly string[]) => {
      const shown = paths
        .slice(0, 5)
        .map((p) => `tools.${p}`)
        .join(", ");
      return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown;
    };
    const parts: string[] = [];
    if (unsent.length) parts.push(`${unsent.length} never started and did not run (${list(unsent)})`);
    if (sent.length)
      parts.push(`${sent.length} still running were left to finish but their results are lost (${list(sent)})`);
    return `The run ended with tool calls not awaited: ${parts.join("; ")}. Await every tool call (e.g. with Promise.all) before returning.`;
  },
  aborted: "The run was aborted.",
  poolClosed: "The run was stopped because the sandbox pool was closed.",
  crash: (detail: string) => `The sandbox failed (${detail}). The run was stopped; retrying may help.`,
};

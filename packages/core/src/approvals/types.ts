/** A pending request for an operator's decision, persisted before anyone is asked. */
export interface ApprovalRequest {
  /** Same as the tool call id; surfaces build deterministic button ids from it. */
  readonly callId: string;
  readonly runId: string;
  readonly sessionId?: string;
  readonly toolPath: string;
  readonly description: string;
  /** Every field of the input, each cut on its own, secrets redacted (approvals/input-preview.ts). */
  readonly inputPreview: string;
  /**
   * The whole input as JSON, secrets redacted, for surfaces to show or attach in full and to
   * render their own per-field preview from (`previewInputJson`). Absent on older records.
   */
  readonly inputJson?: string;
  /**
   * The tool's own summary of this call (its `previewInput`: e.g. a file's SHA-256 and diff),
   * shown above the fields; secrets redacted, invisible characters for the surface to escape.
   */
  readonly summary?: string;
  /**
   * Files the tool asks to show whole (its `previewFiles`: e.g. the source a call writes and its
   * diff), secrets redacted; Discord attaches them, the terminal prints them. Absent when none.
   */
  readonly files?: ReadonlyArray<ApprovalFile>;
  /** The model's code that made the call (for the card). */
  readonly code?: string;
  /** Who asked the assistant (user id / name on the surface). */
  readonly requestedBy?: string;
  readonly requestedAt: number;
  readonly expiresAt: number;
}

/** A file shown whole with an approval request (see `ApprovalRequest.files`). */
export interface ApprovalFile {
  readonly name: string;
  readonly text: string;
}

export interface ApprovalDecision {
  readonly decision: "approved" | "denied";
  /** Operator id, `timeout`, `rule:<id>`, `system`. */
  readonly by: string;
  /** For denials: reaches the model. */
  readonly reason?: string;
  /** "Approve always": creates a standing rule for this tool path. */
  readonly always?: { readonly scope: "session" | "global"; readonly ttlMs?: number };
}

/** Given to the runner; resolves when decided. Must resolve (deny) on timeout or abort, never hang. */
export type RequestApproval = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

import type { PinnedAbility } from "./types.ts";

export type AbilityRunStatus = "running" | "completed" | "failed" | "denied" | "cancelled";
export type StepStatus = "pending" | "running" | "completed" | "skipped" | "failed" | "denied" | "cancelled";

/** One step of a run: where it is, the code-mode run that does its work (its receipts), its output. */
export interface StepState {
  readonly id: string;
  status: StepStatus;
  /** The code-mode run of this step (its receipts are under this id); chosen and stored before it starts. */
  runId?: string;
  output?: unknown;
  error?: string;
  startedAt?: number;
  endedAt?: number;
}

/** An ability run as the store keeps it: everything a restart needs to go on. */
export interface AbilityRun {
  readonly id: string;
  /** The definition pinned at start (steps and hash): edits apply to new runs only. */
  readonly ability: PinnedAbility;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly sessionId?: string;
  readonly requestedBy?: string;
  /** The run that started this one from an `ability` step. */
  readonly parentRunId?: string;
  status: AbilityRunStatus;
  currentStep?: string;
  error?: string;
  readonly steps: StepState[];
  readonly startedAt: number;
  updatedAt: number;
}

/** Where ability runs are kept (SQLite: `sqlite/store.ts`). Each save replaces the run's record whole. */
export interface AbilityRunStore {
  save(run: AbilityRun): Promise<void>;
  get(id: string): Promise<AbilityRun | undefined>;
  /** Newest first. */
  list(filter?: {
    readonly status?: AbilityRunStatus;
    readonly sessionId?: string;
    readonly limit?: number;
  }): Promise<AbilityRun[]>;
}

/** A finished run's status. */
export function isFinished(run: Pick<AbilityRun, "status">): boolean {
  return run.status !== "running";
}

/**
 * Which gateway drives a run, when several share one database (`postgres/run-locks.ts`). Absent
 * on SQLite: one gateway owns the file, and drives every run it finds.
 */
export interface AbilityRunClaims {
  /** True when this gateway now holds the run (and may drive it); false while another one does. */
  take(runId: string): Promise<boolean>;
  release(runId: string): Promise<void>;
  close(): Promise<void>;
}

import type { ContentBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";

/** Per-session overrides of the configured model settings. */
export interface SessionSettings {
  readonly model?: string;
  readonly maxTokens?: number;
  /** Pin an auth profile for this session (seed 001 §8: explicit override first). */
  readonly profile?: string;
}

export interface Session {
  readonly id: string;
  readonly surface: string;
  /** e.g. `discord:dm:<user>` or `terminal`. */
  readonly key: string;
  readonly createdAt: number;
  readonly settings: SessionSettings;
}

export interface StoredMessage {
  readonly seq: number;
  readonly role: "user" | "assistant";
  readonly content: ContentBlockParam[];
  readonly turnId: string | null;
  readonly runIds: readonly string[];
  readonly at: number;
}

export interface NewMessage {
  readonly role: "user" | "assistant";
  readonly content: ContentBlockParam[];
  readonly runIds?: readonly string[];
}

export interface TurnRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly userId: string | null;
  readonly startedAt: number;
  readonly finishedAt: number | null;
  readonly stopReason: string | null;
  readonly unverified: boolean | null;
  readonly runIds: readonly string[];
  /** The user's message (redacted, cut to TURN_TEXT_CAPS); null for turns recorded before it was kept. */
  readonly request: string | null;
  readonly model: string | null;
  /** The final answer (redacted, cut); null while the turn runs. */
  readonly answer: string | null;
}

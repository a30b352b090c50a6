import type { NewMessage, Session, SessionSettings, StoredMessage, TurnRecord } from "./types.ts";

/** What a turn row keeps of the request and the answer (UTF-16 code units; the messages keep them whole). */
export const TURN_TEXT_CAPS = { request: 4_000, answer: 8_000, model: 128 } as const;

/**
 * Conversations: sessions keyed by their surface's key, their stored messages, turns and turn
 * events. A backend is one folder (`sessions/sqlite/` today);
 * `apps/gateway/test/contracts/session-store.ts` is the suite it must pass.
 */
export interface SessionStore {
  getOrCreate(key: string, surface: string): Promise<Session>;
  get(id: string): Promise<Session | undefined>;
  updateSettings(id: string, settings: SessionSettings): Promise<void>;
  /**
   * Merges per-session overrides into the stored ones (the next turn of the session uses them);
   * a key set to undefined or null is cleared. Returns the settings now stored.
   */
  setSettings(
    id: string,
    patch: { readonly [K in keyof SessionSettings]?: SessionSettings[K] | null },
  ): Promise<SessionSettings>;
  history(sessionId: string): Promise<StoredMessage[]>;
  /**
   * The history the model is sent: every message except those of turns that ended in a refusal.
   * The Claude docs say to reset the context after `stop_reason: "refusal"` (remove the turn that
   * triggered it, or the model keeps refusing); the rows stay stored, only the context leaves them out.
   */
  modelHistory(sessionId: string): Promise<StoredMessage[]>;
  /** Appends in one transaction, so a turn's exchange is stored whole or not at all. */
  appendMessages(sessionId: string, turnId: string | null, messages: readonly NewMessage[]): Promise<void>;
  /** `request` (the user's message, already redacted) and `model` are kept for the console, cut to TURN_TEXT_CAPS. */
  startTurn(turn: { id: string; sessionId: string; userId?: string; request?: string; model?: string }): Promise<void>;
  /** `answer` (the final text, already redacted) is cut to TURN_TEXT_CAPS. */
  finishTurn(
    id: string,
    result: {
      stopReason: string;
      unverified: boolean;
      runIds: readonly string[];
      usage?: unknown;
      answer?: string;
      /** The model that answered (replaces the one asked, when given). */
      model?: string;
    },
  ): Promise<void>;
  turns(sessionId: string): Promise<TurnRecord[]>;
  /** #30: the turns of every session that started and never finished (a kill cut them off), oldest first. */
  unfinishedTurns(): Promise<TurnRecord[]>;
  /** Records a model-side event of a turn (e.g. `profile.rotated`); append-only. */
  recordTurnEvent(turnId: string | undefined, type: string, data: unknown): Promise<void>;
  turnEvents(filter?: {
    turnId?: string;
    type?: string;
  }): Promise<Array<{ turnId: string | null; type: string; data: unknown; at: number }>>;
}

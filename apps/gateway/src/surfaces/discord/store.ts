/**
 * The Discord surface's own state, as a port: which messages show each approval card (so cards
 * can be edited after a decision, a timeout or a restart) and the current generation of each
 * conversation scope (`/new`). The gateway's storage opens it (`SurfacePort.openStore`) from the
 * backend folders beside this file (`sqlite/`); the surface never holds the database.
 * Approvals themselves live in the broker's store; this only maps call ids to Discord messages.
 */
export interface CardRef {
  readonly callId: string;
  readonly channelId: string;
  /** Empty while the card is being posted: a crash in that window leaves the message to be found by its button ids. */
  readonly messageId: string;
  readonly kind: "conversation" | "dm";
}

export interface SurfaceStore {
  /** Call before posting with `messageId: ""`, and again with the id once posted. */
  addCard(ref: CardRef): Promise<void>;
  cards(callId: string): Promise<CardRef[]>;
  /** Forgets a copy whose post failed (it never existed, so there is nothing to edit later). */
  dropCard(callId: string, channelId: string): Promise<void>;
  /** All copies of this card show the final state. */
  markFinal(callId: string): Promise<void>;
  /** Call ids whose cards may still show buttons. */
  unfinishedCallIds(): Promise<string[]>;
  /** The session key for a conversation scope (`dm:<user>`, `thread:<id>`), honouring `/new`. */
  sessionKey(scope: string): Promise<string>;
  /** `/new`: the next message in this scope starts a fresh session. Returns the new key. */
  newConversation(scope: string): Promise<string>;
  /**
   * Claims a Discord message for answering: true for the first claim of its id, false ever after,
   * from any connection or gateway on the database (an insert only one wins). Discord delivers a
   * message to every session of the bot, so while a lease holder that lost its database connection
   * is still disconnecting, the gateway taking over must not answer the same message (issue 31).
   * Claims older than a day are forgotten.
   */
  claimMessage(messageId: string): Promise<boolean>;
}

/** How long a claimed message id is remembered: far longer than a takeover (15 s). */
export const MESSAGE_CLAIM_TTL_MS = 24 * 60 * 60 * 1000;

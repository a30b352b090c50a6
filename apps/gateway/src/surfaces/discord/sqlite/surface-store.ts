import type { Database } from "bun:sqlite";

/**
 * The Discord surface's own rows in the gateway database:
 * - `discord_approval_cards`: every message showing an approval card (the conversation copy and
 *   any DM copies), so cards can be edited after a decision, a timeout, or a restart.
 * - `discord_conversations`: the current generation of each conversation scope (a DM user or a
 *   thread); `/new` bumps it, which yields a fresh gateway session key.
 * Approvals themselves live in the broker's table; this only maps call ids to Discord messages.
 */
export interface CardRef {
  readonly callId: string;
  readonly channelId: string;
  /** Empty while the card is being posted: a crash in that window leaves the message to be found by its button ids. */
  readonly messageId: string;
  readonly kind: "conversation" | "dm";
}

export function createSurfaceStore(db: Database) {
  db.exec(`CREATE TABLE IF NOT EXISTS discord_approval_cards (
    call_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    final INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (call_id, channel_id)
  )`);
  db.exec(`CREATE TABLE IF NOT EXISTS discord_conversations (
    scope TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`);
  const insertCard = db.prepare(
    `INSERT INTO discord_approval_cards (call_id, channel_id, message_id, kind, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(call_id, channel_id) DO UPDATE SET message_id = excluded.message_id WHERE excluded.message_id != ''`,
  );
  const cardsFor = db.prepare(
    "SELECT call_id, channel_id, message_id, kind FROM discord_approval_cards WHERE call_id = ?",
  );
  const dropUnposted = db.prepare(
    "DELETE FROM discord_approval_cards WHERE call_id = ? AND channel_id = ? AND message_id = ''",
  );
  const markFinalStmt = db.prepare("UPDATE discord_approval_cards SET final = 1 WHERE call_id = ?");
  const unfinishedStmt = db.prepare("SELECT DISTINCT call_id FROM discord_approval_cards WHERE final = 0");
  const getGen = db.prepare("SELECT generation FROM discord_conversations WHERE scope = ?");
  const bumpGen = db.prepare(
    `INSERT INTO discord_conversations (scope, generation, updated_at) VALUES (?, 1, ?)
     ON CONFLICT(scope) DO UPDATE SET generation = generation + 1, updated_at = excluded.updated_at
     RETURNING generation`,
  );

  return {
    /** Call before posting with `messageId: ""`, and again with the id once posted. */
    addCard(ref: CardRef): void {
      insertCard.run(ref.callId, ref.channelId, ref.messageId, ref.kind, Date.now());
    },
    cards(callId: string): CardRef[] {
      return (
        cardsFor.all(callId) as Array<{
          call_id: string;
          channel_id: string;
          message_id: string;
          kind: CardRef["kind"];
        }>
      ).map((r) => ({
        callId: r.call_id,
        channelId: r.channel_id,
        messageId: r.message_id,
        kind: r.kind,
      }));
    },
    /** Forgets a copy whose post failed (it never existed, so there is nothing to edit later). */
    dropCard(callId: string, channelId: string): void {
      dropUnposted.run(callId, channelId);
    },
    /** All copies of this card show the final state. */
    markFinal(callId: string): void {
      markFinalStmt.run(callId);
    },
    /** Call ids whose cards may still show buttons. */
    unfinishedCallIds(): string[] {
      return (unfinishedStmt.all() as Array<{ call_id: string }>).map((r) => r.call_id);
    },
    /** The session key for a conversation scope (`dm:<user>`, `thread:<id>`), honouring `/new`. */
    sessionKey(scope: string): string {
      const row = getGen.get(scope) as { generation: number } | null;
      const gen = row?.generation ?? 0;
      return gen === 0 ? `discord:${scope}` : `discord:${scope}:${gen}`;
    },
    /** `/new`: the next message in this scope starts a fresh session. Returns the new key. */
    newConversation(scope: string): string {
      bumpGen.get(scope, Date.now());
      return this.sessionKey(scope);
    },
  };
}
export type SurfaceStore = ReturnType<typeof createSurfaceStore>;

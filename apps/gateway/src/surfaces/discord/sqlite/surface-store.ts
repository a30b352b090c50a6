import type { Database } from "bun:sqlite";
import { type CardRef, MESSAGE_CLAIM_TTL_MS, type SurfaceStore } from "../store.ts";

/**
 * The Discord surface's store (store.ts) in the gateway's SQLite database:
 * - `discord_approval_cards`: every message showing an approval card (the conversation copy and
 *   any DM copies).
 * - `discord_conversations`: the current generation of each conversation scope (a DM user or a
 *   thread); `/new` bumps it, which yields a fresh gateway session key.
 * - `discord_claimed_messages`: the message ids already claimed for answering (`claimMessage`).
 */
export function createSurfaceStore(db: Database): SurfaceStore {
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
  db.exec(`CREATE TABLE IF NOT EXISTS discord_claimed_messages (
    message_id TEXT PRIMARY KEY,
    claimed_at INTEGER NOT NULL
  )`);
  const claim = db.prepare(
    "INSERT INTO discord_claimed_messages (message_id, claimed_at) VALUES (?, ?) ON CONFLICT(message_id) DO NOTHING",
  );
  const forgetClaims = db.prepare("DELETE FROM discord_claimed_messages WHERE claimed_at < ?");
  const getGen = db.prepare("SELECT generation FROM discord_conversations WHERE scope = ?");
  const bumpGen = db.prepare(
    `INSERT INTO discord_conversations (scope, generation, updated_at) VALUES (?, 1, ?)
     ON CONFLICT(scope) DO UPDATE SET generation = generation + 1, updated_at = excluded.updated_at
     RETURNING generation`,
  );

  const sessionKey = (scope: string): string => {
    const row = getGen.get(scope) as { generation: number } | null;
    const gen = row?.generation ?? 0;
    return gen === 0 ? `discord:${scope}` : `discord:${scope}:${gen}`;
  };
  return {
    async addCard(ref) {
      insertCard.run(ref.callId, ref.channelId, ref.messageId, ref.kind, Date.now());
    },
    async cards(callId) {
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
    async dropCard(callId, channelId) {
      dropUnposted.run(callId, channelId);
    },
    async markFinal(callId) {
      markFinalStmt.run(callId);
    },
    async unfinishedCallIds() {
      return (unfinishedStmt.all() as Array<{ call_id: string }>).map((r) => r.call_id);
    },
    async sessionKey(scope) {
      return sessionKey(scope);
    },
    async newConversation(scope) {
      bumpGen.get(scope, Date.now());
      return sessionKey(scope);
    },
    async claimMessage(messageId) {
      const now = Date.now();
      forgetClaims.run(now - MESSAGE_CLAIM_TTL_MS);
      return claim.run(messageId, now).changes === 1;
    },
  };
}

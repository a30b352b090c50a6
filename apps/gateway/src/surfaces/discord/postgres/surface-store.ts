import { migrate, type Postgres } from "@openassistant/core/db";
import { type CardRef, MESSAGE_CLAIM_TTL_MS, type SurfaceStore } from "../store.ts";

/** The Discord surface's tables on PostgreSQL (the columns of sqlite/surface-store.ts), as versioned migrations. */
export const DISCORD_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE discord_approval_cards (
    call_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    final INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (call_id, channel_id)
  );
  CREATE TABLE discord_conversations (
    scope TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    updated_at BIGINT NOT NULL
  );
  `,
  `
  CREATE TABLE discord_claimed_messages (
    message_id TEXT PRIMARY KEY,
    claimed_at BIGINT NOT NULL
  );
  CREATE INDEX discord_claimed_messages_at ON discord_claimed_messages (claimed_at);
  `,
];

/**
 * The Discord surface's store (store.ts) on the gateways' shared PostgreSQL database. Opened
 * synchronously (`SurfacePort.openStore`): the migration runs on the first call, and every call
 * waits for it (a migration refused — a newer schema — fails every call with its reason).
 */
export function createPgSurfaceStore(sql: Postgres): SurfaceStore {
  let migrated: Promise<unknown> | undefined;
  const ready = () => (migrated ??= migrate(sql, "discord", DISCORD_MIGRATIONS));
  const sessionKey = async (scope: string): Promise<string> => {
    const [row]: Array<{ generation: number }> =
      await sql`SELECT generation FROM discord_conversations WHERE scope = ${scope}`;
    const gen = Number(row?.generation ?? 0);
    return gen === 0 ? `discord:${scope}` : `discord:${scope}:${gen}`;
  };
  return {
    async addCard(ref) {
      await ready();
      await sql`INSERT INTO discord_approval_cards (call_id, channel_id, message_id, kind, created_at)
        VALUES (${ref.callId}, ${ref.channelId}, ${ref.messageId}, ${ref.kind}, ${Date.now()})
        ON CONFLICT (call_id, channel_id) DO UPDATE SET message_id = excluded.message_id
        WHERE excluded.message_id <> ''`;
    },
    async cards(callId) {
      await ready();
      const rows: Array<{ callId: string; channelId: string; messageId: string; kind: CardRef["kind"] }> =
        await sql`SELECT call_id AS "callId", channel_id AS "channelId", message_id AS "messageId", kind
          FROM discord_approval_cards WHERE call_id = ${callId}`;
      return rows.map((r) => ({ callId: r.callId, channelId: r.channelId, messageId: r.messageId, kind: r.kind }));
    },
    async dropCard(callId, channelId) {
      await ready();
      await sql`DELETE FROM discord_approval_cards
        WHERE call_id = ${callId} AND channel_id = ${channelId} AND message_id = ''`;
    },
    async markFinal(callId) {
      await ready();
      await sql`UPDATE discord_approval_cards SET final = 1 WHERE call_id = ${callId}`;
    },
    async unfinishedCallIds() {
      await ready();
      const rows: Array<{ callId: string }> =
        await sql`SELECT DISTINCT call_id AS "callId" FROM discord_approval_cards WHERE final = 0`;
      return rows.map((r) => r.callId);
    },
    async sessionKey(scope) {
      await ready();
      return sessionKey(scope);
    },
    async newConversation(scope) {
      await ready();
      await sql`INSERT INTO discord_conversations (scope, generation, updated_at) VALUES (${scope}, 1, ${Date.now()})
        ON CONFLICT (scope) DO UPDATE SET generation = discord_conversations.generation + 1,
        updated_at = excluded.updated_at`;
      return sessionKey(scope);
    },
    async claimMessage(messageId) {
      await ready();
      const now = Date.now();
      await sql`DELETE FROM discord_claimed_messages WHERE claimed_at < ${now - MESSAGE_CLAIM_TTL_MS}`;
      // The primary key decides: of gateways claiming at once, one insert wins, the others insert nothing.
      const won: unknown[] = await sql`INSERT INTO discord_claimed_messages (message_id, claimed_at)
        VALUES (${messageId}, ${now}) ON CONFLICT (message_id) DO NOTHING RETURNING message_id`;
      return won.length === 1;
    },
  };
}

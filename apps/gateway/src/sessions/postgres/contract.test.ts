import { connectPostgres } from "@openassistant/core/db";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { describeSessionStoreContract, type SessionBackend } from "../../../test/contracts/session-store.ts";
import { createPgSessionStore } from "./store.ts";

const pg = usePostgres();

/** A fresh database on the test file's real PostgreSQL; reopening reconnects. */
async function postgresBackend(): Promise<SessionBackend> {
  const url = await pg.freshDatabase();
  const open = async (): Promise<SessionBackend> => {
    const sql = connectPostgres(url, { max: 4 });
    const close = async () => sql.close();
    return {
      sessions: await createPgSessionStore(sql),
      close,
      reopen: async () => {
        await close();
        return open();
      },
    };
  };
  return open();
}

describeSessionStoreContract("postgres", postgresBackend);

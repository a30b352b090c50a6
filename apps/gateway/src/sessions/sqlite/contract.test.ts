import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { describeSessionStoreContract, type SessionBackend } from "../../../test/contracts/session-store.ts";
import { createSessionStore } from "./store.ts";

/** A database file of its own; reopening opens the same file. */
function sqliteBackend(): Promise<SessionBackend> {
  const file = join(makeTempDir("oa-session-contract-"), "db.sqlite");
  const open = (): SessionBackend => {
    const db = openDatabase(file);
    const close = async () => db.close();
    return {
      sessions: createSessionStore(db),
      close,
      reopen: async () => {
        await close();
        return open();
      },
    };
  };
  return Promise.resolve(open());
}

describeSessionStoreContract("sqlite", sqliteBackend);

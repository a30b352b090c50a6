import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { describeRunJournalContract, type RunJournalBackend } from "../../../test/contracts/run-journal.ts";
import { openDatabase } from "../../db/open.ts";
import { openSqliteRunJournal } from "./run-journal.ts";

/** A real database file; reopening is a new connection to it. */
function sqliteBackend(file = join(makeTempDir(), "journal.db")): Promise<RunJournalBackend> {
  const db = openDatabase(file);
  return Promise.resolve({
    journal: openSqliteRunJournal(db),
    reopen: () => sqliteBackend(file),
    close: async () => db.close(),
  });
}

// The SQLite backend keeps the seed, not the run's context (the gateway journals to files or PostgreSQL).
describeRunJournalContract("SQLite", () => sqliteBackend(), { keepsContext: false });

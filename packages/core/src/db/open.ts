import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Opens (creating if needed) the gateway's SQLite file in WAL mode.
 * synchronous=NORMAL in WAL: a committed row survives a process crash (our threat model:
 * a killed gateway); only an OS crash/power loss may lose the commits since the last checkpoint.
 */
export function openDatabase(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  try {
    configure(db);
  } catch (e) {
    // A file that is not a database opens, then fails its first statement: closed here, not left
    // open until the handle is collected.
    db.close();
    throw e;
  }
  return db;
}

function configure(db: Database): void {
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  // SQLite checkpoints inside the commit that takes the WAL past this many pages, and that commit
  // is a tool call's `durable()`. The default (1,000 pages) did it every ~150 receipt commits, a
  // quarter of a call's receipt cost (#13); at 10,000 pages the same rows are copied ~7× less often
  // (most commits rewrite the same few b-tree pages). The file is cut back to 16 MB after each one.
  // What a power loss may lose grows with it (NORMAL syncs the WAL at checkpoints); a killed
  // process still loses no commit.
  db.exec("PRAGMA wal_autocheckpoint = 10000");
  db.exec("PRAGMA journal_size_limit = 16777216");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA foreign_keys = ON");
}

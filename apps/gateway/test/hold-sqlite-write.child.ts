/**
 * Test helper: another connection writing to a gateway's SQLite file (as the receipt journal's fold
 * worker does). Takes the write lock, records a turn event, prints "locked", holds the lock for
 * <ms>, then commits. argv: <database path> <ms>
 */
import { Database } from "bun:sqlite";

const [path, ms] = process.argv.slice(2) as [string, string];
const db = new Database(path);
db.exec("PRAGMA busy_timeout = 5000");
db.exec("BEGIN IMMEDIATE");
db.query("INSERT INTO turn_events (turn_id, type, data, at) VALUES (NULL, 'other-writer', '{}', 0)").run();
process.stdout.write("locked\n");
await Bun.sleep(Number(ms));
db.exec("COMMIT");
db.close();

import type { Database } from "bun:sqlite";

/** The echo surface's own table: how many messages each user sent. */
export function createEchoStore(db: Database) {
  db.exec("CREATE TABLE IF NOT EXISTS echo_counts (user TEXT PRIMARY KEY, n INTEGER NOT NULL)");
  const bump = db.prepare(
    "INSERT INTO echo_counts (user, n) VALUES (?, 1) ON CONFLICT(user) DO UPDATE SET n = n + 1 RETURNING n",
  );
  return {
    /** Counts one more message from this user; returns the count. */
    async count(user: string): Promise<number> {
      return (bump.get(user) as { n: number }).n;
    },
  };
}

import { SQL } from "bun";
import type { AbilityRunClaims } from "../run.ts";

/** The advisory locks' first key: "ab" (the second is the run id's hash); the leases use "oa". */
const ABILITY_LOCK_SPACE = 0x6162;

/**
 * Which gateway of a shared PostgreSQL drives each ability run (docs/abilities.md, "On several
 * gateways"): a session-level advisory lock per run, all held on ONE connection of this gateway's
 * own (not one per run: a gateway with 200 runs at their gates still costs one connection). A
 * gateway killed (SIGKILL) has its socket closed by the kernel; PostgreSQL ends the session and
 * drops every lock it held at once, so another gateway takes the runs at its next sweep.
 * If the connection drops while this gateway lives, its locks are gone together: it reconnects and
 * takes them again at once (before other gateways' next sweep, every 2 s); the runs another
 * gateway took meanwhile are given to `onLost` (known limit: this gateway's drive of them is not
 * stopped, docs/abilities.md).
 * Collisions of the 32-bit hash only delay a run (it is taken once the other run ends).
 */
export function openPgAbilityRunClaims(
  url: string,
  options: { readonly onLost?: (runIds: string[]) => void } = {},
): AbilityRunClaims {
  const held = new Set<string>();
  let closed = false;
  let sql = connect();

  function connect(): SQL {
    return new SQL(url, {
      max: 1,
      idleTimeout: 0,
      onclose: () => {
        if (closed || held.size === 0) return;
        const kept = [...held];
        held.clear();
        sql = connect();
        void retake(kept);
      },
    });
  }

  async function take(runId: string): Promise<boolean> {
    if (closed) return false;
    // Advisory locks are re-entrant within a session: a run held here is not locked twice.
    if (held.has(runId)) return true;
    const [row] = await sql`SELECT pg_try_advisory_lock(${ABILITY_LOCK_SPACE}, hashtext(${runId})) AS got`;
    if (row.got) held.add(runId);
    return Boolean(row.got);
  }

  async function retake(runIds: string[]): Promise<void> {
    const lost: string[] = [];
    for (const id of runIds) if (!(await take(id).catch(() => false))) lost.push(id);
    if (lost.length > 0) options.onLost?.(lost);
  }

  return {
    take,
    async release(runId) {
      if (!held.delete(runId) || closed) return;
      await sql`SELECT pg_advisory_unlock(${ABILITY_LOCK_SPACE}, hashtext(${runId}))`;
    },
    async close() {
      closed = true;
      held.clear();
      await sql.close();
    },
  };
}

import { SQL } from "bun";

/**
 * A named lease among the gateways of one database: at most one holds it at a time (the Discord
 * connection, issue 31). It is a session-level advisory lock on a connection of its own, so it is
 * released the moment its holder's connection ends: a holder killed (even with SIGKILL) has its
 * socket closed by the kernel, PostgreSQL ends the session and drops the lock, and a waiter takes
 * it at its next try (every `retryMs`). A holder whose connection drops loses the lease
 * (`onLost`) and must stop what the lease guards; it then waits its turn again.
 * Limit: a holder cut off by the network (its host alive) keeps the lock until the server's TCP
 * keepalive notices (tcp_keepalives_idle), which docs/scaling.md asks operators to set.
 */
export interface Lease {
  /** True while this process holds it. */
  held(): boolean;
  /** Resolves when this process next holds it (at once if it does). */
  acquired(): Promise<void>;
  /** Lets go (unlocks and closes the connection); waiting stops. */
  release(): Promise<void>;
}

export interface LeaseOptions {
  /** How often a waiter tries again (default 2 s: a dead holder's lease moves within that). */
  readonly retryMs?: number;
  readonly onAcquired?: () => void;
  /** The connection holding the lease dropped: stop what it guards at once. */
  readonly onLost?: (reason: string) => void;
}

/** The advisory lock's first key: "oa" (the second is the name's hash). */
const LEASE_SPACE = 0x6f61;

export function takeLease(url: string, name: string, options: LeaseOptions = {}): Lease {
  const retryMs = options.retryMs ?? 2_000;
  let holding = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waiters: Array<() => void> = [];
  const sql = new SQL(url, {
    max: 1,
    idleTimeout: 0,
    onclose: (error) => {
      if (!holding) return;
      holding = false;
      if (!stopped) {
        options.onLost?.(`the connection holding the lease "${name}" closed: ${error?.message ?? "closed"}`);
        schedule(0);
      }
    },
  });

  async function attempt(): Promise<void> {
    timer = undefined;
    if (stopped || holding) return;
    try {
      const [row] = await sql`SELECT pg_try_advisory_lock(${LEASE_SPACE}, hashtext(${name})) AS got`;
      if (row.got && !stopped) {
        holding = true;
        options.onAcquired?.();
        for (const w of waiters) w();
        waiters = [];
        return;
      }
    } catch {
      // the database is unreachable now: try again later
    }
    schedule(retryMs);
  }

  function schedule(ms: number): void {
    if (stopped || timer) return;
    timer = setTimeout(() => void attempt(), ms);
  }

  schedule(0);
  return {
    held: () => holding,
    acquired: () => (holding ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    async release() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const wasHolding = holding;
      holding = false;
      try {
        if (wasHolding) await sql`SELECT pg_advisory_unlock(${LEASE_SPACE}, hashtext(${name}))`;
      } finally {
        await sql.close();
      }
    },
  };
}

import { expect, test } from "bun:test";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { eventually } from "../../test/discord-e2e.ts";
import { startLeasedSurface } from "./leased.ts";
import type { RunningSurface } from "./surface.ts";

const pg = usePostgres();

/** Copies running across every gateway of a test, and the most ever running at once. */
const everywhere = { running: 0, most: 0 };

/**
 * A surface that counts its starts and how many copies run (what the lease guards). Its stop takes
 * a while, as a Discord client's does: a lease let go before the stop ends would show as two copies.
 */
function countingSurface() {
  const seen = { starts: 0, stops: 0, running: 0 };
  const start = async (): Promise<RunningSurface> => {
    seen.starts++;
    seen.running++;
    everywhere.most = Math.max(everywhere.most, ++everywhere.running);
    return {
      done: new Promise<void>(() => {}),
      stop: async () => {
        await Bun.sleep(300);
        seen.stops++;
        seen.running--;
        everywhere.running--;
      },
    };
  };
  return { seen, start };
}

const lines: string[] = [];
const out = (line: string) => void lines.push(line);

test("of two gateways one runs the surface; when it stops, the other takes the lease and starts it", async () => {
  const url = await pg.freshDatabase();
  const a = countingSurface();
  const b = countingSurface();
  const first = startLeasedSurface({ url, name: "discord", start: a.start, out, retryMs: 50 });
  await eventually(() => a.seen.starts === 1, "the first gateway to start the surface");
  const second = startLeasedSurface({ url, name: "discord", start: b.start, out, retryMs: 50 });
  try {
    // The second has tried the lease (its connection's last query) and not started.
    const db = url.split("/").pop();
    await eventually(
      async () =>
        (await pg.server()).psql(
          "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_try_advisory_lock%' AND query NOT LIKE '%pg_stat_activity%'",
          db,
        ) === "2",
      "both gateways to have tried the lease",
    );
    expect(b.seen.starts).toBe(0);
    // #31: the holder's `holding()` lets it take dead gateways' runs over; the waiter's does not.
    await eventually(() => first.holding(), "the first gateway to hold its started surface");
    expect(second.holding()).toBe(false);
    await first.stop();
    expect(a.seen).toEqual({ starts: 1, stops: 1, running: 0 });
    expect(first.holding()).toBe(false);
    await eventually(() => b.seen.starts === 1, "the second gateway to take over");
    await eventually(() => second.holding(), "the second gateway to hold its started surface");
  } finally {
    await second.stop();
  }
  expect(b.seen).toEqual({ starts: 1, stops: 1, running: 0 });
  expect(everywhere.most).toBe(1);
});

test("a lost lease (its connection ended) stops the surface at once; it starts again when the lease is back", async () => {
  const url = await pg.freshDatabase();
  const s = countingSurface();
  const leased = startLeasedSurface({ url, name: "discord", start: s.start, out, retryMs: 50 });
  try {
    await eventually(() => s.seen.starts === 1, "the surface to start");
    (await pg.server()).psql(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 28513",
      url.split("/").pop(),
    );
    await eventually(() => s.seen.stops === 1, "the surface to stop when the lease is lost");
    await eventually(() => s.seen.starts === 2, "the surface to start again with the lease");
    expect(s.seen.running).toBe(1);
    expect(lines.some((l) => l.includes('lease lost (the connection holding the lease "discord" closed'))).toBe(true);
  } finally {
    await leased.stop();
  }
});

test("a surface that fails to start rejects `done` with its error (the CLI reports it and exits)", async () => {
  const url = await pg.freshDatabase();
  const leased = startLeasedSurface({
    url,
    name: "discord",
    start: () => Promise.reject(new Error("Discord rejected the bot token")),
    out,
    retryMs: 50,
  });
  try {
    await expect(leased.done).rejects.toThrow("Discord rejected the bot token");
  } finally {
    await leased.stop();
  }
});

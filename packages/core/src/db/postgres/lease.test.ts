import { expect, test } from "bun:test";
import { join } from "node:path";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { takeLease } from "./lease.ts";

const pg = usePostgres();
const HOLDER = join(import.meta.dir, "../../../test/postgres/lease-holder.ts");

/** Resolves with the first line a child writes to stdout. */
async function firstLine(child: Bun.Subprocess<"ignore", "pipe", "inherit">): Promise<string> {
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.trim();
}

test("one holder at a time; a released lease passes to the one waiting", async () => {
  const url = await pg.freshDatabase();
  const a = takeLease(url, "discord", { retryMs: 50 });
  await a.acquired();
  const b = takeLease(url, "discord", { retryMs: 50 });
  const other = takeLease(url, "another-lease", { retryMs: 50 });
  try {
    await other.acquired(); // another name is another lease
    const bHolds = b.acquired();
    expect([a.held(), b.held()]).toEqual([true, false]);
    // The database agrees: one session holds the lock while the holder believes it holds it.
    const holders = (await pg.server()).psql(
      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 28513 AND objid::int = hashtext('discord')",
      url.split("/").pop(),
    );
    expect(holders).toBe("1");
    await a.release();
    await bHolds;
    expect([a.held(), b.held()]).toEqual([false, true]);
  } finally {
    await b.release();
    await other.release();
  }
});

test("a holder killed with SIGKILL loses the lease to the one waiting, without anyone releasing it", async () => {
  const url = await pg.freshDatabase();
  const child = Bun.spawn([process.execPath, HOLDER, url, "discord"], { stdout: "pipe", stderr: "inherit" });
  try {
    expect(await firstLine(child)).toBe("held");
    const waiter = takeLease(url, "discord", { retryMs: 100 });
    try {
      const taken = waiter.acquired();
      expect(waiter.held()).toBe(false);
      child.kill("SIGKILL");
      await child.exited;
      await taken;
      expect(waiter.held()).toBe(true);
    } finally {
      await waiter.release();
    }
  } finally {
    child.kill("SIGKILL");
  }
});

test("a holder whose connection is ended loses the lease (onLost) and the waiter takes it", async () => {
  const url = await pg.freshDatabase();
  const lost: string[] = [];
  // A gateway that lost the lease stops what it guarded and lets go, as the Discord surface will.
  const a = takeLease(url, "discord", {
    retryMs: 50,
    onLost: (why) => {
      lost.push(why);
      void a.release();
    },
  });
  await a.acquired();
  const b = takeLease(url, "discord", { retryMs: 50 });
  try {
    const taken = b.acquired();
    (await pg.server()).psql(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 28513",
      url.split("/").pop(),
    );
    await taken;
    expect(b.held()).toBe(true);
    expect(a.held()).toBe(false);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toContain('the connection holding the lease "discord" closed');
  } finally {
    await a.release();
    await b.release();
  }
});

import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RESUMED } from "@openassistant/core/codemode";
import { connectPostgres } from "@openassistant/core/db";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { GatewayEvent } from "../events/types.ts";
import { eventually } from "../../test/discord-e2e.ts";
import { type Harness, startHarness } from "../../test/harness.ts";
import { PAYOUT } from "../../test/abilities-payout.ts";
import { ledgerTools } from "../runs/fixtures/ledger-tools.ts";

/**
 * #32 on several gateways of one PostgreSQL (docs/abilities.md, "On several gateways"): gateway A
 * (a child process, `runs/fixtures/waiting-child.ts`) starts `/ability run payout amount=5`, which
 * waits at its gate; gateway B (this process) starts on the same database and does not drive the
 * run while A lives (A holds its advisory lock); A is killed with SIGKILL; B's sweep takes the run
 * over, asks the gate again under its recorded call id, the approval decides it, and each step ran
 * once (the ledger file counts executions across processes).
 */
const pg = usePostgres();
let h: Harness | undefined;
let child: ReturnType<typeof Bun.spawn> | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await h?.close();
  h = undefined;
});

/** Locks held on the ability run's key ("ab", hashtext(run id)): one while a gateway drives it. */
async function locksOn(url: string, runId: string): Promise<number> {
  const sql = connectPostgres(url, { max: 1 });
  try {
    const [row] = await sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
      AND classid = ${0x6162} AND objid::int = hashtext(${runId})`;
    return row.n as number;
  } finally {
    await sql.end();
  }
}

test("two gateways: B leaves A's run at its gate while A lives; kill -9 A; B takes it over, approve, each step once", async () => {
  const url = await pg.freshDatabase();
  const dir = makeTempDir("oa-ability-replicas-");
  const ledger = join(dir, "ledger.txt");
  mkdirSync(join(dir, ".openassistant", "abilities", "payout"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "abilities", "payout", "ability.yaml"), PAYOUT);

  const api = await startFakeAnthropic();
  child = Bun.spawn(["bun", join(import.meta.dir, "..", "runs", "fixtures", "waiting-child.ts")], {
    env: {
      ...process.env,
      OA_DIR: dir,
      OA_CONFIG_DIR: join(dir, "config"),
      OA_ANTHROPIC_URL: api.url,
      OA_LEDGER: ledger,
      OA_STORAGE_URL: url,
      OA_MESSAGE: "/ability run payout amount=5",
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!/card (\S+) (\S+)\n/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`gateway A ended before its card: ${out}`);
    out += new TextDecoder().decode(value);
  }
  const [, callId, stepRunId] = /card (\S+) (\S+)\n/.exec(out)!;

  h = await startHarness({ dir, tools: ledgerTools(ledger), settings: { storageUrl: url } });
  const events: GatewayEvent[] = [];
  let askedAgain!: () => void;
  const asked = new Promise<void>((resolve) => (askedAgain = resolve));
  let finished!: (e: GatewayEvent) => void;
  const ended = new Promise<GatewayEvent>((resolve) => (finished = resolve));
  h.gateway.events.subscribe((e) => {
    events.push(e);
    if (e.type === "approval.requested" && e.request.callId === callId) askedAgain();
    if (e.type === "ability.finished") finished(e);
  });
  const abilities = h.gateway.abilities!;
  const [run] = await abilities.recent(1);
  expect(run).toMatchObject({ status: "running", currentStep: "approve" });
  // B's start takes only runs nobody holds: A holds this one.
  expect(await abilities.resumeAll()).toEqual([]);
  void h.gateway.resumeInterrupted();
  expect(await locksOn(url, run!.id)).toBe(1);
  expect((await h.gateway.approvals.get(callId!))!.status).toBe("pending"); // not closed as an orphan by B
  expect(events.filter((e) => e.type === "approval.requested")).toEqual([]); // B did not ask the gate

  child.kill("SIGKILL");
  await child.exited;
  child = undefined;
  await api.close();

  await asked; // B's sweep took the run over and asked its gate again
  expect(await locksOn(url, run!.id)).toBe(1); // now B's
  // The gate's step run has a #31 run job A held: once its heartbeat lapses (dated back here, as in
  // run-jobs.test.ts), B claims it as a dead gateway's run, and leaves it to the ability (completed,
  // not resumed a second time beside the ability's own replay).
  const sql = connectPostgres(url, { max: 1 });
  try {
    await sql`UPDATE pgboss.job SET heartbeat_on = now() - interval '1 minute' WHERE data->>'runId' = ${stepRunId!} AND state = 'active'`;
    await eventually(async () => {
      const rows: unknown[] =
        await sql`SELECT 1 FROM pgboss.job WHERE name = 'openassistant-runs-orphaned' AND data->>'runId' = ${stepRunId!} AND state = 'completed'`;
      return rows.length > 0;
    }, "the step run's orphaned job claimed by B and completed");
  } finally {
    await sql.end();
  }
  expect((await h.gateway.approvals.decide(callId!, { decision: "approved", by: "ann" })).outcome).toBe("decided");
  const end = await ended;
  expect(end).toMatchObject({ type: "ability.finished", ability: "payout", status: "completed" });
  if (end.type === "ability.finished")
    expect(end.text).toContain("✅ check · ✅ approve · ✅ pay · ⏭️ raise_limit (skipped)");

  expect(readFileSync(ledger, "utf8")).toBe("transfer 5\n"); // the write ran once
  const all = await h.gateway.receipts.query({});
  const reads = all.filter((r) => r.toolPath === "ledger.read").map((r) => r.phase);
  expect(reads).toEqual(["requested", "started", "succeeded"]); // the step before the gate was not run again
  const gate = (await h.gateway.receipts.query({ callId: callId! })).sort((a, b) => a.seq - b.seq);
  expect(gate.map((r) => r.phase)).toEqual([
    "requested",
    "requested",
    "requested",
    "requested",
    "approved",
    "started",
    "succeeded",
  ]);
  expect(gate[2]!.reason).toBe(RESUMED);
  expect(gate[0]!.runId).toBe(stepRunId!);
  expect((await h.gateway.receipts.verify()).ok).toBe(true);
  expect(await locksOn(url, run!.id)).toBe(0); // let go when the run ended
  // The step B ran anew (pay) completed its run job when its run ended (not left active, touched forever).
  const payRun = (await abilities.get(run!.id))!.steps.find((s) => s.id === "pay")!.runId!;
  const jobs = connectPostgres(url, { max: 1 });
  try {
    await eventually(async () => {
      const rows: unknown[] =
        await jobs`SELECT 1 FROM pgboss.job WHERE name = 'openassistant-runs' AND data->>'runId' = ${payRun} AND state = 'completed'`;
      return rows.length > 0;
    }, "the pay step's run job completed");
  } finally {
    await jobs.end();
  }
}, 30_000);

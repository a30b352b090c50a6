/**
 * The gateway's event-loop lag under its own load, and what it costs a click: K conversations
 * run turns with tool calls at once (three sandbox runs of 25 parallel reads each, then an
 * approval) in the real gateway with the real discord.js against the fake Discord, while each
 * card is clicked twice (a refused non-approver, then the approver) the moment it appears.
 *
 * Lag is sampled as timer drift: a 5 ms interval and how much later than due each tick runs.
 * (Bun's `perf_hooks.monitorEventLoopDelay` exists but misses blocks: on Bun 1.4.5 it reported a
 * 1.4 ms max across a 300 ms synchronous loop.) Click → acknowledgement is the fake's own record:
 * INTERACTION_CREATE dispatched → callback received (Discord refuses it after 3 s).
 * Baseline in the same run: the idle gateway. Rows "+2 burners" add two CPU-bound processes.
 * Run: bun bench/event-loop.bench.ts
 */
import { printTable } from "./lib.ts";
import {
  busyWorkModel,
  cardCallId,
  eventually,
  findCard,
  startDiscordE2E,
  threadOf,
  type DiscordE2E,
} from "../apps/gateway/test/discord-e2e.ts";

type FakeInteraction = ReturnType<DiscordE2E["fake"]["clickButton"]>;

const TICK_MS = 5;
const IDLE_MS = 3_000;
const WAIT_MS = 120_000;

const threadCpuMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

interface Lag {
  /** How late each tick ran (ms). */
  readonly late: number[];
  /** CPU the main thread used between two ticks (ms): a long synchronous stretch shows here. */
  readonly cpu: number[];
}

/**
 * Starts sampling timer drift, and the main thread's own CPU time between ticks: a tick late
 * with little CPU between was kept off a core by the host; one late with as much CPU was blocked
 * by the gateway's own work (Linux counts thread CPU in ticks of a few ms).
 */
function lagSampler(): { stop(): Lag } {
  const late: number[] = [];
  const cpu: number[] = [];
  let due = performance.now() + TICK_MS;
  let cpuAt = threadCpuMs();
  const timer = setInterval(() => {
    const now = performance.now();
    const c = threadCpuMs();
    late.push(Math.max(0, now - due));
    cpu.push(c - cpuAt);
    due = now + TICK_MS;
    cpuAt = c;
  }, TICK_MS);
  return {
    stop() {
      clearInterval(timer);
      return { late, cpu };
    },
  };
}

function pct(samples: readonly number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: s.at(-1) ?? 0 };
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Two CPU-bound processes beside the gateway; killed by pid. */
function burners(): { stop(): void } {
  const procs = [0, 1].map(() => Bun.spawn(["sh", "-c", "while :; do :; done"], { stdout: "ignore" }));
  return { stop: () => procs.forEach((p) => p.kill("SIGKILL")) };
}

let seq = 0;
async function loaded(e: DiscordE2E, k: number) {
  console.error(`event-loop bench: ${k} conversations`);
  const base = seq;
  seq += k;
  e.h.api.script(Array.from({ length: k * 5 }, () => busyWorkModel));
  const lag = lagSampler();
  const t0 = performance.now();
  const msgs = Array.from({ length: k }, (_, i) =>
    e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: i % 2 ? e.ids.bob : e.ids.alice,
      content: `please do job-${base + i}`,
      mentionsBot: true,
    }),
  );
  const threads = await Promise.all(msgs.map((m) => threadOf(e, m.id, WAIT_MS)));
  const clicks: FakeInteraction[] = [];
  await Promise.all(
    threads.map(async (thread) => {
      const card = await eventually(() => findCard(e.fake, thread, "notes.write"), "card", WAIT_MS);
      const id = `oa:approve:${cardCallId(card)}`;
      for (const userId of [e.ids.bob, e.ids.alice]) {
        const click = e.fake.clickButton({ messageId: card.id, customId: id, userId });
        clicks.push(click);
        await click.callback(WAIT_MS);
      }
    }),
  );
  await Promise.all(
    threads.map((t, i) =>
      eventually(
        () => e.fake.messages(t).find((m) => String(m.content).startsWith(`saved job-${base + i}:`)),
        "answer",
        WAIT_MS,
      ),
    ),
  );
  const wall = performance.now() - t0;
  const acks = clicks.map((c) => c.callbacks[0]!.latencyMs);
  return { lag: lag.stop(), acks, late: clicks.filter((c) => !c.callbacks[0]!.accepted).length, wall };
}

// Discord's heartbeat interval (the harness's 250 ms one turns lag into reconnects and replays).
const e = await startDiscordE2E({ settings: { approvalTimeoutMs: 600_000 }, fake: { heartbeatIntervalMs: 41_250 } });
const rows: Array<Record<string, string | number>> = [];
const row = (scenario: string, k: number, r: { lag: Lag; acks: number[]; late: number; wall: number }) => {
  const l = pct(r.lag.late);
  const a = pct(r.acks);
  rows.push({
    scenario,
    conversations: k,
    "lag p50": ms(l.p50),
    "lag p99": ms(l.p99),
    "lag max": ms(l.max),
    "own CPU between ticks, max": ms(pct(r.lag.cpu).max),
    clicks: r.acks.length,
    "ack p50": r.acks.length ? ms(a.p50) : "–",
    "ack p99": r.acks.length ? ms(a.p99) : "–",
    "ack max": r.acks.length ? ms(a.max) : "–",
    "late (>3 s)": r.late,
    "turns wall": r.wall ? `${(r.wall / 1000).toFixed(1)} s` : "–",
  });
};
try {
  await loaded(e, 4); // warm-up: sandbox children, checker, JIT
  const idle = lagSampler();
  await Bun.sleep(IDLE_MS);
  row("idle gateway (baseline)", 0, { lag: idle.stop(), acks: [], late: 0, wall: 0 });
  for (const k of [8, 24]) row("turns with tool calls", k, await loaded(e, k));
  const burn = burners();
  try {
    const idleBusy = lagSampler();
    await Bun.sleep(IDLE_MS);
    row("idle gateway, +2 burners", 0, { lag: idleBusy.stop(), acks: [], late: 0, wall: 0 });
    for (const k of [8, 24]) row("turns with tool calls, +2 burners", k, await loaded(e, k));
  } finally {
    burn.stop();
  }
} finally {
  printTable("Event-loop lag and click → acknowledgement under load (bench/event-loop.bench.ts)", rows);
  // A late acknowledgement is a result here (the "late" column), not a failure of the bench.
  await e.close().catch((error) => console.error(`\n(closing: ${String(error).split("\n")[0]})`));
}

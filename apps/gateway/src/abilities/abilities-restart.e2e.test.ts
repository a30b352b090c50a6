import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RESUMED } from "@openassistant/core/codemode";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { GatewayEvent } from "../events/types.ts";
import { type Harness, startHarness } from "../../test/harness.ts";
import { ledgerTools } from "../runs/fixtures/ledger-tools.ts";
import { PAYOUT } from "../../test/abilities-payout.ts";

/**
 * #32: an ability run waiting at its gate survives kill -9. The first gateway is a child process
 * (`runs/fixtures/waiting-child.ts`, given `/ability run payout amount=5`), killed once the gate's
 * card is out; the next gateway on the same files resumes the run, the old card's call decides it,
 * and each step ran exactly once (the ledger file counts executions across processes).
 */

let h: Harness | undefined;
let child: ReturnType<typeof Bun.spawn> | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await h?.close();
  h = undefined;
});

test("kill -9 at the gate, start again, approve: the ability completes with each step executed once", async () => {
  const dir = makeTempDir("oa-ability-kill-");
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
      OA_MESSAGE: "/ability run payout amount=5",
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!/card (\S+) (\S+)\n/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the gateway process ended before its card: ${out}`);
    out += new TextDecoder().decode(value);
  }
  const [, callId, stepRunId] = /card (\S+) (\S+)\n/.exec(out)!;
  child.kill("SIGKILL");
  await child.exited;
  child = undefined;
  await api.close();

  h = await startHarness({ dir, tools: ledgerTools(ledger) });
  expect((await h.gateway.approvals.get(callId!))!.status).toBe("pending"); // held, not closed as an orphan
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
  const resuming = h.gateway.resumeInterrupted();
  await asked;
  expect((await h.gateway.approvals.decide(callId!, { decision: "approved", by: "ann" })).outcome).toBe("decided");
  const end = await ended;
  expect(end).toMatchObject({
    type: "ability.finished",
    ability: "payout",
    status: "completed",
    sessionKey: "terminal",
  });
  if (end.type === "ability.finished")
    expect(end.text).toContain("✅ check · ✅ approve · ✅ pay · ⏭️ raise_limit (skipped)");

  expect(readFileSync(ledger, "utf8")).toBe("transfer 5\n"); // the write ran once
  const all = (await h.gateway.receipts.query({})).sort((a, b) => a.seq - b.seq);
  const reads = all.filter((r) => r.toolPath === "ledger.read").map((r) => r.phase);
  expect(reads).toEqual(["requested", "started", "succeeded"]); // the step before the gate was not run again
  const gate = (await h.gateway.receipts.query({ callId: callId! })).sort((a, b) => a.seq - b.seq);
  // Asked, required by the abilities' hook; after the restart asked again (resumed) and required again; then decided once.
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
  expect(gate[3]!.reason).toContain("approval required by plugin abilities");
  expect(gate[0]!.runId).toBe(stepRunId!);
  expect((await h.gateway.receipts.verify()).ok).toBe(true);
  // The gate's step run was resumed by its ability, not as a conversation's run of its own.
  expect(await resuming).toEqual([]);
  expect(events.some((e) => e.type === "turn.resumed")).toBe(false);
}, 30_000);

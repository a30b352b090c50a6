import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeAnthropic, textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import { STOPPED_WHILE_RUNNING } from "./scheduler.ts";

/**
 * #33 crash mid-fire through whole gateways (real SQLite, fake Anthropic): a gateway process killed
 * (SIGKILL) while its scheduled turn's answer streams; the next gateway on the same folder settles
 * the occurrence (`schedule.failed`) and does not fire it again, since #30 answers the cut-off turn.
 */
const T0 = Date.parse("2026-11-26T12:00:00Z");

let h: Harness | undefined;
let child: ReturnType<typeof Bun.spawn> | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await h?.close();
  h = undefined;
});

test("killed while a scheduled turn streams: the restart settles its occurrence failed and the turn is answered once (by #30), not fired twice", async () => {
  const dir = makeTempDir("oa-crash-gateway-");
  const api = await startFakeAnthropic();
  api.script([
    textTurn("A long reminder that never ends.", {
      chunkSize: 4,
      holdStream: { afterTextDeltas: 2, until: new Promise(() => {}) },
    }),
  ]);
  child = Bun.spawn(["bun", join(import.meta.dir, "fixtures", "schedule-child.ts")], {
    env: {
      ...process.env,
      OA_DIR: dir,
      OA_CONFIG_DIR: join(dir, "config"),
      OA_ANTHROPIC_URL: api.url,
      OA_T0: String(T0),
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!/streaming \S+\n/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the gateway process ended before its turn streamed: ${out}`);
    out += new TextDecoder().decode(value);
  }
  child.kill("SIGKILL");
  await child.exited;
  child = undefined;
  await api.close();

  const clock = { t: T0 + 3_600_000 + 30_000, now: () => clock.t };
  h = await startHarness({ dir, gateway: { clock } });
  const [s] = await h.gateway.schedules.service.list();
  const at = T0 + 3_600_000;
  const [occurrence] = await h.gateway.schedules.service.history(s!.id);
  expect(occurrence).toMatchObject({ at, status: "failed", detail: `${STOPPED_WHILE_RUNNING}; its turn is resumed` });
  h.api.script([textTurn("Time to stretch, Ann.")]);
  await h.gateway.resumeInterrupted();
  await h.gateway.schedules.tick();
  await h.gateway.schedules.idle();
  // One answer: the cut-off turn's, given again by #30; the occurrence was not fired a second time.
  expect(h.api.messageRequests()).toHaveLength(1);
  const receipts = await h.gateway.receipts.query({ callId: `${s!.id}@${new Date(at).toISOString()}` });
  expect(receipts.map((r) => [r.toolPath, r.phase])).toEqual([
    ["schedule.fired", "started"],
    ["schedule.failed", "failed"],
  ]);
  expect(new Set(receipts.map((r) => r.runId)).size).toBe(1);
  expect((await h.gateway.receipts.verify()).ok).toBe(true);
}, 30_000);

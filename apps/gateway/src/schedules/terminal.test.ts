import { afterEach, expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness, startTestTerminal, type Harness } from "../../test/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
}, 30_000);

test("the terminal prints a scheduled turn's answer, saying which schedule ran", async () => {
  const clock = { t: Date.parse("2026-11-26T12:00:00Z"), now: () => clock.t };
  h = await startHarness({ gateway: { clock } });
  const { io, surface } = startTestTerminal(h.gateway);
  await h.gateway.schedules.service.create(
    { name: "stretch", every: "1h", timeZone: "UTC", prompt: "remind ann to stretch", conversation: "terminal" },
    { origin: "cli", createdBy: "terminal:ann" },
  );
  h.api.script([textTurn("Time to stretch, Ann.")]);
  clock.t += 3_600_000;
  await h.gateway.schedules.tick();
  const shown = await io.waitFor(/\(schedule "stretch" ran\)[\s\S]*Time to stretch, Ann\./);
  expect(shown).toContain('(schedule "stretch" ran)');
  io.input.end();
  await surface.done;
}, 30_000);

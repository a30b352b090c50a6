import { expect, test } from "bun:test";
import { join } from "node:path";
import { textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness } from "../../test/harness.ts";
import { createSigner, loadConsoleKey } from "./signing.ts";

const APPROVER = "111111111111111111";
const T = (s: string) => Date.parse(s);

test("console: the schedules with their next fire time and last outcome; a schedule's history, each occurrence with its outcome", async () => {
  const clock = { t: T("2026-11-26T12:00:00Z"), now: () => clock.t };
  const h = await startHarness({ settings: { http: { port: 0, approvers: [APPROVER] } }, gateway: { clock } });
  try {
    const signer = createSigner(loadConsoleKey(join(h.dir, ".openassistant", "data"), { add() {} }));
    const cookie = signer.sign({ kind: "session", operator: APPROVER, exp: Date.now() + 60_000 });
    const get = async (path: string) => {
      const res = await fetch(`${h.gateway.http!.url}${path}`, { headers: { cookie: `oa_console=${cookie}` } });
      return { status: res.status, text: await res.text() };
    };
    expect((await get("/console/schedules")).text).toContain('id="no-schedules"');

    const s = await h.gateway.schedules.service.create(
      {
        name: "oslo <morning>",
        cron: "0 9 * * *",
        timeZone: "Europe/Oslo",
        prompt: "say good morning",
        conversation: "terminal",
        missed: "skip",
      },
      { origin: "cli", createdBy: "cli" },
    );
    let page = await get("/console/schedules");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<tr data-schedule="${s.id}">`);
    expect(page.text).toContain("oslo &lt;morning&gt;"); // escaped
    expect(page.text).toContain('<td class="next">Fri 2026-11-27 09:00 (Europe/Oslo, UTC+01:00)</td>');
    expect(page.text).toContain('<td class="last"><span class="muted">none yet</span></td>');

    // Down over two mornings (past the 1 h grace window: skipped), then on time for the third.
    h.api.script([textTurn("Good morning.")]);
    clock.t = T("2026-11-29T08:00:00Z");
    await h.gateway.schedules.tick();
    await h.gateway.schedules.idle();
    page = await get("/console/schedules");
    expect(page.text).toContain(
      '<td class="last"><span class="status succeeded">succeeded</span> <span class="muted">Sun 2026-11-29 09:00 (Europe/Oslo, UTC+01:00)</span></td>',
    );
    expect(page.text).toContain('<td class="next">Mon 2026-11-30 09:00 (Europe/Oslo, UTC+01:00)</td>');

    const history = await get(`/console/schedules/${s.id}`);
    expect(history.status).toBe(200);
    const rows = [
      ...history.text.matchAll(/<tr data-at="\d+">\s*<td>([^<]+)<\/td>\s*<td><span class="status \w+">(\w+)<\/span>/g),
    ].map((m) => [m[1], m[2]]);
    expect(rows).toEqual([
      ["Sun 2026-11-29 09:00 (Europe/Oslo, UTC+01:00)", "succeeded"],
      ["Sat 2026-11-28 09:00 (Europe/Oslo, UTC+01:00)", "skipped"],
      ["Fri 2026-11-27 09:00 (Europe/Oslo, UTC+01:00)", "skipped"],
    ]);
    expect(history.text).toContain("missed by 48.0 h while no gateway ran, past the grace window of 60 min");
    expect((await get("/console/schedules/sch_unknown")).status).toBe(404);
  } finally {
    await h.close();
  }
}, 30_000);

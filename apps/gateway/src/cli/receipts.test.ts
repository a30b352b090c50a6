import { describe, expect, test } from "bun:test";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { cli } from "../testing/cli.ts";
import { startHarness } from "../testing/harness.ts";

describe("openassistant receipts (real subprocesses)", () => {
  test("receipts lists, filters by status/tool and prints a run's summary as JSON", async () => {
    const h = await startHarness();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "await tools.reminders.list({}); try { await tools.mail.send({ to: 'a', body: 'b' }); } catch {} return 1;" } }),
      textTurn("Done listing; the email failed."),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "cli", surface: "terminal", text: "go" });
    await h.close();
    const runId = outcome.runIds[0]!;

    const table = await cli(["receipts", "--run", runId], { cwd: h.dir });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/mail\.send {2}failed {2}SMTP server refused/);
    expect(table.stdout).toContain("❌ mail.send failed");
    expect(table.stdout).toContain("Hash chain: intact");

    const failed = await cli(["receipts", "--status", "failed", "--json"], { cwd: h.dir });
    const parsed = JSON.parse(failed.stdout);
    expect(parsed.receipts.map((r: { phase: string }) => r.phase)).toEqual(["requested", "started", "failed"]);
    const byTool = JSON.parse((await cli(["receipts", "--tool", "reminders.*", "--json"], { cwd: h.dir })).stdout);
    expect(byTool.count).toBe(3);
    const bad = await cli(["receipts", "--status", "weird"], { cwd: h.dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--status must be one of");
  }, 20_000);
});

import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { cli } from "../../test/cli.ts";
import { startHarness, TEST_MODEL } from "../../test/harness.ts";

describe("openassistant receipts (real subprocesses)", () => {
  test("receipts lists, filters by status/tool and prints a run's summary as JSON", async () => {
    const h = await startHarness();
    h.api.script([
      toolUseTurn({
        id: "toolu_1",
        name: "execute",
        input: {
          code: "await tools.reminders.list({}); try { await tools.mail.send({ to: 'a', body: 'b' }); } catch {} return 1;",
        },
      }),
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
    // #35: the model that wrote the run's code, on each call's first row.
    expect(table.stdout).toContain(`reminders.list  requested (code by anthropic:${TEST_MODEL})`);

    const failed = await cli(["receipts", "--status", "failed", "--json"], { cwd: h.dir });
    const parsed = JSON.parse(failed.stdout);
    expect(parsed.receipts.map((r: { phase: string }) => r.phase)).toEqual(["requested", "started", "failed"]);
    const byTool = JSON.parse((await cli(["receipts", "--tool", "reminders.*", "--json"], { cwd: h.dir })).stdout);
    expect(byTool.count).toBe(3);
    const bad = await cli(["receipts", "--status", "weird"], { cwd: h.dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--status must be one of");
  }, 20_000);

  test("receipts verify checks the whole database with the key from the config dir and names the first bad row", async () => {
    const h = await startHarness();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "await tools.reminders.list({}); return 1;" } }),
      textTurn("Listed."),
    ]);
    await h.gateway.handleMessage({ sessionKey: "cli", surface: "terminal", text: "go" });
    const dbPath = h.gateway.settings.databasePath;
    await h.close();

    // Created on the gateway's first start, beside the auth profiles, readable by the owner only.
    expect(statSync(join(h.configDir, "receipts.key")).mode & 0o777).toBe(0o600);
    const ok = await cli(["receipts", "verify"], { cwd: h.dir });
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.stdout).toContain("intact");
    expect(ok.stdout).toMatch(/3 keyed \(HMAC-SHA256, one chain, key .*config\/receipts\.key\)/);
    expect(ok.stdout).toContain("tail checked against the head");

    const raw = new Database(dbPath);
    raw.exec("DROP TRIGGER receipts_no_update; UPDATE receipts SET decided_by = 'mallory' WHERE seq = 2");
    raw.close();
    const broken = await cli(["receipts", "verify", "--json"], { cwd: h.dir });
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({
      ok: false,
      brokenAt: "r_000002",
      reason: expect.stringContaining("keyed MAC"),
    });

    const noKey = await cli(["receipts", "verify"], {
      cwd: h.dir,
      env: { OPENASSISTANT_CONFIG_DIR: `${h.dir}/elsewhere` },
    });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain("No receipt key at");
    expect((await cli(["receipts", "check"], { cwd: h.dir })).stderr).toContain('Unknown action "check"');
  }, 20_000);

  test("receipts views show invisible and bidi characters escaped: the table, one field per line, and JSON", async () => {
    const h = await startHarness();
    const to = "boss@example.com\u202E\u200Bmoc.live";
    h.api.script([
      toolUseTurn({
        id: "toolu_1",
        name: "execute",
        input: { code: `try { await tools.mail.send({ to: ${JSON.stringify(to)}, body: "hi" }); } catch {} return 1;` },
      }),
      textTurn("Done."),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "cli", surface: "terminal", text: "go" });
    await h.close();
    const runId = outcome.runIds[0]!;

    const table = await cli(["receipts", "--run", runId], { cwd: h.dir });
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(/[\u202E\u200B]/);
    expect(table.stdout).toContain('to: "boss@example.com\\u{202E}\\u{200B}moc.live"');
    expect(table.stdout).toContain('body: "hi"');
    const list = await cli(["receipts"], { cwd: h.dir });
    expect(list.stdout).not.toMatch(/[\u202E\u200B]/);
    expect(list.stdout).toContain("\\u{202E}");

    const json = await cli(["receipts", "--run", runId, "--json"], { cwd: h.dir });
    expect(json.stdout).not.toMatch(/[\u202E\u200B]/);
    // The same data: the escapes are JSON's own.
    const requested = JSON.parse(json.stdout).receipts.find((r: { phase: string }) => r.phase === "requested");
    expect(JSON.parse(requested.inputPreview).to).toBe(to);
  }, 20_000);
});

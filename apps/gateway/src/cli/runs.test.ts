import { describe, expect, test } from "bun:test";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { cli } from "../../test/cli.ts";
import { startHarness } from "../../test/harness.ts";
import { storageBackend } from "../storage/index.ts";

describe("openassistant runs (real subprocesses)", () => {
  test("runs list --pending shows what a killed process left open; runs cancel closes it with receipts that verify", async () => {
    const h = await startHarness();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.reminders.list({});" } }),
      textTurn("Listed."),
    ]);
    const done = await h.gateway.handleMessage({ sessionKey: "runs", surface: "terminal", text: "go" });
    const dbPath = h.gateway.settings.databasePath;
    await h.close();

    // What a gateway killed mid-run leaves: a call waiting for its card, another cut off running.
    const store = await storageBackend().openReceipts(dbPath, h.configDir);
    const base = { runId: "run_killed", approval: "required", policy: "required" } as const;
    store.receipts.stage({ ...base, callId: "call_wait", toolPath: "mail.send", phase: "requested" });
    store.receipts.stage({ ...base, callId: "call_cut", toolPath: "reminders.create", phase: "requested" });
    store.receipts.stage({
      ...base,
      callId: "call_cut",
      toolPath: "reminders.create",
      phase: "approved",
      decision: "approved",
      decidedBy: "ann",
    });
    store.receipts.stage({ ...base, callId: "call_cut", toolPath: "reminders.create", phase: "started" });
    await store.receipts.durable();
    await store.close();

    const env = { OPENASSISTANT_CONFIG_DIR: h.configDir };
    const list = await cli(["runs", "list", "--pending"], { cwd: h.dir, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("run_killed");
    expect(list.stdout).toMatch(/call_wait {2}tools\.mail\.send {2}waiting for a decision \(requested\)/);
    expect(list.stdout).toMatch(/call_cut {2}tools\.reminders\.create {2}cut off while running/);
    expect(list.stdout).not.toContain(done.runIds[0]!);

    const cancel = await cli(["runs", "cancel", "run_killed"], { cwd: h.dir, env });
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toMatch(/call_wait {2}tools\.mail\.send {2}denied/);
    expect(cancel.stdout).toMatch(/call_cut {2}tools\.reminders\.create {2}failed \(outcome unknown\)/);

    const after = JSON.parse((await cli(["runs", "list", "--pending", "--json"], { cwd: h.dir, env })).stdout);
    expect(after.count).toBe(0);
    const receipts = JSON.parse((await cli(["receipts", "--run", "run_killed", "--json"], { cwd: h.dir, env })).stdout);
    const closing = receipts.receipts.slice(-2);
    expect(closing.map((r: { phase: string }) => r.phase).sort()).toEqual(["denied", "failed"]);
    expect(closing.find((r: { phase: string }) => r.phase === "failed").error).toStartWith("outcome unknown");
    expect((await cli(["receipts", "verify"], { cwd: h.dir, env })).code).toBe(0);

    const again = await cli(["runs", "cancel", "run_killed"], { cwd: h.dir, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("has no pending call");
    const bad = await cli(["runs", "list"], { cwd: h.dir, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("runs list --pending");
  }, 30_000);
});

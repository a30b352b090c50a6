import { afterEach, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { receiptKeyPath } from "@openassistant/core/receipts";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";
import { type Harness, startHarness } from "../../test/harness.ts";

const pg = usePostgres();
const exec = (id: string, code: string) => toolUseTurn({ id, name: "execute", input: { code } });

let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
});

test("storage.url: a turn with an approved call lands in PostgreSQL, not SQLite; a second gateway and `receipts verify` read it", async () => {
  const url = await pg.freshDatabase();
  const settings = { storageUrl: url, http: { port: 0 } };
  const first = await startHarness({ settings });
  harnesses.push(first);
  const code = 'return await tools.reminders.create({ text: "call mom", at: "9:00" }); // pg-e2e-marker';
  first.api.script([exec("toolu_1", code), textTurn("Reminder set.")]);
  const gateway = first.gateway;
  gateway.events.subscribe((e) => {
    if (e.type === "approval.requested")
      void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "ann" });
  });
  const outcome = await gateway.handleMessage({ sessionKey: "pg-e2e", surface: "terminal", text: "remind me" });
  expect(outcome.stopReason).toBe("answered");
  expect(first.calls).toEqual(["reminders.create:call mom"]);
  // Never the SQLite file when storage.url is set.
  expect(gateway.db).toBeUndefined();
  expect(existsSync(gateway.settings.databasePath)).toBe(false);
  // A surface whose store has no PostgreSQL backend is refused, never given the SQLite file.
  expect(() => gateway.openSurfaceStore({ sqlite: () => "sqlite store" })).toThrow(
    /keeps its own tables in SQLite only, and storage\.url puts the gateway's stores on PostgreSQL/,
  );

  const [run] = await gateway.receipts.runs();
  expect(run).toMatchObject({ conversation: "pg-e2e", status: "succeeded" });
  const phases = (await gateway.receipts.byRun(run!.runId)).map((r) => r.phase);
  expect(phases).toEqual(["requested", "approved", "started", "succeeded"]);
  expect(await gateway.receipts.verify()).toMatchObject({ ok: true });

  // A second gateway (its own project folder, the same database and receipt key) sees the run:
  // its receipts, the approval decided on the first, and the code the first gateway's console kept.
  const secondDir = makeTempDir("oa-gw-pg2-");
  mkdirSync(join(secondDir, "config"), { recursive: true });
  copyFileSync(receiptKeyPath(first.configDir), receiptKeyPath(join(secondDir, "config")));
  const second = await startHarness({ settings, dir: secondDir });
  harnesses.push(second);
  const seen = second.gateway.receipts;
  expect((await seen.runs()).map((r) => r.runId)).toEqual([run!.runId]);
  expect((await seen.runs({ q: "pg-e2e-marker" })).map((r) => r.runId)).toEqual([run!.runId]);
  expect(await seen.runs({ q: "no-such-marker" })).toEqual([]);
  const callId = (await seen.byRun(run!.runId))[0]!.callId;
  expect(await second.gateway.approvals.get(callId)).toMatchObject({ decision: { decision: "approved", by: "ann" } });
  expect(await seen.verify()).toMatchObject({ ok: true });

  // The CLI of a project whose config points at the same database verifies it.
  const project = makeTempDir("oa-cli-pg-");
  mkdirSync(join(project, ".openassistant"), { recursive: true });
  writeFileSync(join(project, "package.json"), "{}");
  writeFileSync(
    join(project, ".openassistant", "config.json"),
    JSON.stringify({ storage: { url: "${DATABASE_URL}" } }),
  );
  const password = new URL(url).password;
  const verified = await cli(["receipts", "verify"], {
    cwd: project,
    env: { DATABASE_URL: url, OPENASSISTANT_CONFIG_DIR: first.configDir },
  });
  expect(verified.stderr).toBe("");
  expect(verified.code).toBe(0);
  expect(verified.stdout).toContain("intact");
  expect(verified.stdout).toContain(`${new URL(url).hostname}:${new URL(url).port}${new URL(url).pathname}`);
  if (password) expect(verified.stdout).not.toContain(password);
  expect(existsSync(join(project, ".openassistant", "data", "openassistant.sqlite"))).toBe(false);
}, 30_000);

test("storage.url: a gateway starting while another waits for an approval leaves it pending; its decision lets the call go on, once", async () => {
  const url = await pg.freshDatabase();
  const settings = { storageUrl: url };
  const first = await startHarness({ settings });
  harnesses.push(first);
  first.api.script([
    exec("toolu_x", 'return await tools.reminders.create({ text: "from afar", at: "8:00" });'),
    textTurn("Set."),
  ]);
  const requested = new Promise<string>((ok) =>
    first.gateway.events.subscribe((e) => e.type === "approval.requested" && ok(e.request.callId)),
  );
  const turn = first.gateway.handleMessage({ sessionKey: "pg-far", surface: "terminal", text: "remind me" });
  const callId = await requested;

  // The second gateway starts now: the first's request is not an orphan of a dead process.
  const secondDir = makeTempDir("oa-gw-pg2-");
  mkdirSync(join(secondDir, "config"), { recursive: true });
  copyFileSync(receiptKeyPath(first.configDir), receiptKeyPath(join(secondDir, "config")));
  const second = await startHarness({ settings, dir: secondDir });
  harnesses.push(second);
  expect((await second.gateway.approvals.get(callId))!.status).toBe("pending");

  expect(await second.gateway.approvals.decide(callId, { decision: "approved", by: "bob" })).toMatchObject({
    outcome: "decided",
  });
  const outcome = await turn;
  expect(outcome.stopReason).toBe("answered");
  expect(first.calls).toEqual(["reminders.create:from afar"]);
  expect(second.calls).toEqual([]);
  const trail = await second.gateway.receipts.query({ callId });
  expect(trail.map((r) => r.phase)).toEqual(["requested", "approved", "started", "succeeded"]);
  expect(await first.gateway.approvals.get(callId)).toMatchObject({ decision: { decision: "approved", by: "bob" } });
}, 30_000);

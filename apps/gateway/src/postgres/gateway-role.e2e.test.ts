import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connectPostgres } from "@openassistant/core/db";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { type Harness, startHarness } from "../../test/harness.ts";
import { migrateAll } from "./migrations.ts";

const pg = usePostgres();
const OPS = "111111111111111111";
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The grants docs/scaling.md gives the gateway role (the block after its `gateway-role-grants` marker). */
function documentedGrants(): string {
  const doc = readFileSync(join(import.meta.dir, "..", "..", "..", "..", "docs", "scaling.md"), "utf8");
  const block = /<!-- gateway-role-grants[^>]*-->\s*```sql\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error("docs/scaling.md has no gateway-role-grants block");
  return block;
}

test("a gateway connected as a role with exactly the documented grants runs a turn with an approval, its console and verify", async () => {
  const url = await pg.freshDatabase();
  // The owner (here the test kit's superuser) migrates every store, as `openassistant db migrate` does.
  const owner = connectPostgres(url, { max: 1 });
  try {
    await migrateAll(owner);
  } finally {
    await owner.close();
  }
  const server = await pg.server();
  const database = new URL(url).pathname.slice(1);
  server.psql(`CREATE ROLE oa_gateway LOGIN; ${documentedGrants()}`, database);
  const asGateway = url.replace("postgres://postgres@", "postgres://oa_gateway@");

  const logs: string[] = [];
  h = await startHarness({
    settings: { storageUrl: asGateway, http: { port: 0, approvers: [OPS] } },
    gateway: { log: (line) => logs.push(line) },
  });
  h.api.script([
    toolUseTurn({
      id: "toolu_1",
      name: "execute",
      input: { code: 'return await tools.reminders.create({ text: "granted", at: "9:00" });' },
    }),
    textTurn("Set."),
  ]);
  const gateway = h.gateway;
  gateway.events.subscribe((e) => {
    if (e.type === "approval.requested")
      void gateway.approvals.decide(e.request.callId, { decision: "approved", by: OPS });
  });
  const outcome = await gateway.handleMessage({ sessionKey: "granted", surface: "terminal", text: "remind me" });
  expect(outcome.stopReason).toBe("answered");
  expect(h.calls).toEqual(["reminders.create:granted"]);
  expect(await gateway.receipts.verify()).toMatchObject({ ok: true, keyed: 4 });
  // pg-boss's own work (its instance registry, the runs' jobs) needed nothing the grants left out.
  expect(logs.filter((l) => /pg-boss|permission denied/i.test(l))).toEqual([]);

  const login = await fetch(gateway.console!.loginLink(OPS), { redirect: "manual" });
  const cookie = /oa_console=[^;]+/.exec(login.headers.get("set-cookie") ?? "")![0];
  const [run] = await gateway.receipts.runs();
  for (const path of ["/console/approvals", "/console/runs", `/console/runs/${run!.runId}`, "/console/pending"]) {
    const res = await fetch(`${gateway.http!.url}${path}`, { headers: { cookie } });
    expect(`${path} ${res.status}`).toBe(`${path} 200`);
  }
  // It owns nothing, so it can neither edit receipts nor lift the trigger that forbids it.
  const role = connectPostgres(asGateway, { max: 1 });
  try {
    await expect(role`UPDATE receipts SET error = 'x'`).rejects.toThrow(/permission denied/);
    await expect(role`ALTER TABLE receipts DISABLE TRIGGER receipts_append_only`).rejects.toThrow(/must be owner/);
  } finally {
    await role.close();
  }
}, 30_000);

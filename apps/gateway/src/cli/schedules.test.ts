import { expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { cli } from "../../test/cli.ts";
import { startHarness } from "../../test/harness.ts";

test("openassistant schedules add|list|pause|resume|remove (real subprocesses); a gateway on the same database fires what the CLI added", async () => {
  const clock = { t: Date.parse("2026-11-26T12:00:00Z"), now: () => clock.t };
  const h = await startHarness({ gateway: { clock } });
  await h.gateway.shutdown(); // the database and the receipt key exist now
  const env = { OPENASSISTANT_CONFIG_DIR: h.configDir };
  const run = (...args: string[]) => cli(["schedules", ...args], { cwd: h.dir, env });

  expect((await run("list")).stdout).toBe("No schedules.\n");
  const bad = await run("add", "--name", "x", "--cron", "0 25 * * *", "--prompt", "p", "--conversation", "terminal");
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('when.cron: "0 25 * * *" is not a cron pattern');
  const noName = await run("add", "--every", "1h", "--prompt", "p", "--conversation", "terminal");
  expect(noName.code).toBe(1);
  expect(noName.stderr).toContain("--name:");

  // Created at the wall clock's time: the next fire times are the next full hours.
  const added = await run(
    "add",
    "--name",
    "hourly status",
    "--cron",
    "0 * * * *",
    "--tz",
    "UTC",
    "--prompt",
    "say the status",
    "--conversation",
    "terminal",
    "--missed",
    "skip",
    "--tools",
    "reminders.list, reminders.*",
  );
  expect(added.stderr).toBe("");
  expect(added.code).toBe(0);
  const id = /Created (sch_\w+)\./.exec(added.stdout)![1]!;
  expect(added.stdout).toContain(`${id}  hourly status  cron 0 * * * *  UTC  active`);
  expect(added.stdout).toContain('    runs: the prompt "say the status" in terminal');
  expect(added.stdout).toContain("    tools: reminders.list, reminders.*  missed: skip");
  expect(added.stdout).toMatch(/ {4}next: \w{3} \d{4}-\d\d-\d\d \d\d:00 \(UTC, UTC\+00:00\); .+; .+\n/);

  expect((await run("pause", id)).stdout).toBe(`Paused ${id}.\n`);
  const paused = JSON.parse((await run("list", "--json")).stdout);
  expect(
    paused.schedules.map((s: { id: string; paused: boolean; next: number[] }) => [s.id, s.paused, s.next]),
  ).toEqual([[id, true, []]]);
  expect((await run("resume", id)).stdout).toBe(`Resumed ${id}.\n`);

  // A gateway on this database fires it: the test's clock is moved past the next full hour.
  const [listed] = JSON.parse((await run("list", "--json")).stdout).schedules;
  const gateway = await h.restart();
  h.api.script([textTurn("All systems normal.")]);
  clock.t = listed.next[0];
  expect((await gateway.schedules.tick()).fired).toEqual([{ scheduleId: id, at: listed.next[0] }]);
  await gateway.schedules.idle();
  const [occurrence] = await gateway.schedules.service.history(id);
  expect(occurrence!.status).toBe("succeeded");
  await gateway.shutdown();

  expect((await run("remove", id)).stdout).toBe(`Removed ${id}.\n`);
  const again = await run("remove", id);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain(`No schedule ${id}`);
  expect((await run("list")).stdout).toBe("No schedules.\n");
  expect((await cli(["receipts", "verify"], { cwd: h.dir, env })).code).toBe(0);
  await h.close();
}, 30_000);

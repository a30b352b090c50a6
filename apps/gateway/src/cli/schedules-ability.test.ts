import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOY } from "../../test/abilities-deploy.ts";
import { cli } from "../../test/cli.ts";
import { startHarness } from "../../test/harness.ts";

test("openassistant schedules add --ability <name> --input k=v (real subprocesses): bad inputs and an unknown ability named; a valid one shows the ability and its inputs", async () => {
  const h = await startHarness();
  await h.gateway.shutdown(); // the database and the receipt key exist now
  mkdirSync(join(h.dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(h.dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  const env = { OPENASSISTANT_CONFIG_DIR: h.configDir };
  const add = (...args: string[]) =>
    cli(
      [
        "schedules",
        "add",
        "--name",
        "release",
        "--cron",
        "0 16 * * 5",
        "--tz",
        "Europe/Oslo",
        "--conversation",
        "terminal",
        ...args,
      ],
      {
        cwd: h.dir,
        env,
      },
    );
  try {
    const bad = await add("--ability", "deploy", "--input", "version=1.0");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('inputs: ability "deploy": version: must match ^v\\d+\\.\\d+\\.\\d+$');
    const unknown = await add("--ability", "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('ability: no ability "nope" (abilities: deploy; see docs/abilities.md)');
    const notKv = await add("--ability", "deploy", "--input", "v1.2.3");
    expect(notKv.code).toBe(1);
    expect(notKv.stderr).toContain('--input: "v1.2.3" is not name=value; write --input name=value');

    const added = await add("--ability", "deploy", "--input", "version=v1.2.3", "--input=environment=prod");
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(
      '    runs: the ability deploy with inputs {"version":"v1.2.3","environment":"prod"} in terminal',
    );
    expect(added.stdout).toContain("    tools: any  missed: once");
    expect(added.stdout).toMatch(/ {4}next: Fri \d{4}-\d\d-\d\d 16:00 \(Europe\/Oslo, /);
  } finally {
    await h.close();
  }
}, 30_000);

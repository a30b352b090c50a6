import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { fixtureTools, TEST_API_KEY } from "../../test/harness.ts";
import { createGateway, startGatewayProcesses, type GatewayOptions } from "../gateway.ts";
import type { GatewaySettings } from "../settings.ts";

// Real child processes (sandbox pool, typechecker) start and stop in every test: seconds on a busy machine.
setDefaultTimeout(30_000);

/** This process's live children (Linux /proc): the sandbox pool's and the typechecker's processes. */
function children(): Set<number> {
  const pids = new Set<number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      // pid (comm) state ppid …; comm may hold spaces, so read after its closing parenthesis.
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === process.pid && state !== "Z") pids.add(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/**
 * Files under `dir` this process holds open (key files, the receipt journal, the token file). The
 * database's own are left out unless `database` is set: SQLite closes a closed connection's files
 * only once its prepared statements are collected, so after stores have run queries they are
 * checked by the process exiting on its own (`exitsOnItsOwn`). A failure while the stores open
 * comes before any statement, so there the database's files are checked too.
 */
function openFilesUnder(dir: string, database = false): string[] {
  const open: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir) && (database || !/openassistant\.sqlite(-wal|-shm)?$/.test(target))) open.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return open;
}

/**
 * The same failing start in a process of its own, which must then exit by itself: an open
 * database, the fold worker, a server, a watcher or a child process would keep it alive.
 */
async function exitsOnItsOwn(p: Project, settings: Partial<GatewaySettings>): Promise<string> {
  const proc = Bun.spawn(
    ["bun", join(import.meta.dir, "../../test/start-failure.child.ts"), p.dir, JSON.stringify(settings)],
    { stdout: "pipe", stderr: "pipe" },
  );
  // A process that hangs is SIGKILLed and fails the exit-code check below; no wall-clock comparison.
  const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(killer);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(stdout.trim().split("\n").at(-1)!).error;
}

interface Project {
  readonly dir: string;
  readonly configDir: string;
  readonly dataDir: string;
}

function project(): Project {
  const dir = makeTempDir("oa-start-fail-");
  const dataDir = join(dir, ".openassistant", "data");
  mkdirSync(dataDir, { recursive: true });
  return { dir, configDir: join(dir, "config"), dataDir };
}

function options(p: Project, settings: Partial<GatewaySettings> = {}): GatewayOptions {
  return {
    cwd: p.dir,
    env: { ANTHROPIC_API_KEY: TEST_API_KEY },
    configDir: p.configDir,
    tools: fixtureTools(),
    // The early processes are the gateway's once handed over: a failed start closes them too.
    processes: startGatewayProcesses(),
    settings,
  };
}

/** Starts a gateway that must fail with `error`; then nothing it opened is left: no child, no open file. */
async function expectStartReleasesAll(
  p: Project,
  settings: Partial<GatewaySettings>,
  error: RegExp,
  checks: { databaseFiles?: boolean } = {},
): Promise<void> {
  const before = children();
  const opts = options(p, settings);
  const spawned = [...children()].filter((pid) => !before.has(pid));
  expect(spawned.length).toBeGreaterThan(0); // the early processes are running
  await expect(createGateway(opts)).rejects.toThrow(error);
  expect([...children()].filter((pid) => !before.has(pid))).toEqual([]);
  expect(openFilesUnder(p.dir, checks.databaseFiles)).toEqual([]);
  expect(await exitsOnItsOwn(p, settings)).toMatch(error);
}

/** After the fault is fixed, the same project starts and shuts down cleanly (no lock or journal left behind). */
async function expectCleanStart(p: Project, settings: Partial<GatewaySettings> = {}): Promise<void> {
  const before = children();
  const gateway = await createGateway(options(p, settings));
  expect((await gateway.receipts.verify()).ok).toBe(true);
  await gateway.shutdown();
  expect([...children()].filter((pid) => !before.has(pid))).toEqual([]);
  expect(openFilesUnder(p.dir)).toEqual([]);
}

describe("a start that fails half way releases exactly what it opened", () => {
  test("a broken database file: the early processes are closed", async () => {
    const p = project();
    writeFileSync(
      join(p.dataDir, "openassistant.sqlite"),
      "this is not a SQLite database, it is a text file of some length ".repeat(20),
    );
    await expectStartReleasesAll(p, {}, /not a database/, { databaseFiles: true });
  });

  test("a refused receipt key (the database opened first): the database is closed as well", async () => {
    const p = project();
    mkdirSync(p.configDir, { recursive: true });
    const keyFile = join(p.configDir, "receipts.key");
    writeFileSync(keyFile, `${"ab".repeat(32)}\n`);
    chmodSync(keyFile, 0o644);
    await expectStartReleasesAll(p, {}, /Refusing to use .*receipts\.key/, { databaseFiles: true });
    chmodSync(keyFile, 0o600);
    await expectCleanStart(p);
  });

  test("a broken console key (stores, pool, checker and runner open): all of them are closed", async () => {
    const p = project();
    writeFileSync(join(p.dataDir, "console-key"), "not a key\n");
    const http = { port: 0, host: "127.0.0.1" };
    await expectStartReleasesAll(p, { http }, /not a console key/);
    writeFileSync(join(p.dataDir, "console-key"), `${"cd".repeat(32)}\n`, { mode: 0o600 });
    chmodSync(join(p.dataDir, "console-key"), 0o600);
    await expectCleanStart(p, { http });
  });

  test("the HTTP port in use (the last step): everything before it is closed, the port's owner keeps it", async () => {
    const p = project();
    const taken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("mine") });
    try {
      const http = { port: taken.port!, host: "127.0.0.1" };
      await expectStartReleasesAll(p, { http }, /port|in use|EADDRINUSE/i);
      expect(await (await fetch(`http://127.0.0.1:${taken.port}/`)).text()).toBe("mine");
    } finally {
      await taken.stop(true);
    }
    await expectCleanStart(p, { http: { port: 0, host: "127.0.0.1" } });
  });
});

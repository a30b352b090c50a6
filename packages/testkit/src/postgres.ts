import { afterAll, beforeAll } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  lchownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { basename, dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { makeTempDir } from "./temp.ts";

/**
 * A throwaway real PostgreSQL for tests and benchmarks: Debian's `postgresql` package binaries,
 * `initdb` in a temp dir, listening on 127.0.0.1 on a free port (its unix socket dir inside the
 * temp dir too), stopped and removed by `stop()` (and killed at process exit if a test forgot).
 *
 * initdb and postgres refuse to run as root, and CI runs as root: then both run as the package's
 * `postgres` user (or `nobody` when it is missing) through `setpriv`, in a temp dir handed to that
 * user. One initdb per machine and server version (clusterTemplate): servers copy that cluster.
 * Readiness is the server's own "ready to accept connections" log line, bounded by 30 s.
 */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth on loopback). */
  readonly url: string;
  readonly port: number;
  /** A new empty database on this server; its URL. */
  freshDatabase(): Promise<string>;
  /** Runs SQL as the superuser through `psql` (test setup: roles, grants). */
  psql(sql: string, database?: string): string;
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Extra `-c name=value` server settings; tests default to `fsync=off` (nothing here outlives the test). */
  readonly settings?: Readonly<Record<string, string>>;
}

/** The newest installed server's bin dir: /usr/lib/postgresql/<newest>/bin, else `pg_config --bindir`. */
export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin");
  }
  const r = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const dir = r.status === 0 ? r.stdout.trim() : "";
  return dir && existsSync(join(dir, "initdb")) ? dir : undefined;
}

const MISSING =
  "PostgreSQL server binaries not found (looked in /usr/lib/postgresql/*/bin and pg_config --bindir): install Debian's package with `apt-get install -y --no-install-recommends postgresql` (.ci/run does)";

/** Who runs the server: ourselves, or (as root) an unprivileged user read from /etc/passwd. */
let runAs: { uid: number; gid: number } | null | undefined;
function serverUser(): { uid: number; gid: number } | undefined {
  if (runAs !== undefined) return runAs ?? undefined;
  if (process.getuid?.() !== 0) {
    runAs = null;
    return undefined;
  }
  const entries = new Map(
    readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .map((line) => line.split(":"))
      .filter((f) => f.length >= 4)
      .map((f) => [f[0]!, { uid: Number(f[2]), gid: Number(f[3]) }] as const),
  );
  const found = entries.get("postgres") ?? entries.get("nobody");
  if (!found)
    throw new Error("running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL as");
  runAs = found;
  return found;
}

function asServerUser(argv: readonly string[]): string[] {
  const user = serverUser();
  // setpriv execs the command itself (runuser forks), so the pid we hold is the server's.
  return user ? ["setpriv", `--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--", ...argv] : [...argv];
}

/** A temp dir the server's user owns (0700, as initdb requires of its data dir). */
function ownedDir(prefix: string): string {
  const dir = makeTempDir(prefix);
  const as = serverUser();
  if (as) chownSync(dir, as.uid, as.gid);
  chmodSync(dir, 0o700);
  return dir;
}

function chownTree(path: string): void {
  const as = serverUser();
  if (!as) return;
  chownSync(path, as.uid, as.gid);
  for (const entry of readdirSync(path, { recursive: true, encoding: "utf8" }))
    lchownSync(join(path, entry), as.uid, as.gid);
}

/**
 * The initdb'd cluster every server starts from, made once per machine and server version
 * (`<tmp>/oa-pg-template-<version>-<uid>`, ~40 MB, kept as a cache: a process's exit hooks do not
 * always run under `bun test`, so a per-process template would leak one per run). Built in a
 * temp dir and renamed into place, so two processes starting at once never see half of one.
 */
function clusterTemplate(bin: string): string {
  const final = join(tmpdir(), `oa-pg-template-${basename(dirname(bin))}-${process.getuid?.() ?? 0}`);
  const data = join(final, "data");
  if (existsSync(join(data, "PG_VERSION"))) return data;
  const building = ownedDir("oa-pg-initdb-");
  const [cmd, ...args] = asServerUser([
    join(bin, "initdb"),
    "-D",
    join(building, "data"),
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  const r = spawnSync(cmd!, args, { encoding: "utf8" });
  if (r.status !== 0) {
    rmSync(building, { recursive: true, force: true });
    throw new Error(`initdb failed (exit ${r.status}): ${r.stderr || r.stdout}`);
  }
  try {
    renameSync(building, final);
  } catch (e) {
    // Another process put its template in place first: use that one.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(data, "PG_VERSION"))) throw e;
  }
  return data;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

const running = new Set<number>();
let exitHooked = false;
function killAtExit(pid: number): void {
  running.add(pid);
  if (exitHooked) return;
  exitHooked = true;
  process.on("exit", () => {
    // Immediate shutdown: the postmaster stops its backends itself.
    for (const p of running) {
      try {
        process.kill(p, "SIGQUIT");
      } catch {
        // already gone
      }
    }
  });
}

const READY = /database system is ready to accept connections/;
const START_BOUND_MS = 30_000;

export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(MISSING);
  const dir = ownedDir("oa-pg-");
  const data = join(dir, "data");
  cpSync(clusterTemplate(bin), data, { recursive: true });
  chownTree(data);
  chmodSync(data, 0o700);
  const sockets = join(dir, "sock");
  mkdirSync(sockets, { mode: 0o700 });
  chownTree(sockets);
  const settings = { fsync: "off", full_page_writes: "off", max_connections: "100", ...options.settings };
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const argv = asServerUser([
      join(bin, "postgres"),
      "-D",
      data,
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-k",
      sockets,
      ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
    ]);
    const child = Bun.spawn(argv, { stdout: "ignore", stderr: "pipe" });
    killAtExit(child.pid);
    const outcome = await readiness(child);
    if (outcome.ready) return server(bin, dir, port, child);
    running.delete(child.pid);
    // Another process took the port between our probe and the bind: try another.
    if (attempt < 3 && /could not bind|Address already in use/.test(outcome.log)) continue;
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `PostgreSQL did not start (exit ${child.exitCode}, signal ${child.signalCode}, ${argv.join(" ")}): ${outcome.log.slice(-2000)}`,
    );
  }
}

/** Reads the server's log until it says it is ready, it exits, or the bound passes. */
async function readiness(child: Bun.Subprocess<"ignore", "ignore", "pipe">): Promise<{ ready: boolean; log: string }> {
  let log = "";
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  const bound = setTimeout(() => child.kill("SIGQUIT"), START_BOUND_MS);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { ready: false, log };
      log += decoder.decode(value, { stream: true });
      if (READY.test(log)) {
        // Keep draining the log so the server never blocks on a full pipe.
        void (async () => {
          for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
        })();
        return { ready: true, log };
      }
    }
  } finally {
    clearTimeout(bound);
  }
}

function server(
  bin: string,
  dir: string,
  port: number,
  child: Bun.Subprocess<"ignore", "ignore", "pipe">,
): PostgresServer {
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let databases = 0;
  const psql = (sql: string, database = "postgres"): string => {
    const r = spawnSync(
      join(bin, "psql"),
      [
        "-X",
        "-q",
        "-A",
        "-t",
        "-v",
        "ON_ERROR_STOP=1",
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-U",
        "postgres",
        "-d",
        database,
        "-c",
        sql,
      ],
      { encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`psql failed: ${r.stderr}`);
    return r.stdout.trim();
  };
  return {
    url: url("postgres"),
    port,
    async freshDatabase() {
      const name = `t_${++databases}`;
      psql(`CREATE DATABASE ${name}`);
      return url(name);
    },
    psql,
    async stop() {
      // Fast shutdown: open sessions are ended, then the server exits.
      child.kill("SIGINT");
      await child.exited;
      running.delete(child.pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * For a test file: one server, started before the file's tests (`beforeAll`, with its own 60 s
 * bound: starting takes seconds on a busy host, longer than a test's default 5 s, and a test that
 * times out gets its child processes killed) and stopped after them (`afterAll`);
 * `freshDatabase()` gives each test an empty database of its own.
 */
export function usePostgres(): { freshDatabase(): Promise<string>; server(): Promise<PostgresServer> } {
  let started: Promise<PostgresServer> | undefined;
  const server = () => (started ??= startPostgres());
  beforeAll(async () => {
    await server();
  }, START_BOUND_MS * 2);
  afterAll(async () => {
    if (started) await (await started).stop();
    started = undefined;
  });
  return { server, freshDatabase: async () => (await server()).freshDatabase() };
}

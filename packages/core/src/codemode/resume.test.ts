import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { dirname, join } from "node:path";
import { defineTool, type ToolTree, z } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { ApprovalRequest, RequestApproval } from "../approvals/types.ts";
import { openDatabase } from "../db/open.ts";
import { openFileRunJournal } from "../receipts/replay/file-journal.ts";
import type { RunJournal } from "../receipts/replay/port.ts";
import { readReplayLog } from "../receipts/replay/replay-log.ts";
import { openSqliteRunJournal } from "../receipts/sqlite/run-journal.ts";
import { openSqliteReceipts } from "../receipts/sqlite/ports.ts";
import { summarizeRun, formatSummaryForModel } from "../receipts/summary.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { createRedactor } from "../receipts/redact.ts";
import { createCodeModeRunner } from "./runner.ts";
import { RESUMED } from "./tool-invoker.ts";

/**
 * Runs resumed from their receipts and journal, against the real sandbox and real SQLite files. A
 * "restart" is a second gateway on the same database file: a new connection, receipt store,
 * journal and runner; the first one is left exactly where the crash caught it (a card waiting, a
 * tool mid-call) and is never used again.
 */
const sandbox = createSandboxPool({ minIdle: 1 });
beforeAll(() => sandbox.warmUp());
afterAll(() => sandbox.close());

/** Every execution of a tool, by path: the counter that proves "exactly once". */
type Executions = Map<string, unknown[]>;

/** `hang`: the call of that path with input `n: 2` never returns (the crash comes while it runs). */
function toolsCounting(executions: Executions, hang: { path?: string; started?: () => void } = {}): ToolTree {
  const counted = (path: string, idempotent: boolean, approval: "auto" | "required" = "auto") =>
    defineTool({
      description: path,
      approval,
      idempotent,
      args: z.object({ n: z.number() }),
      run: async (input) => {
        executions.set(path, [...(executions.get(path) ?? []), input.n]);
        if (hang.path === path && input.n === 2) {
          hang.started?.();
          return new Promise(() => {});
        }
        return { path, n: input.n, at: executions.get(path)!.length, ...(input.n === 42 ? { token: SECRET } : {}) };
      },
    });
  return {
    ledger: { add: counted("ledger.add", false), put: counted("ledger.put", true) },
    mail: { send: counted("mail.send", false, "required") },
  };
}

/** One gateway process: its own connection to the database file, receipts, journal and runner. */
/** The run journal's backends: each runs every test below. */
const BACKENDS = [
  { name: "SQLite", open: (_file: string, db: Database): RunJournal => openSqliteRunJournal(db) },
  { name: "file per run", open: (file: string): RunJournal => openFileRunJournal(join(dirname(file), "runs")) },
];
type Backend = (typeof BACKENDS)[number];

function gateway(file: string, tools: ToolTree, requestApproval: RequestApproval, backend: Backend) {
  const db = openDatabase(file);
  const receipts = openSqliteReceipts(db);
  const journal = backend.open(file, db);
  const redact = createRedactor([SECRET]);
  const runner = createCodeModeRunner({ tools, receipts, journal, requestApproval, sandbox, redact });
  return { db, receipts, journal, runner };
}

const SECRET = "vault-token-4f9a2c7e1b";
const WRITER = "openai-compatible:llama3.1:8b";

const approve: RequestApproval = async () => ({ decision: "approved", by: "operator" });

/** A gateway whose approval card waits until the "crash"; resolves with the card's request. */
function waitingForApproval(file: string, tools: ToolTree, backend: Backend) {
  let asked!: (r: ApprovalRequest) => void;
  const card = new Promise<ApprovalRequest>((resolve) => (asked = resolve));
  const g = gateway(
    file,
    tools,
    (request) => {
      asked(request);
      return new Promise(() => {}); // nobody clicks before the restart
    },
    backend,
  );
  return { ...g, card };
}

for (const backend of BACKENDS)
  describe(`run journal: ${backend.name}`, () => {
    const gw = (file: string, tools: ToolTree, requestApproval: RequestApproval) =>
      gateway(file, tools, requestApproval, backend);

    describe("a run resumed from its record", () => {
      test("calls already answered are replayed, not executed; the waiting call runs once after the restart; receipts verify", async () => {
        const file = join(makeTempDir(), "oa.sqlite");
        const executions: Executions = new Map();
        const code = `const a = await tools.ledger.add({ n: 1 }); const b = await tools.ledger.add({ n: 2 });
        const sent = await tools.mail.send({ n: a.at + b.at }); return { a, b, sent };`;
        const before = waitingForApproval(file, toolsCounting(executions), backend);
        void before.runner.runPromise(code, { model: WRITER });
        const card = await before.card; // the card is out: its receipts are committed; the gateway dies here
        expect(executions.get("ledger.add")).toEqual([1, 2]);

        const after = gw(file, toolsCounting(executions), approve);
        const log = await readReplayLog(after.receipts, after.journal, card.runId);
        expect(log!.calls.map((c) => [c.position, c.toolPath, c.state])).toEqual([
          [0, "ledger.add", "answered"],
          [1, "ledger.add", "answered"],
          [2, "mail.send", "not-started"],
        ]);
        const result = await after.runner.runPromise(code, { resume: log! });
        expect(result.error).toBeUndefined();
        expect(JSON.parse(result.valueJson!)).toEqual({
          a: { path: "ledger.add", n: 1, at: 1 },
          b: { path: "ledger.add", n: 2, at: 2 },
          sent: { path: "mail.send", n: 3, at: 1 },
        });
        expect(executions.get("ledger.add")).toEqual([1, 2]); // each executed exactly once, before the restart
        expect(executions.get("mail.send")).toEqual([3]);
        expect(result.runId).toBe(card.runId);
        expect(await after.receipts.verifyRun(card.runId)).toEqual({ ok: true });
        expect((await after.receipts.verify()).ok).toBe(true);
        // The card the crash left stays the call's: the resumed run asks again under the same call id
        // (its `requested` receipt says it resumed), so the approval (and its card) decides it.
        const rows = await after.receipts.byRun(card.runId);
        const old = rows.filter((r) => r.callId === card.callId);
        expect(old.map((r) => r.phase)).toEqual(["requested", "requested", "approved", "started", "succeeded"]);
        expect(old[1]!.reason).toBe(RESUMED);
        expect(result.calls.map((c) => c.callId)).toEqual([card.callId]);
        expect((await after.journal.read(card.runId))!.resumes).toBe(1);
        // The snippet a resume at start runs again: kept by the file backend (the gateway's), not by SQLite's.
        const kept = (await after.journal.read(card.runId))!.context?.code;
        expect(kept).toBe(backend.name === "SQLite" ? undefined : code);
        // #35: the model that wrote the code is named by every receipt, the resumed run's too where
        // the journal keeps the run's context (the file backend, the gateway's).
        const named = rows.map((r) => r.model);
        if (backend.name === "SQLite") expect(named.slice(0, 4)).toEqual(Array(4).fill(WRITER));
        else expect(named).toEqual(Array(rows.length).fill(WRITER));
      }, 30_000);

      test("calls made together (Promise.all) replay from their record by the order they crossed", async () => {
        const file = join(makeTempDir(), "oa.sqlite");
        const executions: Executions = new Map();
        const code = `const [a, b] = await Promise.all([tools.ledger.add({ n: 1 }), tools.ledger.put({ n: 2 })]);
          return (await tools.mail.send({ n: a.at + b.at })).n;`;
        const before = waitingForApproval(file, toolsCounting(executions), backend);
        void before.runner.runPromise(code);
        const card = await before.card;
        const after = gw(file, toolsCounting(executions), approve);
        const log = (await readReplayLog(after.receipts, after.journal, card.runId))!;
        expect(log.calls.map((c) => c.toolPath)).toEqual(["ledger.add", "ledger.put", "mail.send"]);
        const result = await after.runner.runPromise(code, { resume: log });
        expect(result.valueJson).toBe("2");
        expect([executions.get("ledger.add"), executions.get("ledger.put"), executions.get("mail.send")]).toEqual([
          [1],
          [2],
          [2],
        ]);
      }, 30_000);

      test("a call differing from the record stops the run, naming it; nothing further executes", async () => {
        const file = join(makeTempDir(), "oa.sqlite");
        const executions: Executions = new Map();
        const before = waitingForApproval(file, toolsCounting(executions), backend);
        void before.runner.runPromise(
          `await tools.ledger.add({ n: 1 }); await tools.ledger.add({ n: 2 }); await tools.mail.send({ n: 3 });`,
        );
        const card = await before.card;
        const after = gw(file, toolsCounting(executions), approve);
        const log = await readReplayLog(after.receipts, after.journal, card.runId);
        const result = await after.runner.runPromise(
          `await tools.ledger.add({ n: 1 }); try { await tools.ledger.add({ n: 5 }); } catch {}
         await tools.ledger.put({ n: 6 }); await tools.mail.send({ n: 3 }); return "finished";`,
          { resume: log! },
        );
        expect(result.ok).toBe(false);
        expect(result.error!.message).toMatch(
          /diverged from its record at call #2: recorded ledger\.add \(input sha-256 [0-9a-f]{12}\), now ledger\.add \(input sha-256 [0-9a-f]{12}\)/,
        );
        expect(executions.get("ledger.add")).toEqual([1, 2]); // nothing ran again
        expect(executions.get("ledger.put")).toBeUndefined(); // the snippet caught the error; still nothing further ran
        expect(executions.get("mail.send")).toBeUndefined();
        expect((await after.receipts.verify()).ok).toBe(true);
      }, 30_000);
    });

    describe("a call a restart cut off mid-flight", () => {
      /** A run whose `path` call is running when the gateway dies: its `started` receipt is durable, its outcome is not. */
      async function cutOff(path: string) {
        const file = join(makeTempDir(), "oa.sqlite");
        const executions: Executions = new Map();
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        const before = gw(file, toolsCounting(executions, { path, started }), approve);
        const code = `const a = await tools.ledger.add({ n: 1 });
        let b; try { b = await tools.${path}({ n: 2 }); } catch (e) { b = { error: e.code, message: e.message }; }
        const c = await tools.ledger.put({ n: 3 }); return { a: a.at, b, c: c.at };`;
        void before.runner.runPromise(code, { runId: `run_cut_${path.replace(".", "_")}` });
        await running;
        const after = gw(file, toolsCounting(executions), approve);
        const log = await readReplayLog(after.receipts, after.journal, `run_cut_${path.replace(".", "_")}`);
        expect(log!.calls.map((c) => c.state)).toEqual(["answered", "cut-off"]);
        const result = await after.runner.runPromise(code, { resume: log! });
        return { result, executions, after, log: log! };
      }

      test("a tool that is not idempotent is not run again: an outcome-unknown receipt, the model told, the summary unverified", async () => {
        const { result, executions, after, log } = await cutOff("ledger.add");
        expect(executions.get("ledger.add")).toEqual([1, 2]); // the cut-off call ran once, before the crash
        const value = JSON.parse(result.valueJson!);
        expect(value.b.error).toBe("OUTCOME_UNKNOWN");
        expect(value.b.message).toContain("outcome unknown");
        expect(value.b.message).toContain("not run again (the tool is not idempotent)");
        expect(value.c).toBe(1); // the run went on past it
        const rows = await after.receipts.byRun(log.runId);
        const cut = rows.filter((r) => r.callId === log.calls[1]!.callId);
        expect(cut.map((r) => r.phase)).toEqual(["requested", "started", "failed"]);
        expect(cut[2]!.error).toMatch(/^outcome unknown: /);
        const summary = formatSummaryForModel(summarizeRun(rows));
        expect(summary).toContain("❓ ledger.add outcome unknown (unverified)");
        expect((await after.receipts.verify()).ok).toBe(true);
      }, 30_000);

      test("an idempotent tool is run again, once, and succeeds", async () => {
        const { result, executions, after, log } = await cutOff("ledger.put");
        expect(executions.get("ledger.put")).toEqual([2, 2, 3]); // cut off, run again, then the next call
        expect(JSON.parse(result.valueJson!).b).toEqual({ path: "ledger.put", n: 2, at: 2 });
        expect(executions.get("ledger.add")).toEqual([1]);
        const rows = await after.receipts.byRun(log.runId);
        const old = rows.filter((r) => r.callId === log.calls[1]!.callId);
        expect(old.at(-1)!.error).toContain("idempotent or read-only), so the resumed run ran it again");
        expect((await after.receipts.verify()).ok).toBe(true);
      }, 30_000);
    });

    describe("nondeterminism is recorded and replayed", () => {
      test("Math.random takes the same values on resume, so the replayed calls match their record", async () => {
        const file = join(makeTempDir(), "oa.sqlite");
        const executions: Executions = new Map();
        const code = `const r = Math.random(); await tools.ledger.add({ n: r });
        const s = Math.random(); await tools.mail.send({ n: s }); return [r, s];`;
        const before = waitingForApproval(file, toolsCounting(executions), backend);
        void before.runner.runPromise(code);
        const card = await before.card;
        const after = gw(file, toolsCounting(executions), approve);
        const result = await after.runner.runPromise(code, {
          resume: (await readReplayLog(after.receipts, after.journal, card.runId))!,
        });
        expect(result.error).toBeUndefined();
        const [r, s] = JSON.parse(result.valueJson!);
        expect(executions.get("ledger.add")).toEqual([r]); // replayed: the first run's value, executed once
        expect(executions.get("mail.send")).toEqual([s]);
      }, 30_000);

      test("the clock (Date.now, new Date(), Date()) gives the values of the first run again, in order, then runs on", async () => {
        const file = join(makeTempDir(), "oa.sqlite");
        const executions: Executions = new Map();
        const code = `const t = Date.now(); const d = new Date().getTime(); const text = Date();
        await tools.ledger.add({ n: t + d + text.length }); await tools.mail.send({ n: Date.now() });
        return { t, d, later: Date.now(), past: new Date(0).getTime(), isDate: new Date() instanceof Date };`;
        const before = waitingForApproval(file, toolsCounting(executions), backend);
        void before.runner.runPromise(code);
        const card = await before.card;
        const first = executions.get("ledger.add")![0] as number;
        const recordedSend = (await before.journal.read(card.runId))!.clock.at(-1)![0];
        // The real clock has moved on since: only a replayed clock makes the calls match their record.
        while (Date.now() <= recordedSend) await Bun.sleep(1);
        const after = gw(file, toolsCounting(executions), approve);
        const log = (await readReplayLog(after.receipts, after.journal, card.runId))!;
        // Three reads before the first call, one before the second (a value read twice in a row is one run).
        expect(log.clock.reduce((n, [, count]) => n + count, 0)).toBe(4);
        const result = await after.runner.runPromise(code, { resume: log });
        expect(result.error).toBeUndefined();
        const value = JSON.parse(result.valueJson!);
        expect(executions.get("ledger.add")).toEqual([first]); // replayed, not executed again
        expect(executions.get("mail.send")).toEqual([recordedSend]);
        expect(value.t).toBe(log.clock[0]![0]);
        expect(value.later).toBeGreaterThan(recordedSend); // past the record: the real clock
        expect(value.past).toBe(0);
        expect(value.isDate).toBe(true);
      }, 30_000);

      test("secrets in an answer never reach the journal: it keeps the answer redacted", async () => {
        const file = join(makeTempDir(), "oa.sqlite");
        const g = gw(file, toolsCounting(new Map()), approve);
        const result = await g.runner.runPromise(`return (await tools.ledger.add({ n: 42 })).at;`);
        expect(result.valueJson).toBe("1");
        const kept = (await g.journal.read(result.runId))!.calls[0]!.result!;
        expect(JSON.stringify(kept)).not.toContain(SECRET);
        expect(kept).toEqual({
          ok: true,
          json: JSON.stringify({ path: "ledger.add", n: 42, at: 1, token: "[redacted]" }),
        });
      }, 30_000);

      test("a busy-wait on Date.now is recorded as runs of values, and replays to the same number of spins", async () => {
        const file = join(makeTempDir(), "oa.sqlite");
        const executions: Executions = new Map();
        const code = `let spins = 0; const end = Date.now() + 20; while (Date.now() < end) spins++;
        await tools.ledger.add({ n: spins }); await tools.mail.send({ n: 1 }); return spins;`;
        const before = waitingForApproval(file, toolsCounting(executions), backend);
        void before.runner.runPromise(code);
        const card = await before.card;
        const spins = executions.get("ledger.add")![0] as number;
        const after = gw(file, toolsCounting(executions), approve);
        const log = (await readReplayLog(after.receipts, after.journal, card.runId))!;
        expect(log.clock.reduce((n, [, count]) => n + count, 0)).toBe(spins + 2); // the start, each spin, the last check
        expect(log.clock.length).toBeLessThan(100); // ~20 distinct milliseconds, not one entry per read
        const result = await after.runner.runPromise(code, { resume: log });
        expect(result.valueJson).toBe(String(spins));
        expect(executions.get("ledger.add")).toEqual([spins]);
      }, 30_000);
    });
  });

describe("run journal: SQLite", () => {
  test("a resume asked of a runner without a journal runs nothing (every recorded call would run again)", async () => {
    const file = join(makeTempDir(), "oa.sqlite");
    const executions: Executions = new Map();
    const first = gateway(file, toolsCounting(executions), approve, BACKENDS[0]!);
    const done = await first.runner.runPromise(`return (await tools.ledger.add({ n: 1 })).at;`);
    const log = (await readReplayLog(first.receipts, first.journal, done.runId))!;
    const bare = createCodeModeRunner({
      tools: toolsCounting(executions),
      receipts: openSqliteReceipts(openDatabase(file)),
      requestApproval: approve,
      sandbox,
    });
    const result = await bare.runPromise(`return (await tools.ledger.add({ n: 1 })).at;`, { resume: log });
    expect(result.error?.message).toBe("a run can only be resumed by a runner that has a journal");
    expect(executions.get("ledger.add")).toEqual([1]);
  }, 30_000);

  test("a journal that cannot be written stops the call before its tool runs, as unwritable receipts do", async () => {
    const dir = makeTempDir();
    const executions: Executions = new Map();
    const db = openDatabase(join(dir, "oa.sqlite"));
    const journalDb = openDatabase(join(dir, "journal.sqlite"));
    const journal = openSqliteRunJournal(journalDb);
    journalDb.close(); // every write fails from now on
    const runner = createCodeModeRunner({
      tools: toolsCounting(executions),
      receipts: openSqliteReceipts(db),
      journal,
      requestApproval: approve,
      sandbox,
    });
    const result = await runner.runPromise(
      `try { await tools.ledger.add({ n: 1 }); return "ran"; } catch (e) { return e.code; }`,
    );
    expect(result.valueJson).toBe(JSON.stringify("RECEIPTS_UNAVAILABLE"));
    expect(executions.get("ledger.add")).toBeUndefined();
  }, 30_000);
});

import { matchToolPattern } from "../tools/pattern.ts";
import type * as Effect from "effect/Effect";
import type { ToolDefinition, ToolTree } from "@openassistant/sdk";
import type { RequestApproval } from "../approvals/types.ts";
import type { PolicyRule } from "../policy/types.ts";
import { createRedactor } from "../receipts/redact.ts";
import type { ReceiptStaging } from "../receipts/port.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import type { SandboxLimits, SandboxPool } from "../sandbox/types.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { describeThrown } from "./thrown.ts";
import { createToolInvoker, type RunningCalls, type StandingApprovals } from "./tool-invoker.ts";
import type { RunContext, RunJournal } from "../receipts/replay/port.ts";
import type { ReplayLog } from "../receipts/replay/replay-log.ts";
import { RunReplay } from "./run-replay.ts";
import type { CallOutcome, CallProgress, RunResult } from "./run-types.ts";
import { transpileSnippet } from "./transpile.ts";
import { newId } from "../db/new-id.ts";
import type { HookScope } from "../hooks/call.ts";
import { runObservers } from "../hooks/observe.ts";
import type { HookSet } from "../hooks/set.ts";

export interface CodeModeRunnerOptions {
  /** The tools, or a getter so a reload is picked up by the next run (a run keeps the tree it started with). */
  readonly tools: ToolTree | (() => ToolTree);
  readonly requestApproval: RequestApproval;
  readonly receipts: ReceiptStaging;
  /** Operator overrides by tool path pattern; first match wins. */
  readonly policy?: readonly PolicyRule[] | (() => readonly PolicyRule[]);
  /** "Approve always" rules consulted before asking an operator. */
  readonly standing?: StandingApprovals;
  /** Tool path patterns that always ask a person (rules and "approve always" cannot make them automatic). */
  readonly alwaysAsk?: readonly string[];
  readonly limits?: Partial<SandboxLimits>;
  /** Defaults to a pool owned (and closed) by the runner. */
  readonly sandbox?: SandboxPool;
  /**
   * Scrubs secrets from previews, errors and code before they are stored or shown. Defaults to
   * `createRedactor([])`, which removes token shapes (API keys, bearer tokens, Discord tokens).
   */
  readonly redact?: (text: string) => string;
  readonly approvalTimeoutMs?: number;
  readonly toolTimeoutMs?: number;
  readonly previewChars?: number;
  /**
   * Where each run's call order, answers and nondeterminism (`Math.random` seed, clock reads) are journaled, so a run cut off by a
   * restart can be resumed (`RunOptions.resume`). Without it nothing is journaled.
   */
  readonly journal?: RunJournal;
  /**
   * The plugins' hooks, or a getter (a run keeps the set it started with): every call of every run
   * passes their `tool.before` / `tool.after`; `run.start` / `run.end` observe each run.
   */
  readonly hooks?: HookSet | (() => HookSet | undefined);
  /** The roles the surface knows for a user who asks (what hooks see in `ctx.requestedBy.roles`). */
  readonly rolesOf?: (userId: string) => readonly string[];
}

export interface RunOptions {
  readonly runId?: string;
  /** Run against this tree instead of the runner's current one (e.g. the snapshot the code was typechecked against). */
  readonly tools?: ToolTree;
  readonly sessionId?: string;
  readonly requestedBy?: string;
  /** #35: the model that wrote the code (`provider:name`): every receipt of the run names it. */
  readonly model?: string;
  readonly signal?: AbortSignal;
  /** Called as each tool call settles (for live status on surfaces). */
  readonly onCall?: (outcome: CallOutcome) => void;
  /** Called as a running tool reports progress (`ctx.progress`), for live status on surfaces. */
  readonly onProgress?: (progress: CallProgress) => void;
  /** Called with true right before a call awaits an operator's approval and false once it settles. */
  readonly onApprovalWait?: (waiting: boolean) => void;
  /**
   * Resume the run this record is of (`readReplayLog`; `runId` is taken from it): the code runs
   * again and each call that matches the record is answered from it (needs the runner's `journal`).
   */
  readonly resume?: ReplayLog;
}

export interface CodeModeRunner {
  /** Transpiles and runs the model's (already typechecked) TypeScript; never fails — errors are in the result. */
  run(code: string, options?: RunOptions): Effect.Effect<RunResult>;
  /** The same as a promise; cancelled through `options.signal`. */
  runPromise(code: string, options?: RunOptions): Promise<RunResult>;
  /**
   * Transpiles `code` now, ahead of its run: the gateway calls it while the typecheck of the same
   * code runs in the checker process. The next run of exactly this text uses the result, once.
   */
  prepare(code: string): void;
  /**
   * Waits up to `graceMs` (default 2 s) for tool calls still running, then records each remaining
   * one as `failed` with `reason`, so no call is left at `started`; closes an owned sandbox.
   */
  close(options?: { reason?: string; graceMs?: number }): Promise<void>;
}

/** Per tree: its tools by path, and one paths array (the sandbox skips re-sending an identical array). */
const indexes = new WeakMap<ToolTree, { tools: Map<string, ToolDefinition>; paths: readonly string[] }>();
function indexOf(tree: ToolTree) {
  let index = indexes.get(tree);
  if (!index) {
    const tools = indexToolTree(tree);
    indexes.set(tree, (index = { tools, paths: Object.freeze([...tools.keys()]) }));
  }
  return index;
}

export const newRunId = () => newId("run");

let effectModule: typeof Effect | undefined;
/** Loaded when an Effect caller first asks: the gateway's turns use `runPromise`, and the import costs ~30 ms of start-up. */
const effect = (): typeof Effect => (effectModule ??= require("effect/Effect") as typeof Effect);

/** Snippets transpiled ahead and not run yet (a failed typecheck leaves one behind), oldest dropped first. */
const MAX_PREPARED = 4;

/** Paths remembered per runner before the memo starts over (a tree holds far fewer tools). */
const MAX_MEMO_PATHS = 10_000;

/** Whether a tool path matches one of the patterns, remembered per path (checked on every call). */
function alwaysAskMatcher(patterns: readonly string[]): ((path: string) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  const list = [...patterns];
  const memo = new Map<string, boolean>();
  return (path) => {
    let match = memo.get(path);
    if (match === undefined) {
      if (memo.size >= MAX_MEMO_PATHS) memo.clear();
      match = list.some((p) => matchToolPattern(p, path));
      memo.set(path, match);
    }
    return match;
  };
}

export function createCodeModeRunner(options: CodeModeRunnerOptions): CodeModeRunner {
  const ownsSandbox = !options.sandbox;
  const sandbox = options.sandbox ?? createSandboxPool({ limits: options.limits });
  const redact = options.redact ?? createRedactor([]);
  const currentTree = typeof options.tools === "function" ? options.tools : () => options.tools as ToolTree;
  const currentHooks = typeof options.hooks === "function" ? options.hooks : () => options.hooks as HookSet | undefined;
  const running: RunningCalls = new Map();
  const alwaysAsk = alwaysAskMatcher(options.alwaysAsk ?? []);
  const currentPolicy =
    typeof options.policy === "function"
      ? options.policy
      : () => (options.policy as readonly PolicyRule[] | undefined) ?? [];

  const prepared = new Map<string, { readonly js: string } | { readonly error: unknown }>();
  const prepare = (code: string): void => {
    if (prepared.has(code)) return;
    if (prepared.size >= MAX_PREPARED) prepared.delete(prepared.keys().next().value!);
    try {
      prepared.set(code, { js: transpileSnippet(code) });
    } catch (error) {
      prepared.set(code, { error });
    }
  };
  /** The prepared transpile of `code` (taken, so it serves one run), or a new one. */
  const transpiled = (code: string): string => {
    const ahead = prepared.get(code);
    if (!ahead) return transpileSnippet(code);
    prepared.delete(code);
    if ("js" in ahead) return ahead.js;
    throw ahead.error;
  };

  /** `interrupted` is the Effect's own signal: interrupting the fiber aborts the run. */
  const execute = async (code: string, opts: RunOptions, interrupted?: AbortSignal): Promise<RunResult> => {
    const runId = opts.resume?.runId ?? opts.runId ?? newRunId();
    const { tools, paths } = indexOf(opts.tools ?? currentTree());
    const empty = { cpuMs: 0, wallMs: 0, toolCalls: 0 };
    // Without a journal nothing would answer the recorded calls: every one would run a second time.
    if (opts.resume && !options.journal)
      return {
        runId,
        ok: false,
        valueJson: undefined,
        logs: [],
        calls: [],
        stats: empty,
        error: { name: "AbortedError", message: "a run can only be resumed by a runner that has a journal" },
      };
    let js: string;
    try {
      js = transpiled(code);
    } catch (e) {
      return {
        runId,
        ok: false,
        valueJson: undefined,
        logs: [],
        calls: [],
        stats: empty,
        error: { name: "ScriptError", message: describeThrown(e, "the transpiler").crossing },
      };
    }
    const controller = new AbortController();
    const abort = () => controller.abort(opts.signal?.reason);
    const interrupt = () => controller.abort("the run was interrupted");
    if (opts.signal?.aborted) abort();
    if (interrupted?.aborted) interrupt();
    opts.signal?.addEventListener("abort", abort, { once: true });
    interrupted?.addEventListener("abort", interrupt, { once: true });
    const nondeterminism = startNondeterminism(opts.resume);
    const replay = options.journal
      ? journalRun(
          options.journal,
          runId,
          opts.resume,
          { ...nondeterminism, context: runContext(code, opts, redact) },
          controller,
          redact,
        )
      : undefined;
    const hooks = currentHooks();
    const roles = opts.requestedBy ? options.rolesOf?.(opts.requestedBy) : undefined;
    const scope: HookScope = {
      runId,
      ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
      ...(opts.requestedBy ? { requestedBy: { userId: opts.requestedBy, roles: roles ?? [] } } : {}),
    };
    if (hooks && hooks.byEvent["run.start"].length > 0)
      await runObservers(hooks, "run.start", scope, (fn, ctx) => fn({ runId, sessionId: opts.sessionId }, ctx));
    const invoker = createToolInvoker({
      runId,
      sessionId: opts.sessionId,
      requestedBy: opts.requestedBy,
      code,
      tools,
      // A resumed run's receipts name the model its journal recorded.
      receipts: journalFirst(namingModel(options.receipts, opts.model ?? opts.resume?.context?.model), replay),
      requestApproval: options.requestApproval,
      policy: currentPolicy(),
      standing: options.standing,
      alwaysAsk,
      redact,
      approvalTimeoutMs: options.approvalTimeoutMs ?? 10 * 60_000,
      toolTimeoutMs: options.toolTimeoutMs ?? 120_000,
      previewChars: options.previewChars ?? 500,
      signal: controller.signal,
      onCall: opts.onCall,
      onProgress: opts.onProgress,
      onApprovalWait: opts.onApprovalWait,
      running,
      ...(replay ? { replay } : {}),
      ...(hooks ? { hooks } : {}),
      ...(roles ? { roles } : {}),
    });
    try {
      const result = await sandbox.run({
        code: js,
        toolPaths: paths,
        onToolCall: invoker.invoke,
        limits: options.limits,
        signal: controller.signal,
        seed: nondeterminism.seed,
        ...(opts.resume ? { clock: opts.resume.clock } : {}),
        ...(replay ? { onClockReads: replay.clockRead } : {}),
      });
      // The sandbox may end (limit, error) while host calls are still pending; stop them from asking.
      controller.abort("run ended");
      // A call still waiting for its approval is denied by that abort: its outcome is recorded first.
      await invoker.approvalsAnswered();
      if (hooks && hooks.byEvent["run.end"].length > 0) {
        const end = { runId, sessionId: opts.sessionId, ok: result.ok, calls: invoker.outcomes.length };
        // Not awaited: an observer never holds the run's result back (it fails open, logged).
        void runObservers(hooks, "run.end", scope, (fn, ctx) => fn(end, ctx));
      }
      // The result leaves the gateway (to the model, a surface): the calls' outcomes are committed
      // first. A failed commit keeps them queued for the next one, as it did for each call before.
      await journalFirst(options.receipts, replay)
        .durable()
        .catch(() => undefined);
      const stopped = replay?.stoppedBecause();
      const base = {
        runId,
        logs: result.logs.map((l) => ({ level: l.level, text: redact(l.text) })),
        calls: [...invoker.outcomes],
        stats: result.stats,
      };
      if (stopped)
        return { ...base, ok: false, valueJson: undefined, error: { name: "AbortedError", message: redact(stopped) } };
      return result.ok
        ? { ...base, ok: true, valueJson: result.valueJson === undefined ? undefined : redact(result.valueJson) }
        : {
            ...base,
            ok: false,
            valueJson: undefined,
            error: { name: result.error.name, message: redact(result.error.message) },
          };
    } finally {
      opts.signal?.removeEventListener("abort", abort);
      interrupted?.removeEventListener("abort", interrupt);
    }
  };

  // The callback must declare its signal parameter: Effect only passes one when `length` is non-zero.
  const run = (code: string, opts: RunOptions = {}) => effect().promise((signal) => execute(code, opts, signal));
  return {
    run,
    // No fiber to interrupt here (`opts.signal` cancels), so no Effect runtime either: it cost
    // 26 µs per run warm and 130 µs after an idle gap (BENCHMARKS.md, fifth pass).
    runPromise: (code, opts = {}) => execute(code, opts),
    prepare,
    close: async ({ reason = "gateway shutting down", graceMs = 2_000 } = {}) => {
      const deadline = performance.now() + graceMs;
      while (running.size > 0 && performance.now() < deadline) await Bun.sleep(10);
      for (const [callId, abandon] of [...running]) {
        running.delete(callId);
        abandon(reason);
      }
      if (ownsSandbox) await sandbox.close();
    },
  };
}

/** The sandbox's nondeterminism inputs for a run: recorded ones when it resumes, fresh ones otherwise. */
function startNondeterminism(resume: ReplayLog | undefined): { seed: readonly number[] } {
  return { seed: resume ? resume.seed : [...crypto.getRandomValues(new Uint32Array(4))] };
}

/** What a resume at start needs to run it again, kept in the journal's first line (the snippet redacted like every stored text). */
function runContext(code: string, opts: RunOptions, redact: (text: string) => string): RunContext {
  return {
    code: redact(code),
    ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
    ...(opts.requestedBy ? { requestedBy: opts.requestedBy } : {}),
    ...(opts.model ? { model: opts.model } : {}),
  };
}

/** The run's journal: its nondeterminism written when it starts (or its resume counted), and its calls as they cross. */
function journalRun(
  journal: RunJournal,
  runId: string,
  resume: ReplayLog | undefined,
  start: { seed: readonly number[]; context: RunContext },
  controller: AbortController,
  redact: (text: string) => string,
): RunReplay {
  const replay = new RunReplay(journal, runId, resume, (message) => controller.abort(message), redact);
  replay.write(resume ? () => journal.resumed(runId) : () => journal.begin({ runId, ...start }));
  return replay;
}

/** #35: the receipts as the run's calls see them: each names the model that wrote the code, when one did. */
function namingModel(receipts: ReceiptStaging, model: string | undefined): ReceiptStaging {
  if (!model) return receipts;
  return { stage: (draft, o) => receipts.stage({ ...draft, model }, o), durable: receipts.durable };
}

/**
 * The receipts as the run's calls see them: each commit point first commits the run's journal
 * writes, so a durable receipt is never ahead of the journal entry a resume needs. A journal that
 * cannot be written fails the commit point like the receipts would (the tool does not run).
 */
function journalFirst(receipts: ReceiptStaging, replay: RunReplay | undefined): ReceiptStaging {
  if (!replay) return receipts;
  return {
    stage: receipts.stage,
    durable: () => {
      let flushed: void | Promise<void>;
      try {
        flushed = replay.flush();
      } catch (e) {
        return Promise.reject(e);
      }
      // A journal on a server commits asynchronously: the receipts' commit waits for it.
      return flushed ? flushed.then(() => receipts.durable()) : receipts.durable();
    },
  };
}

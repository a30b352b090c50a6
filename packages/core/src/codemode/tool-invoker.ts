import type { HookToolCall, ToolContext, ToolDefinition } from "@openassistant/sdk";
import { approvalInput } from "../approvals/input-preview.ts";
import type { ApprovalDecision, RequestApproval } from "../approvals/types.ts";
import { newId } from "../db/new-id.ts";
import { resolvePolicy } from "../policy/resolve.ts";
import type { PolicyRule } from "../policy/types.ts";
import type { ReceiptStaging } from "../receipts/port.ts";
import type { Decision, PolicyMode, ReceiptDraft, ReceiptPhase } from "../receipts/types.ts";
import type { CrossingError, HostCallResult } from "../sandbox/types.ts";
import type { HookScope } from "../hooks/call.ts";
import type { HookSet } from "../hooks/set.ts";
import { type BeforeVerdict, type HookChange, runToolAfter, runToolBefore } from "../hooks/tool-hooks.ts";
import { cutText } from "../text/cut.ts";
import { toolFiles, toolSummary } from "./approval-card.ts";
import { progressReporter } from "./call-progress.ts";
import { type Admission, closeRecorded, closingError, type RunReplay } from "./run-replay.ts";
import type { CallOutcome, CallProgress } from "./run-types.ts";
import { describeThrown } from "./thrown.ts";
import { parseInput, type ParsedInput } from "./tool-input.ts";
import { loggersFor } from "./tool-log.ts";
import { CallAbort, type RunExit, runTool } from "./tool-run.ts";
import { redactBounded } from "./validation-report.ts";

/** Error messages crossing to the sandbox and recorded in receipts (the store caps them too). */
const MAX_MESSAGE_CHARS = 4_000;

/** A standing "approve always" rule source (the approval rule store implements it). */
export interface StandingApprovals {
  match(toolPath: string, sessionId: string | undefined, now: number): Promise<{ readonly id: string } | undefined>;
}

export interface InvokerContext {
  readonly runId: string;
  readonly sessionId?: string;
  readonly requestedBy?: string;
  /** The model's code, shown on approval cards. */
  readonly code: string;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly receipts: ReceiptStaging;
  readonly requestApproval: RequestApproval;
  readonly policy: readonly PolicyRule[];
  readonly standing?: StandingApprovals;
  /** Tools that always need a person's approval: no operator rule or "approve always" makes them automatic. */
  readonly alwaysAsk?: (toolPath: string) => boolean;
  readonly redact: (text: string) => string;
  readonly approvalTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly previewChars: number;
  readonly signal: AbortSignal;
  readonly onCall?: (outcome: CallOutcome) => void;
  /** A running tool's progress reports (`ctx.progress`), until its call settles. */
  readonly onProgress?: (progress: CallProgress) => void;
  /** Called with true right before awaiting an operator's approval and false once it settles (e.g. to pause a turn clock). */
  readonly onApprovalWait?: (waiting: boolean) => void;
  /** Calls whose `run()` is in progress, across runs; the runner closes them on shutdown. */
  readonly running: RunningCalls;
  /** The run's journal (call order, answers) and, for a resumed run, the record it replays (`journaled`). */
  readonly replay?: RunReplay;
  /** The plugins' hooks (`tool.before`, `tool.after`); none when absent. The model's code never sees them. */
  readonly hooks?: HookSet;
  /** The roles the surface knows for `requestedBy` (what hooks see of who asked). */
  readonly roles?: readonly string[];
}

/**
 * Tool calls between `started` and their outcome. On shutdown the runner settles each one with
 * a `failed` receipt saying why; a result that arrives after that is not recorded twice.
 */
export type RunningCalls = Map<string, (reason: string) => void>;

const newCallId = () => newId("call");

/** A receipt staged by a call joins the next commit rather than starting its own (see `createToolInvoker`). */
const DEFERRED = Object.freeze({ defer: true });

/** A receipt's own fields, after the ones every receipt of a call shares. */
type PhaseFields = Omit<ReceiptDraft, "runId" | "callId" | "toolPath" | "approval" | "policy" | "sessionId" | "phase">;

const written = (): undefined => undefined;
const unwrittenReason = (e: unknown): string =>
  `the receipts could not be written (${describeThrown(e, "the receipt store").recorded})`;

/**
 * Turns one crossing from the sandbox into a policed, receipted tool call:
 * requested → validation → policy → approval → started → succeeded | failed.
 * Every receipt is appended before the step it announces.
 *
 * The call goes through named steps, in order: `validate` → `hooks` → `policy` → `approval` →
 * `commit` → `run` (`STEPS`). Each takes the `Call` and either continues (returns it, for the next
 * step) or settles (returns a `Settled`: how the call ended); a step that must wait first returns
 * a `Wait` (the promise, and the function that goes on once it settles). `record` writes the
 * outcome receipt of every call, whichever step (or a shutdown, `abandon`) settled it, and the
 * first outcome wins.
 */
export function createToolInvoker(ctx: InvokerContext) {
  const invoker: Invoker = {
    ctx,
    outcomes: [],
    inFlight: new Map(),
    asking: new Set(),
    log: loggersFor(ctx.redact),
    scope: undefined,
  };
  // Receipts are staged and committed together; `receipts.durable()` runs right before each step with an
  // effect outside the gateway (approval card, a tool run that is not read-only), so those steps
  // never outrun their receipts, nor the receipts of the read-only calls before them.
  // None starts a commit of its own: the next `durable()` (this call's, the next call's, or the
  // run's end in the runner) carries them, so sequential calls cost one commit each, not two.
  // Cancelling the run aborts the signals of the calls whose `run()` may be in progress: one
  // listener on the run's signal rather than one per call.
  ctx.signal.addEventListener(
    "abort",
    () => {
      for (const [callAbort, path] of invoker.inFlight)
        callAbort.abort(new Error(`the run was cancelled; ${path} should stop`));
    },
    { once: true },
  );
  return {
    invoke: (path: string, inputJson: string): Promise<HostCallResult> => invoke(invoker, path, inputJson),
    outcomes: invoker.outcomes,
    /**
     * Settles once every call now waiting for its approval has its answer, and its outcome (if the
     * answer ended it) is staged: a run that ends (or is cancelled) while a call waits records the
     * call's denial before its result leaves. The broker answers an aborted wait at once.
     */
    approvalsAnswered: (): Promise<unknown> => Promise.allSettled([...invoker.asking]),
  };
}

/** What the calls of one run share. */
interface Invoker {
  readonly ctx: InvokerContext;
  /** In call order of settling. */
  readonly outcomes: CallOutcome[];
  /** Each call's own abort controller while its `run()` may be in progress, with its path. */
  readonly inFlight: Map<CallAbort, string>;
  /** The answers the calls are waiting for (a rule store's, then a person's). */
  readonly asking: Set<Promise<ApprovalDecision>>;
  readonly log: (path: string) => ToolContext["log"];
  /** What the hooks of this run's calls see of it (made once per run, when a hook first needs it). */
  scope: HookScope | undefined;
}

/**
 * One call as the steps see it: what it is, and what the steps so far established. Opened with
 * its policy resolved (every receipt carries it) and its `requested` receipt staged.
 */
interface Call {
  readonly invoker: Invoker;
  readonly path: string;
  readonly inputJson: string;
  readonly id: string;
  readonly t0: number;
  readonly definition: ToolDefinition | undefined;
  readonly approval: "auto" | "required";
  /** A person must decide: no standing "approve always" rule answers for this call. */
  alwaysAsk: boolean;
  /** As resolved for the `requested` receipt; the `policy` step acts on it. */
  policy: PolicyMode;
  /** The operator rule's reason when a rule decided the policy. */
  readonly ruleReason: string | undefined;
  /** The `requested` receipt's input preview (the `started` one reuses it when the input is the same text). */
  readonly requestedPreview: string;
  /** The validated input (`validate`); what `run` gets. */
  input: unknown;
  /** Undefined until the `policy` step lets the call through; then "auto" or, after `approval`, "approved". */
  decision: Decision | undefined;
  decidedBy: string | undefined;
  /** The tool's own signal (`commit`): aborted when the run is cancelled, the call times out or the gateway stops. */
  abort: CallAbort | undefined;
  startedAt: number;
  /** Why a plugin's `tool.before` requires approval, for the card: `required by plugin X: title — summary`. */
  requiredBy: string | undefined;
  /** A succeeded run's own value, while the `tool.after` hooks look at it (`after`). */
  value: unknown;
  durationMs: number;
  /** How the call ended, once `record` wrote it. */
  settled: Settled | undefined;
  /** Its place in the run's journal, when the run keeps one. */
  position: number | undefined;
}

/** A plain object literal, one shape for every call (class fields would be defined one by one). */
function openCall(invoker: Invoker, path: string, inputJson: string, asksAgain?: string): Call {
  const { ctx } = invoker;
  const id = asksAgain ?? newCallId();
  const t0 = performance.now();
  const definition = ctx.tools.get(path);
  const approval = definition?.approval ?? "auto";
  const alwaysAsk = ctx.alwaysAsk?.(path) === true;
  const resolved = definition ? resolvePolicy(path, approval, ctx.policy, alwaysAsk) : undefined;
  const requestedPreview = clip(ctx.redact(inputJson), ctx.previewChars);
  const call: Call = {
    invoker,
    path,
    inputJson,
    id,
    t0,
    definition,
    approval,
    alwaysAsk,
    policy: resolved ? resolved.mode : "deny",
    ruleReason: resolved?.rule?.reason,
    requestedPreview,
    input: undefined,
    decision: undefined,
    decidedBy: undefined,
    abort: undefined,
    startedAt: 0,
    requiredBy: undefined,
    value: undefined,
    durationMs: 0,
    settled: undefined,
    position: undefined,
  };
  stage(
    call,
    "requested",
    asksAgain ? { inputPreview: requestedPreview, reason: RESUMED } : { inputPreview: requestedPreview },
  );
  return call;
}

/**
 * The `reason` of the `requested` receipt a resumed run writes for a recorded call that never
 * started: the call goes on under its own id, so its approval (and the card showing it) still decides it.
 */
export const RESUMED = "resumed: the run was resumed after a restart and asks again under the same call id";

/** How a call ended: its outcome receipt's own fields, and what crosses back to the sandbox. */
interface Settled extends PhaseFields {
  readonly status: CallOutcome["status"];
  readonly result: HostCallResult;
}

/** What a step hands on: the call (continue with the next step) or how it ended (settled). */
type Next = Call | Settled;

/**
 * A step that must wait: what it waits for, and the function that goes on with the call once that
 * settles (`resume`, or `resumeFailed` when it rejects). The driver awaits the promise itself: a
 * step that waits costs no promise of its own (this is the hot crossing path).
 */
class Wait<T> {
  constructor(
    readonly promise: Promise<T>,
    readonly resume: (call: Call, value: T) => Next,
    readonly resumeFailed?: (call: Call, error: unknown) => Next,
  ) {}
}

type Step = (call: Call) => Next | Wait<any>;

/** The steps of every call, in order; `run` settles unless `tool.after` hooks are registered, then `after` does. */
const STEPS: readonly Step[] = [validate, hooks, policy, approval, commit, run, after];

async function invoke(invoker: Invoker, path: string, inputJson: string): Promise<HostCallResult> {
  const admission = invoker.ctx.replay?.admit(path, inputJson, invoker.ctx.tools.get(path));
  if (admission && admission.kind !== "run") return journaled(invoker, path, admission);
  // A call that never started goes on under its id: its pending approval (and card) still decide it.
  const old = admission?.supersedes;
  const call = openCall(invoker, path, inputJson, old?.state === "not-started" ? old.callId : undefined);
  if (admission) enter(call, admission);
  let next: Next = call;
  for (let i = 0; next === call; i++) {
    const step = STEPS[i]!(call);
    if (!(step instanceof Wait)) next = step;
    else if (!step.resumeFailed) next = step.resume(call, await step.promise);
    else
      try {
        next = step.resume(call, await step.promise);
      } catch (e) {
        next = step.resumeFailed(call, e);
      }
  }
  return record(call, next as Settled);
}

/**
 * A call of a resumed run that does not execute: its recorded answer, the run's stop (it diverged
 * from its record), or "outcome unknown" for a call a restart cut off whose tool is not idempotent
 * (its receipts are closed saying so, and the model is told).
 */
function journaled(invoker: Invoker, path: string, admission: Exclude<Admission, { kind: "run" }>): HostCallResult {
  if (admission.kind === "answer") return admission.result;
  const { ctx } = invoker;
  if (admission.kind === "stop")
    return { ok: false, error: { name: "ToolError", message: admission.message, code: "REPLAY_DIVERGED" } };
  const { recorded } = admission;
  const error = closingError(recorded, undefined);
  closeRecorded(ctx.receipts, ctx.runId, ctx.sessionId, recorded, error);
  const outcome: CallOutcome = {
    callId: recorded.callId,
    toolPath: path,
    status: "failed",
    policy: recorded.policy,
    durationMs: 0,
    error,
  };
  invoker.outcomes.push(outcome);
  ctx.onCall?.(outcome);
  return { ok: false, error: { name: "ToolError", message: `${path}: ${error}`, code: "OUTCOME_UNKNOWN" } };
}

/** A call that executes takes its place in the run's journal; a recorded call it replaces is closed. */
function enter(call: Call, admission: Extract<Admission, { kind: "run" }>): void {
  const { ctx } = call.invoker;
  call.position = admission.position;
  ctx.replay!.entered(admission.position, call.id, call.path, call.inputJson);
  const old = admission.supersedes;
  if (old && old.callId !== call.id)
    closeRecorded(ctx.receipts, ctx.runId, ctx.sessionId, old, closingError(old, call.id));
}

/** The tool exists and the input passes its schema (which may check asynchronously). */
function validate(call: Call): Next | Wait<ParsedInput> {
  const definition = call.definition;
  if (!definition) {
    const error = `unknown tool "${call.path}"`;
    return failed(call, error, "ToolError", error, "UNKNOWN_TOOL");
  }
  const parsed = parseInput(definition, call.inputJson);
  return parsed instanceof Promise ? new Wait(parsed, admit) : admit(call, parsed);
}

function admit(call: Call, parsed: ParsedInput): Next {
  if (!parsed.ok) {
    const { path } = call;
    const error = parsed.threw
      ? `the input for ${path} could not be validated: its schema threw (${parsed.threw.recorded})`
      : `invalid input for ${path}: ${parsed.message}`;
    const shown = parsed.threw
      ? `the input for ${path} could not be validated: its schema threw (${parsed.threw.crossing})`
      : error;
    return failed(call, call.invoker.ctx.redact(error), "ToolInputError", shown, "INVALID_INPUT");
  }
  call.input = parsed.value;
  return call;
}

/**
 * The plugins' `tool.before` hooks (issue #29): after validation, before policy. A denial (or a
 * hook that fails: they fail closed) settles the call as denied by `plugin:<id>`; a requirement
 * of approval raises the policy from "auto" to "required" and a person must decide (no standing
 * rule answers for a plugin's requirement); a replaced input, validated again, is what the call
 * goes on with. Each change is a receipt decided by `plugin:<id>`.
 */
function hooks(call: Call): Next | Wait<BeforeVerdict> {
  const set = call.invoker.ctx.hooks;
  if (set === undefined || set.byEvent["tool.before"].length === 0) return call;
  const definition = call.definition!;
  const revalidate = (input: unknown) => {
    const json = safeJson(input);
    return json.ok && json.text !== undefined
      ? parseInput(definition, json.text)
      : { ok: false as const, message: json.ok ? "the input is undefined" : json.message };
  };
  const verdict = runToolBefore(set, hookCall(call), scopeOf(call.invoker), call.invoker.ctx.signal, revalidate);
  return new Wait(verdict, hooked);
}

function hooked(call: Call, verdict: BeforeVerdict): Next {
  const { ctx } = call.invoker;
  for (const change of verdict.changes) {
    if (change.kind === "input") {
      call.input = change.input;
      stage(call, "requested", {
        decidedBy: `plugin:${change.pluginId}`,
        reason: `input replaced by plugin ${change.pluginId}`,
        inputPreview: preview(call.definition!, change.input, call.inputJson, call.requestedPreview, ctx),
      });
    } else if (change.kind === "requireApproval") {
      if (call.policy === "auto") call.policy = "required";
      call.alwaysAsk = true;
      const why = `required by plugin ${change.pluginId}: ${change.title} — ${change.summary}`;
      call.requiredBy = call.requiredBy ? `${call.requiredBy}\n${why}` : why;
      stage(call, "requested", {
        decidedBy: `plugin:${change.pluginId}`,
        reason: ctx.redact(cutText(`approval ${why}`, MAX_MESSAGE_CHARS)),
      });
    }
  }
  if (verdict.denied) {
    const { pluginId, reason } = verdict.denied;
    // A plugin's reason is bounded like a tool's error (the model and the receipt get the same text).
    const shown = redactBounded(reason, MAX_MESSAGE_CHARS, ctx.redact);
    return denied(call, `plugin:${pluginId}`, shown, `${call.path} was denied by plugin ${pluginId}: ${shown}`);
  }
  call.input = verdict.input;
  return call;
}

/** The call as hooks see it: its input passed the tool's args, a zod object, so it is an object. */
function hookCall(call: Call): HookToolCall {
  return { path: call.path, callId: call.id, input: call.input as HookToolCall["input"], approval: call.approval };
}

function scopeOf(invoker: Invoker): HookScope {
  if (invoker.scope) return invoker.scope;
  const { ctx } = invoker;
  invoker.scope = {
    runId: ctx.runId,
    ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
    ...(ctx.requestedBy ? { requestedBy: { userId: ctx.requestedBy, roles: ctx.roles ?? [] } } : {}),
  };
  return invoker.scope;
}

/** The operator's policy: a deny rule settles the call; otherwise it goes on, automatic unless approval is required. */
function policy(call: Call): Next {
  if (call.policy === "deny") {
    const reason = call.ruleReason ?? "denied by operator policy";
    return denied(call, "policy", reason, `${call.path} was denied: ${reason}`);
  }
  call.decision = "auto";
  return call;
}

/**
 * A required call is approved by a standing "approve always" rule (unless a person must
 * decide), else it waits for a person; anything but an approval settles it as denied.
 */
function approval(call: Call): Next | Wait<ApprovalDecision> {
  if (call.policy !== "required") return call;
  const { asking } = call.invoker;
  const answer = ruleOrPerson(call);
  asking.add(answer);
  const answered = () => void asking.delete(answer);
  answer.then(answered, answered);
  return new Wait(answer, decided);
}

/** The rule store is asked first (it answers asynchronously); without a standing rule, a person decides. */
async function ruleOrPerson(call: Call): Promise<ApprovalDecision> {
  const { ctx } = call.invoker;
  const rule = call.alwaysAsk ? undefined : await ctx.standing?.match(call.path, ctx.sessionId, Date.now());
  return rule ? { decision: "approved", by: `rule:${rule.id}` } : decide(call);
}

function decided(call: Call, verdict: ApprovalDecision): Next {
  if (verdict.decision === "denied") {
    const reason = verdict.reason ?? "denied by operator";
    return denied(call, verdict.by, reason, `${call.path} was denied by ${verdict.by}: ${reason}`);
  }
  return approved(call, verdict.by);
}

function approved(call: Call, decidedBy: string): Call {
  call.decision = "approved";
  call.decidedBy = decidedBy;
  stage(call, "approved", { decision: call.decision, decidedBy: call.decidedBy });
  return call;
}

/** A person's decision, asked on an approval card once the `requested` receipt is committed. */
async function decide(call: Call): Promise<ApprovalDecision> {
  const { ctx } = call.invoker;
  const { path, definition, input } = call;
  if (ctx.signal.aborted) return { decision: "denied", by: "system", reason: "run cancelled" };
  // The card is seen outside the gateway: the `requested` receipt is committed first.
  const unwritten = await ctx.receipts.durable().then(written, unwrittenReason);
  if (unwritten) return { decision: "denied", by: "system", reason: unwritten };
  const now = Date.now();
  ctx.onApprovalWait?.(true);
  try {
    return await ctx.requestApproval(
      {
        callId: call.id,
        runId: ctx.runId,
        sessionId: ctx.sessionId,
        toolPath: path,
        description: definition!.description,
        ...approvalInput(input, ctx.redact, ctx.previewChars),
        ...cardSummary(call, toolSummary(definition!, input, ctx.redact)),
        ...toolFiles(definition!, input, ctx.redact),
        code: ctx.redact(ctx.code),
        requestedBy: ctx.requestedBy,
        requestedAt: now,
        expiresAt: now + ctx.approvalTimeoutMs,
      },
      ctx.signal,
    );
  } catch (e) {
    // Fail closed: an approval channel that breaks is a denial, never a silent approval.
    return {
      decision: "denied",
      by: "system",
      reason: ctx.redact(`approval could not be obtained: ${describeThrown(e, "the approval channel").recorded}`),
    };
  } finally {
    ctx.onApprovalWait?.(false);
  }
}

/**
 * The `started` receipt, the call registered as running, and (unless the tool is read-only) every
 * receipt so far committed: the tool's effect never outruns them. A read-only tool has no effect
 * for its receipts to precede: they ride with the next commit.
 */
function commit(call: Call): Next | Wait<void> {
  const { ctx, inFlight } = call.invoker;
  const definition = call.definition!;
  if (ctx.signal.aborted) {
    const error = "run cancelled before the tool started";
    return failed(call, error, "ToolError", error, "CANCELLED");
  }
  stage(call, "started", {
    decision: call.decision,
    decidedBy: call.decidedBy,
    inputPreview: preview(definition, call.input, call.inputJson, call.requestedPreview, ctx),
  });
  call.startedAt = performance.now();
  call.abort = new CallAbort();
  inFlight.set(call.abort, call.path);
  // Registered as running first: a shutdown during the commit settles the call, which then never runs.
  ctx.running.set(call.id, (reason) => abandon(call, reason));
  return definition.readOnly
    ? committed(call, undefined)
    : new Wait(ctx.receipts.durable(), receiptsCommitted, receiptsUnwritten);
}

const receiptsCommitted = (call: Call): Next => committed(call, undefined);
const receiptsUnwritten = (call: Call, e: unknown): Next => committed(call, unwrittenReason(e));

function committed(call: Call, unwritten: string | undefined): Next {
  if (call.settled) {
    release(call);
    return call.settled;
  }
  if (unwritten || call.invoker.ctx.signal.aborted) {
    release(call);
    const error = unwritten ? `${unwritten}; ${call.path} was not run` : "run cancelled before the tool started";
    return failed(call, error, "ToolError", error, unwritten ? "RECEIPTS_UNAVAILABLE" : "CANCELLED");
  }
  call.startedAt = performance.now();
  return call;
}

/** The tool's `run`, bounded by the call's timeout; what it returns or throws settles the call (`ran`). */
function run(call: Call): Wait<RunExit> {
  const { ctx, log } = call.invoker;
  const { path } = call;
  const definition = call.definition!;
  const callAbort = call.abort!;
  const progress = ctx.onProgress ? progressReporter(call.id, path, ctx, () => call.settled !== undefined) : undefined;
  // `signal` is an own property like the others (a spread copy keeps it), made when first read.
  const toolCtx: ToolContext = {
    get signal() {
      return callAbort.signal;
    },
    callId: call.id,
    ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
    log: log(path),
    ...(progress ? { progress } : {}),
  };
  return new Wait(runTool(definition, call.input, toolCtx, path, ctx.toolTimeoutMs, callAbort), ran);
}

function ran(call: Call, exit: RunExit): Next {
  const { ctx } = call.invoker;
  const { path } = call;
  const definition = call.definition!;
  release(call);
  // Settled while it ran (the gateway stopped): that outcome stands, this result is dropped.
  if (call.settled) return call.settled;
  const durationMs = Math.round(performance.now() - call.startedAt);
  if (exit.ok) {
    const value = exit.value;
    if (ctx.hooks !== undefined && ctx.hooks.byEvent["tool.after"].length > 0) {
      call.value = value;
      call.durationMs = durationMs;
      return call;
    }
    const json = safeJson(value);
    if (!json.ok) {
      const error = ctx.redact(`${path} returned a value that is not JSON-serializable: ${json.message}`);
      return failed(call, error, "ToolError", error, "BAD_OUTPUT", durationMs);
    }
    return succeeded(call, json.text, outputPreview(definition, value, json.text, ctx), durationMs);
  }
  const failure = describeThrown(exit.failure.cause);
  const error = redactBounded(failure.recorded, MAX_MESSAGE_CHARS, ctx.redact);
  return failed(call, error, "ToolError", `${path} failed: ${failure.crossing}`, "TOOL_FAILED", durationMs);
}

/**
 * The plugins' `tool.after` hooks on a succeeded run (issue #29): they may replace the result the
 * model sees. The `succeeded` receipt keeps the tool's own result; each replacement is a receipt
 * decided by `plugin:<id>` (in phase `started`, before the outcome: the outcome stays the call's
 * last receipt) with the replaced result as its output preview.
 */
function after(call: Call): Wait<readonly HookChange[]> {
  const { ctx } = call.invoker;
  const outcome = { status: "succeeded" as const, result: call.value };
  return new Wait(runToolAfter(ctx.hooks!, hookCall(call), outcome, scopeOf(call.invoker), ctx.signal), afterHooked);
}

function afterHooked(call: Call, changes: readonly HookChange[]): Settled {
  const { ctx } = call.invoker;
  const { path, durationMs } = call;
  const definition = call.definition!;
  if (call.settled) return call.settled;
  const own = safeJson(call.value);
  if (!own.ok) {
    const error = ctx.redact(`${path} returned a value that is not JSON-serializable: ${own.message}`);
    return failed(call, error, "ToolError", error, "BAD_OUTPUT", durationMs);
  }
  let shown = own;
  for (const change of changes) {
    if (change.kind !== "result") continue;
    const json = safeJson(change.result);
    if (!json.ok) {
      ctx.hooks!.log(
        `[${change.pluginId}] tool.after replaced the result of ${path} with a value that is not JSON-serializable (ignored)`,
      );
      continue;
    }
    shown = json;
    stage(call, "started", {
      decision: call.decision,
      decidedBy: `plugin:${change.pluginId}`,
      reason: `result replaced by plugin ${change.pluginId}`,
      outputPreview: clip(ctx.redact(json.text ?? "undefined"), ctx.previewChars),
    });
  }
  const settled = succeeded(call, own.text, outputPreview(definition, call.value, own.text, ctx), durationMs);
  return shown === own ? settled : { ...settled, result: { ok: true, json: shown.text } };
}

/** What the approval card shows above the fields: a plugin's requirement, then the tool's own summary. */
function cardSummary(call: Call, tool: { summary?: string }): { summary?: string } {
  if (!call.requiredBy) return tool;
  const { ctx } = call.invoker;
  const required = redactBounded(call.requiredBy, MAX_MESSAGE_CHARS, ctx.redact);
  return { summary: tool.summary ? `${required}\n\n${tool.summary}` : required };
}

/** `tool.after` hooks observe the calls that did not succeed (a succeeded one went through `after`). */
function observeOutcome(call: Call, settled: Settled): void {
  const set = call.invoker.ctx.hooks;
  if (set === undefined || set.byEvent["tool.after"].length === 0 || settled.status === "succeeded") return;
  const outcome =
    settled.status === "denied"
      ? { status: "denied" as const, reason: settled.reason ?? "denied", by: settled.decidedBy ?? "system" }
      : { status: "failed" as const, error: settled.error ?? "failed" };
  void runToolAfter(set, hookCall(call), outcome, scopeOf(call.invoker), undefined);
}

/** The gateway stops while the call runs: it fails now, saying why; its tool is told to stop. */
function abandon(call: Call, reason: string): void {
  call.abort!.abort(new Error(`${reason}; ${call.path} should stop`));
  const error = `${reason}: ${call.path} was still running, its outcome is unknown`;
  const durationMs = Math.round(performance.now() - call.startedAt);
  record(call, failed(call, error, "ToolError", error, "ABANDONED", durationMs));
}

/** The call no longer runs: its signal is left to the timeout, and shutdown has nothing to settle. */
function release(call: Call): void {
  call.invoker.inFlight.delete(call.abort!);
  call.invoker.ctx.running.delete(call.id);
}

/**
 * The one place a call's outcome is written: its outcome receipt, its `CallOutcome` (kept and
 * reported), and what crosses back. The first outcome wins: a call that shutdown settled while
 * it ran keeps that outcome and answers with it.
 */
function record(call: Call, settled: Settled): HostCallResult {
  if (call.settled) return call.settled.result;
  call.settled = settled;
  // The answer is queued for the journal before its outcome receipt is staged; the journal is written
  // ahead of every commit point, so an outcome receipt committed there has its answer (see `RunReplay.flush`).
  if (call.position !== undefined) call.invoker.ctx.replay!.answered(call.position, settled.result);
  stage(call, settled.status, settled);
  const { ctx, outcomes } = call.invoker;
  const outcome: CallOutcome = {
    callId: call.id,
    toolPath: call.path,
    status: settled.status,
    policy: call.policy,
    durationMs: performance.now() - call.t0,
    decision: settled.decision,
    decidedBy: settled.decidedBy,
    reason: settled.reason,
    error: settled.error,
  };
  outcomes.push(outcome);
  ctx.onCall?.(outcome);
  observeOutcome(call, settled);
  return settled.result;
}

/** Every receipt of a call has the same shape: the fields it shares with the call's others, then its own. */
function stage(call: Call, phase: ReceiptPhase, d: PhaseFields): void {
  const { ctx } = call.invoker;
  ctx.receipts.stage(
    {
      runId: ctx.runId,
      callId: call.id,
      toolPath: call.path,
      approval: call.approval,
      policy: call.policy,
      sessionId: ctx.sessionId,
      phase,
      decision: d.decision,
      decidedBy: d.decidedBy,
      reason: d.reason,
      inputPreview: d.inputPreview,
      outputPreview: d.outputPreview,
      error: d.error,
      durationMs: d.durationMs,
    },
    DEFERRED,
  );
}

/** A failure: `error` is recorded, `message` crosses to the sandbox (redacted and bounded). */
function failed(call: Call, error: string, name: string, message: string, code: string, durationMs?: number): Settled {
  return {
    status: "failed",
    decision: call.decision,
    decidedBy: call.decidedBy,
    reason: undefined,
    error,
    durationMs,
    outputPreview: undefined,
    result: crossingError(call, name, message, code),
  };
}

function denied(call: Call, decidedBy: string, reason: string, message: string): Settled {
  return {
    status: "denied",
    decision: "denied",
    decidedBy,
    reason,
    error: undefined,
    durationMs: undefined,
    outputPreview: undefined,
    result: crossingError(call, "ToolDeniedError", message, "DENIED"),
  };
}

function succeeded(call: Call, json: string | undefined, outputPreview: string, durationMs: number): Settled {
  return {
    status: "succeeded",
    decision: call.decision,
    decidedBy: call.decidedBy,
    reason: undefined,
    error: undefined,
    durationMs,
    outputPreview,
    result: { ok: true, json },
  };
}

function crossingError(call: Call, name: string, message: string, code: string): HostCallResult {
  return {
    ok: false,
    error: {
      name,
      message: redactBounded(message, MAX_MESSAGE_CHARS, call.invoker.ctx.redact),
      code,
    } satisfies CrossingError,
  };
}

type PreviewCtx = Pick<InvokerContext, "redact" | "previewChars">;

/**
 * Secrets are scrubbed before clipping, so a cut never leaves half a secret behind. Without a
 * `previewInput`, an input that serializes back to the text the model sent has the preview the
 * `requested` receipt already got (the same text through the same redactor and cut).
 */
function preview(def: ToolDefinition, input: unknown, inputJson: string, requested: string, ctx: PreviewCtx): string {
  let text: string | undefined;
  try {
    text = def.previewInput?.(input);
  } catch {
    // a broken previewInput must not break the call; fall back to JSON
  }
  if (typeof text !== "string") {
    text = JSON.stringify(input) ?? "";
    if (text === inputJson) return requested;
  }
  return clip(ctx.redact(text), ctx.previewChars);
}

function outputPreview(def: ToolDefinition, output: unknown, json: string | undefined, ctx: PreviewCtx): string {
  let text: string | undefined;
  try {
    text = def.previewOutput?.(output);
  } catch {
    // fall back to JSON
  }
  return clip(ctx.redact(typeof text === "string" ? text : (json ?? "undefined")), ctx.previewChars);
}

function safeJson(value: unknown): { ok: true; text: string | undefined } | { ok: false; message: string } {
  try {
    return { ok: true, text: JSON.stringify(value) };
  } catch (e) {
    return { ok: false, message: describeThrown(e, "JSON.stringify").crossing };
  }
}

function clip(text: string, max: number): string {
  return cutText(text, max);
}

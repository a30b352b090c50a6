import type { ToolContext, ToolDefinition } from "@openassistant/sdk";
import { safeParseAsync as zodSafeParseAsync, z } from "zod";
import { approvalInput } from "../approvals/input-preview.ts";
import type { ApprovalDecision, RequestApproval } from "../approvals/types.ts";
import { resolvePolicy } from "../policy/resolve.ts";
import type { PolicyRule } from "../policy/types.ts";
import type { Decision, PolicyMode, ReceiptDraft, ReceiptPhase, ReceiptStore } from "../receipts/types.ts";
import type { CrossingError, HostCallResult } from "../sandbox/types.ts";
import type { CallOutcome } from "./run-types.ts";
import { newId } from "../db/new-id.ts";
import { findForbiddenKey, forbiddenKeyMessage, mayHaveForbiddenKey } from "./plain-input.ts";
import { cutText } from "../text/cut.ts";
import { createDeadlines } from "./call-deadlines.ts";
import { formatIssues, redactBounded } from "./validation-report.ts";

/** Error messages crossing to the sandbox and recorded in receipts (the store caps them too). */
const MAX_MESSAGE_CHARS = 4_000;
/** A tool's own summary on an approval card (a replaced file's diff can be long; the file is attached whole). */
const MAX_SUMMARY_CHARS = 3_000;

/** A standing "approve always" rule source (approvals/rules.ts implements it). */
export interface StandingApprovals {
  match(toolPath: string, sessionId: string | undefined, now: number): { readonly id: string } | undefined;
}

export interface InvokerContext {
  readonly runId: string;
  readonly sessionId?: string;
  readonly requestedBy?: string;
  /** The model's code, shown on approval cards. */
  readonly code: string;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly receipts: ReceiptStore;
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
  /** Called with true right before awaiting an operator's approval and false once it settles (e.g. to pause a turn clock). */
  readonly onApprovalWait?: (waiting: boolean) => void;
  /** Calls whose `run()` is in progress, across runs; the runner closes them on shutdown. */
  readonly running: RunningCalls;
}

/**
 * Tool calls between `started` and their outcome. On shutdown the runner settles each one with
 * a `failed` receipt saying why; a result that arrives after that is not recorded twice.
 */
export type RunningCalls = Map<string, (reason: string) => void>;

class ToolRunFailure {
  readonly _tag = "ToolRunFailure";
  constructor(readonly cause: unknown) {}
}

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
 * step) or settles (returns a `Settled`: how the call ended). `record` writes the outcome receipt
 * of every call, whichever step (or a shutdown, `abandon`) settled it, and the first outcome wins.
 */
export function createToolInvoker(ctx: InvokerContext) {
  const invoker: Invoker = { ctx, outcomes: [], inFlight: new Map(), log: loggersFor(ctx.redact) };
  // Receipts are staged and committed together; `durable` runs right before each step with an
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
  };
}

/** What the calls of one run share. */
interface Invoker {
  readonly ctx: InvokerContext;
  /** In call order of settling. */
  readonly outcomes: CallOutcome[];
  /** Each call's own abort controller while its `run()` may be in progress, with its path. */
  readonly inFlight: Map<CallAbort, string>;
  readonly log: (path: string) => ToolContext["log"];
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
  /** How the call ended, once `record` wrote it. */
  settled: Settled | undefined;
}

/** A plain object literal, one shape for every call (class fields would be defined one by one). */
function openCall(invoker: Invoker, path: string, inputJson: string): Call {
  const { ctx } = invoker;
  const id = newCallId();
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
    settled: undefined,
  };
  stage(call, "requested", { inputPreview: requestedPreview });
  return call;
}

/** How a call ended: its outcome receipt's own fields, and what crosses back to the sandbox. */
interface Settled extends PhaseFields {
  readonly status: CallOutcome["status"];
  readonly result: HostCallResult;
}

/** What a step hands on: the call (continue with the next step) or how it ended (settled). */
type Next = Call | Settled;
type Step = (call: Call) => Next | Promise<Next>;

/** The steps of every call, in order; the last one (`run`) always settles. */
const STEPS: readonly Step[] = [validate, hooks, policy, approval, commit, run];

async function invoke(invoker: Invoker, path: string, inputJson: string): Promise<HostCallResult> {
  const call = openCall(invoker, path, inputJson);
  let next: Next = call;
  // A step that need not wait returns its answer directly: no await, no extra turn of the microtask queue.
  for (let i = 0; next === call; i++) {
    const step = STEPS[i]!(call);
    next = step instanceof Promise ? await step : step;
  }
  return record(call, next as Settled);
}

/** The tool exists and the input passes its schema (which may check asynchronously). */
function validate(call: Call): Next | Promise<Next> {
  const definition = call.definition;
  if (!definition) {
    const error = `unknown tool "${call.path}"`;
    return failed(call, error, "ToolError", error, "UNKNOWN_TOOL");
  }
  const parsed = parseInput(definition, call.inputJson);
  return parsed instanceof Promise ? parsed.then((p) => admit(call, p)) : admit(call, parsed);
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
 * The slot for plugin hooks (`tool.before`, issue #29): after validation, before policy. Empty
 * today: every call continues unchanged. A hook's answer fits the step as it is: a denial settles
 * the call (`denied(call, "hook:<id>", reason, message)`), a requirement of approval sets
 * `call.policy` to "required" (and `call.alwaysAsk`, so no standing rule answers for a person), a
 * replaced input replaces `call.input`; the step may return a promise. `tool.after` has its slot
 * in `run`: `resultHooks`.
 */
function hooks(call: Call): Next {
  return call;
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
 * A required call is approved at once by a standing "approve always" rule (unless a person must
 * decide), else it waits for a person; anything but an approval settles it as denied.
 */
function approval(call: Call): Next | Promise<Next> {
  if (call.policy !== "required") return call;
  const { ctx } = call.invoker;
  const rule = call.alwaysAsk ? undefined : ctx.standing?.match(call.path, ctx.sessionId, Date.now());
  return rule ? approved(call, `rule:${rule.id}`) : askPerson(call);
}

async function askPerson(call: Call): Promise<Next> {
  const verdict = await decide(call);
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
        ...toolSummary(definition!, input, ctx.redact),
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
function commit(call: Call): Next | Promise<Next> {
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
  return definition.readOnly ? committed(call, undefined) : commitReceipts(call);
}

async function commitReceipts(call: Call): Promise<Next> {
  let unwritten: string | undefined;
  try {
    await call.invoker.ctx.receipts.durable();
  } catch (e) {
    unwritten = unwrittenReason(e);
  }
  return committed(call, unwritten);
}

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

/** The tool's `run`, bounded by the call's timeout; what it returns or throws settles the call. */
async function run(call: Call): Promise<Settled> {
  const { ctx, log } = call.invoker;
  const { path } = call;
  const definition = call.definition!;
  const callAbort = call.abort!;
  // `signal` is an own property like the others (a spread copy keeps it), made when first read.
  const toolCtx: ToolContext = ctx.sessionId
    ? {
        get signal() {
          return callAbort.signal;
        },
        callId: call.id,
        sessionId: ctx.sessionId,
        log: log(path),
      }
    : {
        get signal() {
          return callAbort.signal;
        },
        callId: call.id,
        log: log(path),
      };
  const exit = await runTool(definition, call.input, toolCtx, path, ctx.toolTimeoutMs, callAbort);
  release(call);
  // Settled while it ran (the gateway stopped): that outcome stands, this result is dropped.
  if (call.settled) return call.settled;
  const durationMs = Math.round(performance.now() - call.startedAt);
  if (exit.ok) {
    const value = resultHooks(call, exit.value);
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
 * The slot for `tool.after` hooks (issue #29): the value the model sees (and its receipt previews)
 * of a run that succeeded. Empty today: the tool's own value.
 */
function resultHooks(_call: Call, value: unknown): unknown {
  return value;
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

/**
 * zod's own `schema.safeParseAsync`: an async method that returns `safeParseAsync(schema, data)`.
 * Where a schema has it, calling that function directly gives the same result one async hop sooner.
 */
const STOCK_SAFE_PARSE_ASYNC = z.object({}).safeParseAsync;

type ParsedInput = { ok: true; value: unknown } | { ok: false; message: string; threw?: ThrownValue };

/**
 * Parses with `safeParseAsync`, so a schema may check asynchronously before anyone is asked to
 * approve (the workspace tools typecheck a source file this way; a failure goes back to the model).
 */
function parseInput(def: ToolDefinition, json: string): ParsedInput | Promise<ParsedInput> {
  let raw: unknown;
  try {
    raw = json === undefined || json === "" ? {} : JSON.parse(json);
  } catch {
    return { ok: false, message: "input is not valid JSON" };
  }
  // Most inputs hold no forbidden word at all: their text alone shows it, without walking the value.
  const forbidden = typeof json === "string" && mayHaveForbiddenKey(json) ? findForbiddenKey(raw) : undefined;
  if (forbidden !== undefined) return { ok: false, message: forbiddenKeyMessage(forbidden) };
  const value = raw === undefined ? {} : raw;
  let validation: ReturnType<ToolDefinition["args"]["safeParseAsync"]>;
  try {
    validation =
      def.args.safeParseAsync === STOCK_SAFE_PARSE_ASYNC
        ? zodSafeParseAsync(def.args, value)
        : def.args.safeParseAsync(value);
  } catch (e) {
    return schemaThrew(e);
  }
  // safeParseAsync reports issues, but a transform/refine that throws escapes it.
  return Promise.resolve(validation).then(
    (r) => (r.success || !missedThroughPrototype(r.error.issues) ? validated(r) : ownKeysOnly(def, value)),
    schemaThrew,
  );
}

/**
 * zod reads each key of an object schema as `input[key]`, so an optional field named `toString`,
 * `valueOf` … that the input leaves out reads Object.prototype's function ("expected string,
 * received function"). Such a failure is validated again on a copy whose objects have no prototype.
 */
function missedThroughPrototype(issues: readonly { readonly path: readonly PropertyKey[] }[]): boolean {
  return issues.some((i) => {
    const last = i.path.at(-1);
    return typeof last === "string" && last in Object.prototype;
  });
}

function ownKeysOnly(def: ToolDefinition, value: unknown): Promise<ParsedInput> {
  let validation: ReturnType<ToolDefinition["args"]["safeParseAsync"]>;
  try {
    validation = def.args.safeParseAsync(withPrototype(value, null));
  } catch (e) {
    return Promise.resolve(schemaThrew(e));
  }
  return Promise.resolve(validation).then((r) => {
    // What passes through unchanged (z.unknown(), loose objects) is handed to the tool as plain objects again.
    if (r.success) withPrototype(r.data, Object.prototype);
    return validated(r);
  }, schemaThrew);
}

/**
 * JSON data with every plain object's prototype set to `proto`: a copy for `null` (the parsed input
 * stays as it is), in place for Object.prototype (the copy's objects that zod passed through).
 */
function withPrototype(value: unknown, proto: object | null): unknown {
  const copy = proto === null;
  const convert = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v;
    if (Array.isArray(v)) {
      const out = copy ? v.slice() : v;
      for (let i = 0; i < out.length; i++) out[i] = convert(out[i]);
      return out;
    }
    const from = Object.getPrototypeOf(v);
    if (from !== Object.prototype && from !== null) return v; // a Date from a transform, a class instance …
    const out: Record<string, unknown> = copy ? Object.create(null) : (v as Record<string, unknown>);
    for (const k of Object.keys(v)) out[k] = convert((v as Record<string, unknown>)[k]);
    if (!copy && from === null) Object.setPrototypeOf(out, Object.prototype);
    return out;
  };
  return convert(value);
}

function validated(result: Awaited<ReturnType<ToolDefinition["args"]["safeParseAsync"]>>): ParsedInput {
  return result.success ? { ok: true, value: result.data } : { ok: false, message: formatIssues(result.error.issues) };
}

function schemaThrew(e: unknown): ParsedInput {
  const threw = describeThrown(e, "the schema");
  return { ok: false, message: threw.crossing, threw };
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

/**
 * A call's abort signal, made when the tool first reads `ctx.signal`: most tools never do, and an
 * AbortController per call is a measurable part of a call's cost. The first abort's reason wins,
 * as with an AbortController; a signal made after the abort is already aborted with that reason,
 * so a tool sees the same signal state and reason whenever it reads it.
 */
class CallAbort {
  #controller: AbortController | undefined;
  #aborted: { readonly reason: Error } | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#aborted.reason);
    }
    return this.#controller.signal;
  }

  /** The first abort's reason, undefined until aborted. */
  get reason(): Error | undefined {
    return this.#aborted?.reason;
  }

  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = { reason };
    this.#controller?.abort(reason);
  }
}

/** A tool's settled run: its value, or a typed failure carrying what it threw (or the timeout). */
type RunExit =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly failure: ToolRunFailure };

/** Every call's timeout, on one shared timer. */
const deadlines = createDeadlines();

/**
 * The tool's `run`, bounded by the call's timeout: a throw or rejection is a typed `ToolRunFailure`.
 * On timeout the tool's `ctx.signal` is aborted with the timeout as reason (so a tool that honours
 * it stops) and the call fails with the signal's reason; a result that arrives later is dropped.
 * Plain promises rather than an Effect fiber: this runs once per tool call, where a fiber, a race
 * and a forked sleep cost more CPU than the rest of the call (see docs/CONTRIBUTING.md).
 */
function runTool(
  definition: ToolDefinition,
  input: unknown,
  toolCtx: ToolContext,
  path: string,
  timeoutMs: number,
  callAbort: CallAbort,
): Promise<RunExit> {
  return new Promise<RunExit>((resolve) => {
    let settled = false;
    const settle = (exit: RunExit) => {
      if (settled) return;
      settled = true;
      deadlines.remove(deadline);
      resolve(exit);
    };
    const deadline = deadlines.add(timeoutMs, () => {
      callAbort.abort(new Error(`${path} did not finish within ${Math.round(timeoutMs / 1000)} s`));
      settle({ ok: false, failure: new ToolRunFailure(callAbort.reason) });
    });
    let pending: unknown;
    try {
      pending = definition.run(input, toolCtx);
    } catch (e) {
      return settle({ ok: false, failure: new ToolRunFailure(e) });
    }
    Promise.resolve(pending).then(
      (value) => settle({ ok: true, value }),
      (e: unknown) => settle({ ok: false, failure: new ToolRunFailure(e) }),
    );
  });
}

/** What of a thrown value may leave the host: `crossing` for the sandbox, `recorded` for receipts and logs. */
export interface ThrownValue {
  readonly crossing: string;
  readonly recorded: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]{0,63}$/;

/**
 * Thrown values can carry host data (an HTTP client error holds its request headers, a cause
 * holds paths). Only an Error's `message` crosses, recorded with its `name`; never its stack,
 * cause or other properties. Anything else thrown is described by its type alone.
 */
export function describeThrown(e: unknown, who = "the tool"): ThrownValue {
  try {
    if (isError(e)) {
      const message = typeof e.message === "string" ? e.message : "";
      const name = typeof e.name === "string" && IDENTIFIER.test(e.name) ? e.name : "Error";
      // A plain Error's name adds nothing; a subclass's name (TypeError, HttpError…) does.
      return {
        crossing: message || name,
        recorded: !message ? name : name === "Error" ? message : `${name}: ${message}`,
      };
    }
  } catch {
    // a hostile getter on name/message: fall through to the generic description
  }
  const generic = `${who} failed with a non-Error value (${typeOf(e)})`;
  return { crossing: generic, recorded: generic };
}

function isError(e: unknown): e is Error {
  const isErrorFn = (Error as { isError?: (v: unknown) => boolean }).isError;
  return e instanceof Error || (typeof isErrorFn === "function" && isErrorFn(e));
}

function typeOf(e: unknown): string {
  if (e === null) return "null";
  if (typeof e !== "object" && typeof e !== "function") return typeof e;
  try {
    const name: unknown = Object.getPrototypeOf(e)?.constructor?.name;
    if (typeof name === "string" && IDENTIFIER.test(name) && name !== "Object" && name !== "Function")
      return `${typeof e} ${name}`;
  } catch {
    // a Proxy or getter that throws: the type alone will do
  }
  return typeof e;
}

function clip(text: string, max: number): string {
  return cutText(text, max);
}

/** The tool's own summary of a call for the operator (its `previewInput`), redacted and bounded. */
function toolSummary(def: ToolDefinition, input: unknown, redact: (text: string) => string): { summary?: string } {
  let text: unknown;
  try {
    text = def.previewInput?.(input);
  } catch {
    return {}; // a broken previewInput must not break the call; the fields still show everything
  }
  return typeof text === "string" && text.trim() ? { summary: cutText(redact(text), MAX_SUMMARY_CHARS) } : {};
}

/** Files a tool may show whole on one card: Discord takes 10 per message, the surface adds its own two. */
const MAX_FILES = 8;
/** Characters over all of a card's files: at most 6 MB of UTF-8, under Discord's 10 MiB per upload. */
const MAX_FILES_CHARS = 2_000_000;
/** A plain file name: no folders, no leading dot, a short extension-friendly alphabet. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * The tool's files for the approver (its `previewFiles`), redacted. A file with a name that is not
 * a plain file name is left out; past the character budget a file is cut and says so at its end.
 * A broken `previewFiles` leaves the card without files, never breaks the call.
 */
function toolFiles(
  def: ToolDefinition,
  input: unknown,
  redact: (text: string) => string,
): { files?: Array<{ name: string; text: string }> } {
  let listed: unknown;
  try {
    listed = def.previewFiles?.(input);
  } catch {
    return {};
  }
  if (!Array.isArray(listed)) return {};
  const files: Array<{ name: string; text: string }> = [];
  let room = MAX_FILES_CHARS;
  for (const f of listed.slice(0, MAX_FILES)) {
    if (typeof f?.name !== "string" || typeof f.text !== "string" || !FILE_NAME.test(f.name)) continue;
    const text = redact(f.text);
    const kept = text.length <= room ? text : `${cutText(text, Math.max(0, room))}\n… (cut: too large to show whole)`;
    room -= kept.length;
    files.push({ name: f.name, text: kept });
  }
  return files.length ? { files } : {};
}

/** Per redactor, each tool's `ctx.log` (the same for every call of that tool). */
const loggers = new WeakMap<(text: string) => string, Map<string, ToolContext["log"]>>();

function loggersFor(redact: (text: string) => string): (path: string) => ToolContext["log"] {
  let byPath = loggers.get(redact);
  if (!byPath) loggers.set(redact, (byPath = new Map()));
  const cache = byPath;
  return (path) => {
    let log = cache.get(path);
    if (!log) cache.set(path, (log = toolLogger(path, redact)));
    return log;
  };
}

/** `ctx.log` of a tool: lines to the gateway's log, prefixed with the tool path, secrets redacted. */
function toolLogger(path: string, redact: (text: string) => string): ToolContext["log"] {
  const at =
    (level: "info" | "warn" | "error") =>
    (message: string, ...details: unknown[]) =>
      console[level](
        redact(
          `[tools.${path}] ${message}${details.length ? ` ${details.map((d) => (typeof d === "string" ? d : JSON.stringify(d))).join(" ")}` : ""}`,
        ),
      );
  return Object.freeze({ info: at("info"), warn: at("warn"), error: at("error") });
}

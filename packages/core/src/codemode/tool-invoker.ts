import type { ToolContext, ToolDefinition } from "@openassistant/sdk";
import { safeParseAsync as zodSafeParseAsync, z } from "zod";
import { approvalInput } from "../approvals/input-preview.ts";
import type { ApprovalDecision, RequestApproval } from "../approvals/types.ts";
import { resolvePolicy } from "../policy/resolve.ts";
import type { PolicyRule } from "../policy/types.ts";
import type { ReceiptStaging } from "../receipts/port.ts";
import type { Decision, PolicyMode, ReceiptDraft, ReceiptPhase } from "../receipts/types.ts";
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

/** A receipt staged by a call joins the next commit rather than starting its own (see `invoke`). */
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
 */
export function createToolInvoker(ctx: InvokerContext) {
  const outcomes: CallOutcome[] = [];
  // Receipts are staged and committed together; `durable` runs right before each step with an
  // effect outside the gateway (approval card, a tool run that is not read-only), so those steps
  // never outrun their receipts, nor the receipts of the read-only calls before them.
  // None starts a commit of its own: the next `durable()` (this call's, the next call's, or the
  // run's end in the runner) carries them, so sequential calls cost one commit each, not two.
  const durable = (): Promise<string | undefined> => ctx.receipts.durable().then(written, unwrittenReason);
  // Each call's own abort controller while its `run()` may be in progress, with its path: cancelling
  // the run aborts their signals. One listener on the run's signal rather than one per call.
  const inFlight = new Map<CallAbort, string>();
  ctx.signal.addEventListener(
    "abort",
    () => {
      for (const [callAbort, path] of inFlight)
        callAbort.abort(new Error(`the run was cancelled; ${path} should stop`));
    },
    { once: true },
  );
  const log = loggersFor(ctx.redact);

  async function invoke(path: string, inputJson: string): Promise<HostCallResult> {
    const callId = newCallId();
    const t0 = performance.now();
    const definition = ctx.tools.get(path);
    const approval = definition?.approval ?? "auto";
    const alwaysAsk = ctx.alwaysAsk?.(path) === true;
    const resolved = definition ? resolvePolicy(path, approval, ctx.policy, alwaysAsk) : undefined;
    const policy: PolicyMode = resolved ? resolved.mode : "deny";
    // Every receipt of the call has the same shape: its shared fields, then its own (absent ones undefined).
    const append = (phase: ReceiptPhase, d: PhaseFields) =>
      ctx.receipts.stage(
        {
          runId: ctx.runId,
          callId,
          toolPath: path,
          approval,
          policy,
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
    const finish = (
      status: CallOutcome["status"],
      extra: { decision?: Decision; decidedBy?: string; reason?: string; error?: string },
      result: HostCallResult,
    ): HostCallResult => {
      const outcome: CallOutcome = {
        callId,
        toolPath: path,
        status,
        policy,
        durationMs: performance.now() - t0,
        ...extra,
      };
      outcomes.push(outcome);
      ctx.onCall?.(outcome);
      return result;
    };
    const cross = (name: string, message: string, code: string): HostCallResult => ({
      ok: false,
      error: { name, message: redactBounded(message, MAX_MESSAGE_CHARS, ctx.redact), code } satisfies CrossingError,
    });

    const requestedPreview = clip(ctx.redact(inputJson), ctx.previewChars);
    append("requested", { inputPreview: requestedPreview });

    if (!definition) {
      const error = `unknown tool "${path}"`;
      append("failed", { error });
      return finish("failed", { error }, cross("ToolError", error, "UNKNOWN_TOOL"));
    }

    const parsed = await parseInput(definition, inputJson);
    if (!parsed.ok) {
      const error = parsed.threw
        ? `the input for ${path} could not be validated: its schema threw (${parsed.threw.recorded})`
        : `invalid input for ${path}: ${parsed.message}`;
      const shown = parsed.threw
        ? `the input for ${path} could not be validated: its schema threw (${parsed.threw.crossing})`
        : error;
      append("failed", { error: ctx.redact(error) });
      return finish("failed", { error: ctx.redact(error) }, cross("ToolInputError", shown, "INVALID_INPUT"));
    }
    const input = parsed.value;

    let decision: Decision = "auto";
    let decidedBy: string | undefined;
    if (policy === "deny") {
      const reason = resolved?.rule?.reason ?? "denied by operator policy";
      append("denied", { decision: "denied", decidedBy: "policy", reason });
      return finish(
        "denied",
        { decision: "denied", decidedBy: "policy", reason },
        cross("ToolDeniedError", `${path} was denied: ${reason}`, "DENIED"),
      );
    }
    if (policy === "required") {
      const verdict = await decide(callId, path, definition, input, alwaysAsk);
      decidedBy = verdict.by;
      if (verdict.decision === "denied") {
        const reason = verdict.reason ?? "denied by operator";
        append("denied", { decision: "denied", decidedBy, reason });
        return finish(
          "denied",
          { decision: "denied", decidedBy, reason },
          cross("ToolDeniedError", `${path} was denied by ${decidedBy}: ${reason}`, "DENIED"),
        );
      }
      decision = "approved";
      append("approved", { decision, decidedBy });
    }

    if (ctx.signal.aborted) {
      const error = "run cancelled before the tool started";
      append("failed", { decision, decidedBy, error });
      return finish("failed", { decision, decidedBy, error }, cross("ToolError", error, "CANCELLED"));
    }

    append("started", {
      decision,
      decidedBy,
      inputPreview: preview(definition, input, inputJson, requestedPreview, ctx),
    });
    let started = performance.now();
    let abandoned: HostCallResult | undefined;
    // The tool's own signal: aborted when the run is cancelled, the call times out or the gateway stops.
    const callAbort = new CallAbort();
    inFlight.set(callAbort, path);
    ctx.running.set(callId, (reason) => {
      callAbort.abort(new Error(`${reason}; ${path} should stop`));
      const error = `${reason}: ${path} was still running, its outcome is unknown`;
      append("failed", { decision, decidedBy, error, durationMs: Math.round(performance.now() - started) });
      abandoned = finish("failed", { decision, decidedBy, error }, cross("ToolError", error, "ABANDONED"));
    });
    // Registered as running first: a shutdown during this wait settles the call, which then never runs.
    // A read-only tool has no effect for its receipts to precede: they ride with the next commit.
    let unwritten: string | undefined;
    if (!definition.readOnly)
      try {
        await ctx.receipts.durable();
      } catch (e) {
        unwritten = unwrittenReason(e);
      }
    if (abandoned) {
      inFlight.delete(callAbort);
      return abandoned;
    }
    if (unwritten || ctx.signal.aborted) {
      inFlight.delete(callAbort);
      ctx.running.delete(callId);
      const error = unwritten ? `${unwritten}; ${path} was not run` : "run cancelled before the tool started";
      append("failed", { decision, decidedBy, error });
      return finish(
        "failed",
        { decision, decidedBy, error },
        cross("ToolError", error, unwritten ? "RECEIPTS_UNAVAILABLE" : "CANCELLED"),
      );
    }
    started = performance.now();
    // `signal` is an own property like the others (a spread copy keeps it), made when first read.
    const toolCtx: ToolContext = ctx.sessionId
      ? {
          get signal() {
            return callAbort.signal;
          },
          callId,
          sessionId: ctx.sessionId,
          log: log(path),
        }
      : {
          get signal() {
            return callAbort.signal;
          },
          callId,
          log: log(path),
        };
    const exit = await runTool(definition, input, toolCtx, path, ctx.toolTimeoutMs, callAbort);
    inFlight.delete(callAbort);
    if (abandoned) return abandoned;
    ctx.running.delete(callId);
    const durationMs = Math.round(performance.now() - started);
    if (exit.ok) {
      const json = safeJson(exit.value);
      if (!json.ok) {
        const error = ctx.redact(`${path} returned a value that is not JSON-serializable: ${json.message}`);
        append("failed", { decision, decidedBy, error, durationMs });
        return finish("failed", { decision, decidedBy, error }, cross("ToolError", error, "BAD_OUTPUT"));
      }
      append("succeeded", {
        decision,
        decidedBy,
        durationMs,
        outputPreview: outputPreview(definition, exit.value, json.text, ctx),
      });
      return finish("succeeded", { decision, decidedBy }, { ok: true, json: json.text });
    }
    const failure = describeThrown(exit.failure.cause);
    const error = redactBounded(failure.recorded, MAX_MESSAGE_CHARS, ctx.redact);
    append("failed", { decision, decidedBy, error, durationMs });
    return finish(
      "failed",
      { decision, decidedBy, error },
      cross("ToolError", `${path} failed: ${failure.crossing}`, "TOOL_FAILED"),
    );
  }

  async function decide(
    callId: string,
    path: string,
    definition: ToolDefinition,
    input: unknown,
    alwaysAsk: boolean,
  ): Promise<ApprovalDecision> {
    const rule = alwaysAsk ? undefined : await ctx.standing?.match(path, ctx.sessionId, Date.now());
    if (rule) return { decision: "approved", by: `rule:${rule.id}` };
    if (ctx.signal.aborted) return { decision: "denied", by: "system", reason: "run cancelled" };
    // The card is seen outside the gateway: the `requested` receipt is committed first.
    const unwritten = await durable();
    if (unwritten) return { decision: "denied", by: "system", reason: unwritten };
    const now = Date.now();
    ctx.onApprovalWait?.(true);
    try {
      return await ctx.requestApproval(
        {
          callId,
          runId: ctx.runId,
          sessionId: ctx.sessionId,
          toolPath: path,
          description: definition.description,
          ...approvalInput(input, ctx.redact, ctx.previewChars),
          ...toolSummary(definition, input, ctx.redact),
          ...toolFiles(definition, input, ctx.redact),
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

  return { invoke, outcomes };
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

import { createInterface } from "node:readline";
import type { ApprovalDecision, ApprovalRequest } from "@openassistant/core/approvals";
import { progressNote } from "../../events/progress-note.ts";
import type { GatewayEvent } from "../../events/types.ts";
import type { Gateway } from "../../gateway.ts";
import { surfacePort } from "../gateway-port.ts";
import type { SurfacePort } from "../port.ts";
import {
  escapeControlChars,
  formatAnswer,
  formatApprovalPrompt,
  formatFullInput,
  formatHelp,
  formatReceiptLinks,
  formatTypecheckFailure,
} from "./format.ts";
import { knownModels } from "../../model/capabilities.ts";
import { modelCommand } from "../../model/model-command.ts";
import { createSpinner } from "./spinner.ts";
import { cutText } from "@openassistant/core/text";

export interface TerminalSurfaceOptions {
  readonly gateway: Gateway | SurfacePort;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Spinner and prompt only on a TTY; defaults to `output.isTTY`. */
  readonly tty?: boolean;
  /** Session key; default "terminal". */
  readonly sessionKey?: string;
  /** Who is typing (recorded as requester and approver); default $USER or "operator". */
  readonly userId?: string;
  readonly greeting?: string;
  /** `/reload`: reloads tools and returns what to print (what changed, problems). */
  readonly reload?: () => Promise<string>;
}

export interface TerminalSurface {
  /** Resolves when the input ends or the user types /exit (after the in-flight turn settles). */
  readonly done: Promise<void>;
  close(): void;
}

/**
 * Line-based chat. A line answers the oldest pending approval when one is shown
 * (`a`, `d`, `r`, `r <reason>`); otherwise it is a message (queued while a turn runs).
 * The terminal user is the operator: approvals of every session are asked here.
 */
export function startTerminalSurface(options: TerminalSurfaceOptions): TerminalSurface {
  const { output } = options;
  const gateway = surfacePort(options.gateway);
  const tty = options.tty ?? Boolean((output as { isTTY?: boolean }).isTTY);
  const sessionKey = options.sessionKey ?? "terminal";
  const userId = options.userId ?? process.env.USER ?? "operator";
  const approver = `terminal:${userId}`;
  const spinner = createSpinner(output, tty);
  // Everything written here may carry text from the model, a tool or another surface's user.
  const write = (text: string) => {
    spinner.clear();
    const safe = escapeControlChars(text);
    output.write(safe.endsWith("\n") ? safe : `${safe}\n`);
  };

  const approvals: ApprovalRequest[] = [];
  let awaitingReasonFor: string | undefined;
  const messages: string[] = [];
  let busy = false;
  let closed = false;
  let inputEnded = false;
  let turnAbort: AbortController | undefined;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));

  const showPrompt = () => {
    if (approvals.length) write(formatApprovalPrompt(approvals[0]!, approvals.length - 1));
    else if (tty && !busy) output.write("you › ");
  };

  const onEvent = (event: GatewayEvent) => {
    switch (event.type) {
      case "approval.requested":
        approvals.push(event.request);
        if (inputEnded) turnAbort?.abort("terminal input closed");
        else if (approvals.length === 1) showPrompt();
        break;
      case "approval.decided": {
        const index = approvals.findIndex((r) => r.callId === event.callId);
        if (index < 0) break;
        const [request] = approvals.splice(index, 1);
        if (awaitingReasonFor === event.callId) awaitingReasonFor = undefined;
        if (!event.decision.by.startsWith("terminal:"))
          write(
            `(approval for tools.${request!.toolPath} ${event.decision.decision} by ${event.decision.by}${event.decision.reason ? `: ${event.decision.reason}` : ""})`,
          );
        if (index === 0) showPrompt();
        break;
      }
      case "model.request":
        if (!approvals.length) spinner.set("thinking…");
        break;
      case "run.started":
        if (!approvals.length) spinner.set("running code…");
        break;
      case "call.settled":
        // Only during a turn: an MCP client's call (#34) settles while the terminal may be idle.
        if (busy && !approvals.length) spinner.set(`tools.${event.outcome.toolPath} ${event.outcome.status}…`);
        break;
      case "call.progress":
        if (!approvals.length) spinner.set(`${escapeControlChars(progressNote(event.progress))}…`);
        break;
      case "model.thinking": {
        // Progress notes the model writes between tool calls (when the thinking display returns them).
        const line = event.text
          .trim()
          .split("\n")
          .filter((l) => l.trim())
          .at(-1)
          ?.trim();
        if (line && !approvals.length) spinner.set(`${escapeControlChars(cutText(line, 120, { marker: () => "…" }))}…`);
        break;
      }
      case "typecheck.failed":
        write(formatTypecheckFailure(event.diagnostics, event.repairRound));
        if (!approvals.length) spinner.set("fixing the code…");
        break;
      case "model.retrying":
        write(`(waiting ${event.seconds} s before retrying: ${event.reason})`);
        break;
      case "profile.rotated":
        write(`(switched Anthropic credential ${event.from} → ${event.to}: ${event.reason})`);
        break;
      case "model.fallback":
        // #35: the configured model is down or rate limited; the next one answers.
        write(`(${event.from} is unavailable (${event.reason.replaceAll("_", " ")}); ${event.to} takes the turn)`);
        break;
      case "turn.resumed":
        // #30: the answer of a run the previous process left pending, resumed after this start.
        if (event.surface !== "terminal") break;
        write(
          event.runId
            ? `(run ${event.runId}, interrupted by a restart, was resumed)`
            : "(your last message, cut off by a restart, was answered again)",
        );
        write(formatAnswer({ ...event, runIds: event.runId ? [event.runId] : [] }));
        showPrompt();
        break;
      case "turn.scheduled":
        // #33: a schedule ran a turn in this conversation.
        if (event.surface !== "terminal") break;
        write(`(schedule "${event.scheduleName}" ran)`);
        write(formatAnswer({ ...event, runIds: [] }));
        showPrompt();
        break;
      case "schedule.alert":
        if (event.surface !== "terminal") break;
        write(`⚠ ${event.text}`);
        showPrompt();
        break;
      case "ability.finished":
        // #32: an ability run started in this conversation ended.
        if (event.surface !== "terminal") break;
        write(formatAnswer({ ...event, unverified: false, runIds: event.summary.runIds }));
        showPrompt();
        break;
    }
  };
  const unsubscribe = gateway.events.subscribe(onEvent);

  // The request leaves the queue at once, so the next line answers the next request.
  const decide = (request: ApprovalRequest, decision: ApprovalDecision) => {
    const index = approvals.findIndex((r) => r.callId === request.callId);
    if (index >= 0) approvals.splice(index, 1);
    void gateway.broker
      .decide(request.callId, decision)
      .then(
        (result) =>
          write(
            result.outcome === "decided"
              ? `${decision.decision === "approved" ? "✅ approved" : "⛔ denied"}: tools.${request.toolPath}`
              : `(already decided: tools.${request.toolPath})`,
          ),
        (e) =>
          write(
            `could not record the decision for tools.${request.toolPath}: ${e instanceof Error ? e.message : String(e)}`,
          ),
      )
      .finally(() => {
        if (busy && !approvals.length) spinner.set("running…");
        showPrompt();
      });
  };

  const answerApproval = (line: string) => {
    const request = approvals[0]!;
    if (awaitingReasonFor === request.callId) {
      awaitingReasonFor = undefined;
      decide(request, { decision: "denied", by: approver, reason: line || "denied by the operator" });
      return;
    }
    const [word, ...rest] = line.split(/\s+/);
    const choice = word?.toLowerCase();
    if (choice === "a" || choice === "approve") decide(request, { decision: "approved", by: approver });
    else if (choice === "d" || choice === "deny")
      decide(request, { decision: "denied", by: approver, reason: "denied by the operator" });
    else if ((choice === "r" || choice === "reason") && rest.length)
      decide(request, { decision: "denied", by: approver, reason: rest.join(" ") });
    else if (choice === "i" || choice === "input")
      write(`${formatFullInput(request)}\nAnswer a (approve), d (deny) or r (deny with a reason).`);
    else if (choice === "r" || choice === "reason") {
      awaitingReasonFor = request.callId;
      write("Reason for the denial (sent to the assistant):");
    } else write("Answer a (approve), d (deny) or r (deny with a reason).");
  };

  /** `/model` (model/model-command.ts, shared with Discord's). */
  const runModelCommand = async (arg: string) => {
    for (const line of await modelCommand(gateway, { key: sessionKey, surface: "terminal" }, arg)) write(line);
  };

  const runNext = async () => {
    if (busy) return;
    const text = messages.shift();
    if (text === undefined) {
      if (inputEnded) finish();
      return;
    }
    busy = true;
    turnAbort = new AbortController();
    spinner.set("thinking…");
    try {
      const outcome = await gateway.handleMessage({
        sessionKey,
        surface: "terminal",
        userId,
        text,
        signal: turnAbort.signal,
      });
      write(formatAnswer(outcome));
      if (gateway.receiptLink && outcome.summary?.items.length)
        write(formatReceiptLinks(outcome.summary, gateway.receiptLink));
    } catch (e) {
      write(`error: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      busy = false;
      turnAbort = undefined;
      spinner.clear();
    }
    if (closed || (inputEnded && messages.length === 0)) return finish();
    showPrompt();
    void runNext();
  };

  let finished = false;
  const finish = () => {
    closed = true;
    if (finished || busy) return; // a running turn calls finish() again when it settles
    finished = true;
    unsubscribe();
    rl.close();
    resolveDone();
  };

  const rl = createInterface({ input: options.input, terminal: false, crlfDelay: Infinity });
  rl.on("line", (raw) => {
    const line = raw.trim();
    if (closed) return;
    if (approvals.length) return answerApproval(line);
    if (!line) return showPrompt();
    if (line === "/model" || line.startsWith("/model ")) {
      void runModelCommand(line.slice("/model".length).trim())
        .catch((e) => write(`/model failed: ${e instanceof Error ? e.message : String(e)}`))
        .finally(showPrompt);
      return;
    }
    if (line === "/reload" && options.reload) {
      options
        .reload()
        .then(
          (text) => write(text),
          (e) => write(`reload failed: ${e instanceof Error ? e.message : String(e)}`),
        )
        .finally(showPrompt);
      return;
    }
    if (line === "/exit" || line === "/quit") {
      inputEnded = true;
      if (!busy && messages.length === 0) finish();
      return;
    }
    if (line === "/help") {
      write(formatHelp(knownModels()));
      return showPrompt();
    }
    // A word after a slash is a command: one this terminal does not know is answered here, never sent.
    const command = /^\/[A-Za-z][\w-]*(?=\s|$)/.exec(line)?.[0];
    // #32: `/ability …` is the gateway's (docs/abilities.md), answered like a message.
    if (command && command !== "/ability") {
      write(
        `Unknown command ${command}${command === "/reload" ? " here (this chat cannot reload tools)" : ""}: /help lists the commands. To send a message that starts with /, write //.`,
      );
      return showPrompt();
    }
    messages.push(line.startsWith("//") ? line.slice(1) : line);
    if (busy) write(`(queued: the current request is still running)`);
    void runNext();
  });
  rl.on("close", () => {
    inputEnded = true;
    // Nobody is left to answer approvals: cancel the running turn (its calls end denied/failed).
    if (busy && approvals.length) turnAbort?.abort("terminal input closed");
    if (!busy && messages.length === 0) finish();
  });

  if (options.greeting) write(options.greeting);
  showPrompt();
  return {
    done,
    close() {
      turnAbort?.abort("terminal closed");
      closed = true;
      finish();
    },
  };
}

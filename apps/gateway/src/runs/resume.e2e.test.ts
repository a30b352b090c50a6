import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RESUMED } from "@openassistant/core/codemode";
import { OUTCOME_UNKNOWN } from "@openassistant/core/receipts";
import {
  type ScriptedTurn,
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
} from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { GatewayEvent } from "../events/types.ts";
import { startHarness, TEST_API_KEY, terminalStreams, type Harness } from "../../test/harness.ts";
import { startTerminalSurface } from "../surfaces/terminal/terminal-surface.ts";
import { ledgerTools } from "./fixtures/ledger-tools.ts";

let h: Harness | undefined;
let child: ReturnType<typeof Bun.spawn> | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await h?.close();
  h = undefined;
});

const CODE =
  "const before = await tools.ledger.read({}); const r = await tools.ledger.post({ amount: 5 }); return { before, r };";

/** A gateway process running `code`, killed (SIGKILL) once its output matches `at`; resolves with the match. */
async function gatewayKilledAt(
  dir: string,
  ledger: string,
  code: string,
  at: RegExp,
  approvalMs = 60_000,
  turns: ScriptedTurn[] = [toolUseTurn({ id: "toolu_1", name: "execute", input: { code } })],
  message?: string,
): Promise<RegExpExecArray> {
  const api = await startFakeAnthropic();
  api.script(turns);
  child = Bun.spawn(["bun", join(import.meta.dir, "fixtures", "waiting-child.ts")], {
    env: {
      ...process.env,
      OA_DIR: dir,
      OA_CONFIG_DIR: join(dir, "config"),
      OA_ANTHROPIC_URL: api.url,
      OA_LEDGER: ledger,
      OA_APPROVAL_MS: String(approvalMs),
      ...(message ? { OA_MESSAGE: message } : {}),
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!at.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the gateway process ended before printing ${at}: ${out}`);
    out += new TextDecoder().decode(value);
  }
  child.kill("SIGKILL");
  await child.exited;
  child = undefined;
  await api.close();
  return at.exec(out)!;
}

/** A gateway process whose run waits on an approval card, killed; the card's ids. */
async function gatewayKilledWhileACardWaits(dir: string, ledger: string, approvalMs?: number) {
  const [, callId, runId] = await gatewayKilledAt(dir, ledger, CODE, /card (\S+) (\S+)\n/, approvalMs);
  return { callId: callId!, runId: runId! };
}

describe("#30: a run survives kill -9 (real processes, real SQLite, fake Anthropic)", () => {
  test("a card waiting when the gateway was killed decides the resumed run: the tool runs once, receipts verify, the answer is given in the same session", async () => {
    const dir = makeTempDir("oa-resume-");
    const ledger = join(dir, "ledger.txt");
    const card = await gatewayKilledWhileACardWaits(dir, ledger);
    expect(existsSync(ledger)).toBe(false);

    h = await startHarness({ dir, tools: ledgerTools(ledger), settings: { http: { port: 0 } } as never });
    // The continuation: the model is given the resumed run's result and answers from it.
    h.api.script([
      (req) => {
        const text = lastUserText(req.body);
        return textTurn(/posted\\?"?:\s*5/.test(text) ? "Posted 5 to the ledger." : `unexpected: ${text}`);
      },
    ]);
    // The approval the dead process asked for is still open (not closed at start).
    expect((await h.gateway.approvals.get(card.callId))!.status).toBe("pending");
    const events: GatewayEvent[] = [];
    let askedAgain!: () => void;
    const asked = new Promise<void>((resolve) => (askedAgain = resolve));
    h.gateway.events.subscribe((e) => {
      events.push(e);
      if (e.type === "approval.requested" && e.request.callId === card.callId) askedAgain();
    });
    const resuming = h.gateway.resumeInterrupted();
    await asked; // the resumed run reached the call and waits on the same approval
    // The old card's id decides the resumed call (what a click on the card, or the terminal, does).
    const decided = await h.gateway.approvals.decide(card.callId, { decision: "approved", by: "ann" });
    expect(decided.outcome).toBe("decided");
    const reports = await resuming;
    expect(reports).toEqual([{ runId: card.runId, ok: true }]);

    expect(readFileSync(ledger, "utf8")).toBe("5\n"); // the non-idempotent tool ran exactly once
    const rows = await h.gateway.receipts.byRun(card.runId);
    const call = rows.filter((r) => r.callId === card.callId);
    expect(call.map((r) => r.phase)).toEqual(["requested", "requested", "approved", "started", "succeeded"]);
    expect(call[1]!.reason).toBe(RESUMED);
    expect(call[2]!.decidedBy).toBe("ann");
    expect(rows.filter((r) => r.toolPath === "ledger.read").map((r) => r.phase)).toEqual([
      "requested",
      "started",
      "succeeded",
    ]); // answered from the record, not run again
    expect((await h.gateway.receipts.verify()).ok).toBe(true);

    const resumed = events.find((e) => e.type === "turn.resumed");
    expect(resumed).toMatchObject({
      type: "turn.resumed",
      runId: card.runId,
      sessionKey: "terminal",
      text: "Posted 5 to the ledger.",
    });
    const sent = h.api.messageRequests()[0]!;
    expect(lastUserText(sent.body)).toContain(`run ${card.runId}) was resumed`);
    expect(lastUserText(sent.body)).toContain("post 5 to the ledger");
    // Same session: the turns of the conversation are the cut one (closed) and the continuation.
    const session = await h.gateway.sessions.getOrCreate("terminal", "terminal");
    const turns = await h.gateway.sessions.turns(session.id);
    expect(turns.map((t) => t.stopReason)).toEqual(["aborted", "answered"]);
    expect(turns[1]!.runIds).toContain(card.runId);
    expect(turns[1]!.answer).toBe("Posted 5 to the ledger.");
    // The run's console page says it was resumed.
    const page = await (await fetch(h.gateway.console!.callLink(card.runId, card.callId))).text();
    expect(page).toContain('<dd id="resumed">after a restart');
  }, 60_000);

  test("approved in the terminal after the restart: the terminal shows the old call's approval, then the resumed answer", async () => {
    const dir = makeTempDir("oa-resume-term-");
    const ledger = join(dir, "ledger.txt");
    const card = await gatewayKilledWhileACardWaits(dir, ledger);
    h = await startHarness({ dir, tools: ledgerTools(ledger) });
    h.api.script([textTurn("Posted 5 to the ledger.")]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    const resuming = h.gateway.resumeInterrupted();
    const prompt = await io.waitFor(/Approval needed[\s\S]*deny with a reason.*\n/);
    expect(prompt).toContain("tools.ledger.post");
    io.send("a");
    const note = await io.waitFor(/\(run \S+, interrupted by a restart, was resumed\)\n/);
    expect(note).toContain(`run ${card.runId}, interrupted by a restart, was resumed`);
    const answer = await io.waitFor(/assistant › [\s\S]*\[r_\d+\]\n/);
    expect(answer).toContain("Posted 5 to the ledger.");
    expect(answer).toMatch(/✅ ledger\.post succeeded \(approved by terminal:ann\)/);
    expect(await resuming).toEqual([{ runId: card.runId, ok: true }]);
    expect(readFileSync(ledger, "utf8")).toBe("5\n");
    expect((await h.gateway.receipts.verify()).ok).toBe(true);
    io.input.end();
    await surface.done;
  }, 60_000);

  test("killed while a non-idempotent tool ran: the resumed run does not run it again; the call is closed as outcome unknown and the model is told", async () => {
    const dir = makeTempDir("oa-resume-cut-");
    const ledger = join(dir, "ledger.txt");
    const code = "await tools.ledger.transfer({ amount: 7 }); return 'moved';";
    const [, runId] = await gatewayKilledAt(dir, ledger, code, /transfer (\S+)\n/);
    expect(readFileSync(ledger, "utf8")).toBe("transfer 7\n");

    h = await startHarness({ dir, tools: ledgerTools(ledger) });
    h.api.script([
      (req) =>
        textTurn(
          lastUserText(req.body).includes("outcome unknown")
            ? "The gateway restarted while the transfer ran; I cannot tell whether it went through."
            : `unexpected: ${lastUserText(req.body)}`,
        ),
    ]);
    const events: GatewayEvent[] = [];
    h.gateway.events.subscribe((e) => events.push(e));
    const [report] = await h.gateway.resumeInterrupted();
    expect(report).toMatchObject({ runId, ok: false });
    expect(readFileSync(ledger, "utf8")).toBe("transfer 7\n"); // not executed a second time
    const rows = await h.gateway.receipts.byRun(runId!);
    expect(rows.map((r) => r.phase)).toEqual(["requested", "started", "failed"]);
    expect(rows[2]!.error).toStartWith(OUTCOME_UNKNOWN);
    expect((await h.gateway.receipts.verify()).ok).toBe(true);
    const resumed = events.find((e) => e.type === "turn.resumed");
    expect(resumed).toMatchObject({ runId, text: expect.stringContaining("cannot tell whether it went through") });
    expect(resumed && "summaryText" in resumed ? resumed.summaryText : "").toContain("outcome unknown");
  }, 60_000);

  test("killed while an idempotent tool ran: the resumed run runs it again under a new call id; the cut-off call says so", async () => {
    const dir = makeTempDir("oa-resume-idem-");
    const ledger = join(dir, "ledger.txt");
    const [, runId] = await gatewayKilledAt(
      dir,
      ledger,
      "return await tools.ledger.setLimit({ limit: 9 });",
      /transfer (\S+)\n/,
    );
    h = await startHarness({ dir, tools: ledgerTools(ledger) });
    h.api.script([textTurn("The limit is 9.")]);
    expect(await h.gateway.resumeInterrupted()).toEqual([{ runId: runId!, ok: true }]);
    expect(readFileSync(ledger, "utf8")).toBe("limit 9\nlimit 9\n"); // it may run twice: it did
    const rows = await h.gateway.receipts.byRun(runId!);
    const [cut, again] = [...new Set(rows.map((r) => r.callId))];
    expect(rows.filter((r) => r.callId === cut).map((r) => r.phase)).toEqual(["requested", "started", "failed"]);
    expect(rows.find((r) => r.callId === cut && r.phase === "failed")!.error).toContain(`ran it again as ${again}`);
    expect(rows.filter((r) => r.callId === again).map((r) => r.phase)).toEqual(["requested", "started", "succeeded"]);
    expect((await h.gateway.receipts.verify()).ok).toBe(true);
  }, 60_000);

  test("the expiry counts across the restart: the card asked with a 2 s window expires by its first deadline, not a fresh one", async () => {
    const dir = makeTempDir("oa-resume-exp-");
    const ledger = join(dir, "ledger.txt");
    const card = await gatewayKilledWhileACardWaits(dir, ledger, 2_000);
    // The new gateway would give a fresh request a minute.
    h = await startHarness({ dir, tools: ledgerTools(ledger), settings: { approvalTimeoutMs: 60_000 } });
    h.api.script([textTurn("The approval expired; nothing was posted.")]);
    const [report] = await h.gateway.resumeInterrupted();
    expect(report).toMatchObject({ runId: card.runId });
    const decided = await h.gateway.approvals.get(card.callId);
    expect(decided!.decision).toMatchObject({ decision: "denied", by: "timeout", reason: "no decision within 2s" });
    expect(existsSync(ledger)).toBe(false);
    expect((await h.gateway.receipts.verify()).ok).toBe(true);
  }, 60_000);
});

/** A text answer whose stream stops after a few deltas and stays open (until the test ends). */
function heldTextTurn(text: string): ScriptedTurn {
  return textTurn(text, { chunkSize: 4, holdStream: { afterTextDeltas: 2, until: new Promise(() => {}) } });
}

describe("#30 (c): kill -9 while the model streams its answer (no run to resume)", () => {
  test("the cut-off turn is closed as aborted and its request answered again, once, in the same session; delivered as turn.resumed", async () => {
    const dir = makeTempDir("oa-resume-stream-");
    const ledger = join(dir, "ledger.txt");
    const [, cutTurnId] = await gatewayKilledAt(
      dir,
      ledger,
      "",
      /streaming (\S+)\n/,
      undefined,
      [heldTextTurn("The capital of France is Paris, as every atlas says.")],
      `what is the capital of France? (my key is ${TEST_API_KEY})`,
    );

    h = await startHarness({ dir, tools: ledgerTools(ledger) });
    h.api.script([
      (req) => {
        const text = lastUserText(req.body);
        return textTurn(
          text.includes("restarted while you answered") &&
            text.includes("what is the capital of France? (my key is [redacted])") &&
            !text.includes(TEST_API_KEY)
            ? "Paris."
            : `unexpected: ${text}`,
        );
      },
    ]);
    const resumed = new Promise<GatewayEvent>((resolve) =>
      h!.gateway.events.subscribe((e) => e.type === "turn.resumed" && resolve(e)),
    );
    expect(await h.gateway.resumeInterrupted()).toEqual([]); // no run was pending
    expect(await resumed).toMatchObject({
      type: "turn.resumed",
      sessionKey: "terminal",
      surface: "terminal",
      text: "Paris.",
    });
    expect(await resumed).not.toHaveProperty("runId");

    const session = await h.gateway.sessions.getOrCreate("terminal", "terminal");
    const turns = await h.gateway.sessions.turns(session.id);
    expect(turns.map((t) => [t.id === cutTurnId, t.stopReason])).toEqual([
      [true, "aborted"],
      [false, "answered"],
    ]);
    expect(turns[0]!.answer).toContain("killed while the model answered");
    expect(turns[1]!.answer).toBe("Paris.");
    // Once: a second call does not answer again, and nothing is left unfinished for the next start.
    await h.gateway.resumeInterrupted();
    expect(h.api.messageRequests()).toHaveLength(1);
    expect(await h.gateway.sessions.unfinishedTurns()).toEqual([]);
    expect((await h.gateway.receipts.verify()).ok).toBe(true);
  }, 60_000);

  test("killed mid-stream after a run finished: the run is not made again; the model is told of it and the answer counts its receipts", async () => {
    const dir = makeTempDir("oa-resume-stream-run-");
    const ledger = join(dir, "ledger.txt");
    await gatewayKilledAt(
      dir,
      ledger,
      "",
      /streaming (\S+)\n/,
      undefined,
      [
        toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.ledger.read({});" } }),
        heldTextTurn("The ledger holds nothing yet, so there is nothing to report."),
      ],
      "what is on the ledger?",
    );

    h = await startHarness({ dir, tools: ledgerTools(ledger) });
    const [run] = await h.gateway.receipts.runs({});
    expect(run).toMatchObject({ status: "succeeded" });
    h.api.script([
      (req) => {
        const text = lastUserText(req.body);
        return textTurn(text.includes(`run ${run!.runId}`) ? "The ledger is empty." : `unexpected: ${text}`);
      },
    ]);
    const resumed = new Promise<GatewayEvent>((resolve) =>
      h!.gateway.events.subscribe((e) => e.type === "turn.resumed" && resolve(e)),
    );
    await h.gateway.resumeInterrupted();
    expect(await resumed).toMatchObject({ text: "The ledger is empty." });
    const session = await h.gateway.sessions.getOrCreate("terminal", "terminal");
    const turns = await h.gateway.sessions.turns(session.id);
    expect(turns.map((t) => t.stopReason)).toEqual(["aborted", "answered"]);
    expect(turns[1]!.runIds).toContain(run!.runId);
    expect(await h.gateway.receipts.runs({})).toHaveLength(1); // no new run: nothing was made again
    expect((await h.gateway.receipts.verify()).ok).toBe(true);
  }, 60_000);

  test("a turn a graceful stop cancelled is recorded aborted and not answered again at the next start", async () => {
    const dir = makeTempDir("oa-resume-stream-stop-");
    const ledger = join(dir, "ledger.txt");
    const first = await startHarness({ dir, tools: ledgerTools(ledger) });
    let held!: () => void;
    const streaming = new Promise<void>((resolve) => (held = resolve));
    first.api.script([
      textTurn("A long answer that never ends.", {
        chunkSize: 4,
        holdStream: { afterTextDeltas: 2, until: new Promise(() => {}), onHeld: held },
      }),
    ]);
    const turn = first.gateway
      .handleMessage({ sessionKey: "terminal", surface: "terminal", userId: "ann", text: "tell me a story" })
      .catch(() => undefined);
    await streaming;
    await first.close(); // the graceful stop cancels the turn, which records its outcome
    await turn;

    h = await startHarness({ dir, tools: ledgerTools(ledger) });
    expect(await h.gateway.sessions.unfinishedTurns()).toEqual([]);
    await h.gateway.resumeInterrupted();
    expect(h.api.messageRequests()).toHaveLength(0);
    const session = await h.gateway.sessions.getOrCreate("terminal", "terminal");
    expect((await h.gateway.sessions.turns(session.id)).map((t) => t.stopReason)).toEqual(["aborted"]);
  }, 60_000);
});

function lastUserText(body: { messages: Array<{ role: string; content: unknown }> }): string {
  return JSON.stringify(body.messages.at(-1)?.content);
}

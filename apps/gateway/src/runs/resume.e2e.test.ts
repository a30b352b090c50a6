import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RESUMED } from "@openassistant/core/codemode";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { GatewayEvent } from "../events/types.ts";
import { startHarness, terminalStreams, type Harness } from "../../test/harness.ts";
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

/** A gateway process whose run waits on an approval card; resolves with the card's ids once it is out. */
async function gatewayKilledWhileACardWaits(dir: string, ledger: string) {
  const api = await startFakeAnthropic();
  api.script([toolUseTurn({ id: "toolu_1", name: "execute", input: { code: CODE } })]);
  child = Bun.spawn(["bun", join(import.meta.dir, "fixtures", "waiting-child.ts")], {
    env: {
      ...process.env,
      OA_DIR: dir,
      OA_CONFIG_DIR: join(dir, "config"),
      OA_ANTHROPIC_URL: api.url,
      OA_LEDGER: ledger,
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!/card \S+ \S+\n/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the gateway process ended before its card was out: ${out}`);
    out += new TextDecoder().decode(value);
  }
  const [, callId, runId] = /card (\S+) (\S+)\n/.exec(out)!;
  child.kill("SIGKILL");
  await child.exited;
  child = undefined;
  await api.close();
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
});

function lastUserText(body: { messages: Array<{ role: string; content: unknown }> }): string {
  return JSON.stringify(body.messages.at(-1)?.content);
}

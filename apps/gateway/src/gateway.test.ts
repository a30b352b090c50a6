import { afterEach, describe, expect, test } from "bun:test";
import { fakeAnthropicErrors, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import type { GatewayEvent } from "./events/types.ts";
import { UNVERIFIED_MARK } from "./grounding/ground.ts";
import { renderOutcome } from "./grounding/render.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineTool, z } from "@openassistant/sdk";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import {
  harnessChecker,
  lastToolResult,
  startHarness,
  startProjectGateway,
  TEST_API_KEY,
  type Harness,
} from "../test/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const exec = (id: string, code: string) => toolUseTurn({ id, name: "execute", input: { code } });

describe("a turn through the gateway (real SDK → fake Anthropic, real sandbox, real SQLite)", () => {
  test("system prompt carries the declarations with cache_control; one execute tool; streamed", async () => {
    h = await startHarness();
    h.api.script([textTurn("Hello!")]);
    const outcome = await h.gateway.handleMessage({
      sessionKey: "terminal",
      surface: "terminal",
      userId: "ann",
      text: "hi",
    });
    expect(outcome.text).toBe("Hello!");
    expect(outcome.unverified).toBe(false);
    const req = h.api.messageRequests()[0]!;
    expect(req.body.stream).toBe(true);
    expect(req.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    expect(req.body.tools.map((t: { name: string }) => t.name)).toEqual(["execute"]);
    expect(req.body.system[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(req.body.system[0].text).toContain("declare const tools");
    expect(req.body.system[0].text).toContain("create(input: {");
    expect(req.body.system[0].text).toContain("declare class ToolDeniedError");
    expect(JSON.stringify(req.body)).not.toContain(TEST_API_KEY);
  });

  test("a typecheck error goes back as an is_error tool_result and the model repairs it", async () => {
    h = await startHarness();
    h.api.script([
      exec("toolu_1", "return await tools.reminders.lst({});"),
      exec("toolu_2", "return await tools.reminders.list({});"),
      textTurn("You have one reminder: water plants."),
    ]);
    const events: GatewayEvent[] = [];
    const outcome = await h.gateway.handleMessage({
      sessionKey: "t1",
      surface: "terminal",
      text: "what reminders?",
      onEvent: (e) => events.push(e),
    });
    const [, second, third] = h.api.messageRequests();
    const repair = lastToolResult(second!.body);
    expect(repair.is_error).toBe(true);
    expect(repair.content).toContain("failed the typecheck");
    expect(repair.content).toMatch(/line 1/i);
    expect(repair.content).toContain("lst");
    expect(events.some((e) => e.type === "typecheck.failed")).toBe(true);
    const ran = lastToolResult(third!.body);
    expect(ran.is_error).toBe(false);
    expect(ran.content).toContain("water plants");
    expect(ran.content).toContain("Relevant tool activity this turn");
    expect(outcome.runIds).toHaveLength(1);
    expect(h.calls).toEqual(["reminders.list"]);
    expect(outcome.stopReason).toBe("answered");
  });

  test("repair rounds are bounded by maxRepairRounds", async () => {
    h = await startHarness({ settings: { turn: { maxRepairRounds: 1 } as never } });
    h.api.script([
      exec("toolu_1", "tools.nope();"),
      exec("toolu_2", "tools.nope2();"),
      textTurn("Sorry, I could not write working code."),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "t2", surface: "terminal", text: "do it" });
    const reqs = h.api.messageRequests();
    expect(reqs).toHaveLength(3);
    expect(lastToolResult(reqs[2]!.body).content).toContain("No repair rounds are left");
    expect(reqs[2]!.body.tool_choice).toEqual({ type: "none" });
    expect(outcome.text).toContain("could not write working code");
    expect(outcome.runIds).toHaveLength(0);
  });

  test("a failed tool call appears in the summary for the model and the user", async () => {
    h = await startHarness();
    h.api.script([
      exec(
        "toolu_1",
        'try { await tools.mail.send({ to: "bob@example.com", body: "hi" }); return "sent"; } catch (e) { return String(e); }',
      ),
      (req) => {
        const result = lastToolResult(req.body);
        return textTurn(
          result.content.includes("❌ mail.send failed")
            ? "I could not send the email: the mail server refused the connection."
            : "??",
        );
      },
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "t3", surface: "terminal", text: "mail bob" });
    expect(outcome.text).toContain("could not send the email");
    expect(outcome.summaryText).toMatch(/❌ mail\.send failed: .*SMTP server refused the connection \[r_\d+\]/);
    expect(outcome.unverified).toBe(false);
    expect(renderOutcome(outcome)).toContain("Relevant tool activity:\n❌ mail.send failed");
    const receipts = await h.gateway.receipts.byRun(outcome.runIds[0]!);
    expect(receipts.map((r) => r.phase)).toEqual(["requested", "started", "failed"]);
  });

  test("claiming an action without a success receipt is marked unverified", async () => {
    h = await startHarness();
    h.api.script([textTurn("Done! I've scheduled your reminder for 9am tomorrow.")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "t4", surface: "terminal", text: "remind me at 9" });
    expect(outcome.unverified).toBe(true);
    expect(renderOutcome(outcome)).toContain(UNVERIFIED_MARK);
    expect(renderOutcome(outcome)).toContain("No tool calls were made.");

    // A read that succeeded does not back "created".
    h.api.script([exec("toolu_1", "return await tools.reminders.list({});"), textTurn("I created the reminder.")]);
    const second = await h.gateway.handleMessage({ sessionKey: "t4", surface: "terminal", text: "again" });
    expect(second.unverified).toBe(true);
    expect(second.summaryText).toContain("✅ reminders.list succeeded");
  });

  test("malformed execute input gets a clear error tool_result", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { source: "return 1" } }),
      toolUseTurn({ id: "toolu_2", name: "execute", input: { code: 42 } }),
      textTurn("ok"),
    ]);
    await h.gateway.handleMessage({ sessionKey: "t5", surface: "terminal", text: "x" });
    const [, second, third] = h.api.messageRequests();
    expect(lastToolResult(second!.body)).toEqual({
      is_error: true,
      content: expect.stringContaining('"code" field is missing'),
    });
    expect(lastToolResult(third!.body)).toEqual({
      is_error: true,
      content: expect.stringContaining('"code" must be a string, got a number'),
    });
  });

  test("model API errors become a clear message and an error event, never a crash", async () => {
    h = await startHarness();
    // With one credential an overload is waited out and retried twice (retry-after kept short here).
    const overloaded = { error: { ...fakeAnthropicErrors.overloaded().error, headers: { "retry-after-ms": "10" } } };
    h.api.script([overloaded, overloaded, overloaded]);
    const events: GatewayEvent[] = [];
    const outcome = await h.gateway.handleMessage({
      sessionKey: "t6",
      surface: "terminal",
      text: "hi",
      onEvent: (e) => events.push(e),
    });
    expect(outcome.stopReason).toBe("model_error");
    expect(outcome.text).toContain("Anthropic is overloaded, try again in a minute.");
    expect(events.find((e) => e.type === "error")).toMatchObject({ code: "model.overloaded" });
    expect(await h.gateway.sessions.turnEvents({ turnId: outcome.turnId, type: "error" })).toHaveLength(1);
  });

  test("after a model error the session stays usable and its history well-formed", async () => {
    h = await startHarness();
    h.api.script([
      exec("toolu_1", "return await tools.reminders.list({});"),
      { error: { status: 400, type: "invalid_request_error", message: "messages.1: something was off" } },
    ]);
    const failed = await h.gateway.handleMessage({ sessionKey: "t7", surface: "terminal", text: "hi" });
    expect(failed.stopReason).toBe("model_error");
    expect(failed.text).toContain("Anthropic rejected the request: messages.1: something was off");
    h.api.script([textTurn("back")]);
    const next = await h.gateway.handleMessage({ sessionKey: "t7", surface: "terminal", text: "hi again" });
    expect(next.text).toBe("back");
    const roles = h.api
      .messageRequests()
      .at(-1)!
      .body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(["user", "assistant", "user", "assistant", "user"]);
  });
});

describe("the checker is warmed up with the tools' declarations", () => {
  test("at start: the first turn's check finds a checker built for them", async () => {
    // Tools no other test of this file uses, so the shared checker has never seen their declarations.
    const tools = {
      warmup: {
        probe: defineTool({
          description: "Probe",
          approval: "auto",
          args: z.object({ n: z.number() }),
          run: async ({ n }) => n + 1,
        }),
      },
    };
    h = await startHarness({ tools });
    await h.gateway.warm;
    const cold = harnessChecker.stats().coldChecks;
    h.api.script([exec("toolu_1", "return await tools.warmup.probe({ n: 1 });"), textTurn("2")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "w1", surface: "terminal", text: "probe" });
    expect(outcome.runIds).toHaveLength(1);
    expect(harnessChecker.stats().coldChecks).toBe(cold);
  });

  test("after a reload: a check against the new declarations finds a checker built for them", async () => {
    const api = await startFakeAnthropic();
    const dir = makeTempDir("oa-gw-reload-");
    const toolsDir = join(dir, ".openassistant", "tools");
    mkdirSync(toolsDir, { recursive: true });
    const tool = (name: string) =>
      `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "${name}", approval: "auto", args: z.object({ n: z.number() }), run: async ({ n }) => n });\n`;
    writeFileSync(join(toolsDir, "first_tool.ts"), tool("first"));
    const gateway = await startProjectGateway(dir, api.url);
    try {
      await gateway.warm;
      writeFileSync(join(toolsDir, "second_tool.ts"), tool("second"));
      await gateway.reloadTools();
      expect(gateway.tools().declarations.text).toContain("second_tool");
      const cold = harnessChecker.stats().coldChecks;
      api.script([exec("toolu_1", "return await tools.second_tool({ n: 2 });"), textTurn("2")]);
      const outcome = await gateway.handleMessage({ sessionKey: "r1", surface: "terminal", text: "second" });
      expect(outcome.runIds).toHaveLength(1);
      expect(harnessChecker.stats().coldChecks).toBe(cold);
    } finally {
      await gateway.shutdown();
      await api.close();
    }
  });
});

describe("auth profile rotation, end to end through the gateway", () => {
  for (const [name, error, reason] of [
    ["429", fakeAnthropicErrors.rateLimited(30), "rate_limit"],
    ["401", fakeAnthropicErrors.authentication(), "auth"],
  ] as const) {
    test(`rotates to the next profile on ${name}, emits and records the rotation`, async () => {
      h = await startHarness({
        profiles: [
          { name: "first", type: "api_key", secret: "sk-ant-api03-first-aaaaaaaaaaaaaaaa" },
          { name: "second", type: "api_key", secret: "sk-ant-api03-second-bbbbbbbbbbbbbbb" },
        ],
      });
      h.api.script([error, textTurn("Answered by the second profile.")]);
      const events: GatewayEvent[] = [];
      const outcome = await h.gateway.handleMessage({
        sessionKey: `rot-${name}`,
        surface: "terminal",
        text: "hi",
        onEvent: (e) => events.push(e),
      });
      expect(outcome.text).toBe("Answered by the second profile.");
      const [a, b] = h.api.messageRequests();
      expect(a!.headers.authorization).toBe("Bearer sk-ant-api03-first-aaaaaaaaaaaaaaaa");
      expect(b!.headers.authorization).toBe("Bearer sk-ant-api03-second-bbbbbbbbbbbbbbb");
      expect(events.find((e) => e.type === "profile.rotated")).toMatchObject({
        from: "anthropic:first",
        to: "anthropic:second",
        reason,
        turnId: outcome.turnId,
      });
      const recorded = await h.gateway.sessions.turnEvents({ turnId: outcome.turnId, type: "profile.rotated" });
      expect(recorded).toHaveLength(1);
      expect(recorded[0]!.data).toMatchObject({ from: "anthropic:first", to: "anthropic:second", reason });
      expect(JSON.stringify(recorded)).not.toContain("sk-ant-api03");
    });
  }
});

describe("sessions", () => {
  test("history persists across a gateway restart on the same database file", async () => {
    h = await startHarness();
    h.api.script([textTurn("Nice to meet you, Ann.")]);
    await h.gateway.handleMessage({
      sessionKey: "discord:dm:42",
      surface: "discord",
      userId: "42",
      text: "My name is Ann.",
    });
    const dbPath = h.gateway.settings.databasePath;
    const second = await h.restart();
    expect(second.settings.databasePath).toBe(dbPath);
    h.api.script([textTurn("Your name is Ann.")]);
    await second.handleMessage({
      sessionKey: "discord:dm:42",
      surface: "discord",
      userId: "42",
      text: "What is my name?",
    });
    const body = h.api.messageRequests().at(-1)!.body;
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "My name is Ann." }] },
      { role: "assistant", content: [{ type: "text", text: "Nice to meet you, Ann." }] },
      { role: "user", content: [{ type: "text", text: "What is my name?" }] },
    ]);
    // The conversation's cache breakpoint is automatic (top level): messages are sent as stored.
    expect(body.cache_control).toEqual({ type: "ephemeral" });
    const session = await second.sessions.getOrCreate("discord:dm:42", "discord");
    expect((await second.sessions.turns(session.id)).map((t) => t.stopReason)).toEqual(["answered", "answered"]);
  });

  test("long histories are trimmed with a note; 'prompt is too long' compacts to a smaller history and answers", async () => {
    h = await startHarness({ settings: { turn: { historyTokens: 600 } as never } });
    for (let i = 0; i < 4; i++) {
      h.api.script([textTurn(`answer ${i} ${"y".repeat(400)}`)]);
      await h.gateway.handleMessage({
        sessionKey: "long",
        surface: "terminal",
        text: `question ${i} ${"x".repeat(400)}`,
      });
    }
    h.api.script([fakeAnthropicErrors.promptTooLong(), textTurn("Still here.")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "long", surface: "terminal", text: "and now?" });
    expect(outcome.text).toStartWith("Still here.");
    expect(outcome.text).toContain("so it was compacted");
    const [tooLong, retry] = h.api
      .messageRequests()
      .slice(-2)
      .map((r) => r.body.messages);
    expect(tooLong.length).toBeGreaterThan(retry.length);
    expect(tooLong.length).toBeLessThan(9); // 8 stored + the new one, already trimmed
    expect(tooLong[0].content[0].text).toContain("Earlier conversation compacted");
    expect(retry.at(-1).content.at(-1).text).toBe("and now?");
    expect(retry[0].role).toBe("user");
    expect(outcome.omittedHistory).toBeGreaterThan(0);
  });

  test("a tool exchange is stored whole: tool_use with its tool_result, run ids linked", async () => {
    h = await startHarness();
    h.api.script([exec("toolu_1", "return await tools.reminders.list({});"), textTurn("One reminder.")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "s2", surface: "terminal", text: "list" });
    const session = await h.gateway.sessions.getOrCreate("s2", "terminal");
    const history = await h.gateway.sessions.history(session.id);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    // Thinking blocks (when the model thinks) come first and are stored with the turn.
    expect(history[1]!.content.find((b) => b.type === "tool_use")).toMatchObject({ type: "tool_use", id: "toolu_1" });
    expect(history[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
    expect(history[2]!.runIds).toEqual(outcome.runIds);
  });
});

describe("graceful shutdown", () => {
  test("a pending approval is denied with the reason, the turn ends, the database is closed", async () => {
    h = await startHarness();
    h.api.script([exec("toolu_1", 'return await tools.reminders.create({ text: "call mom", at: "9:00" });')]);
    const gateway = h.gateway;
    const requested = new Promise<void>((resolve) =>
      gateway.events.subscribe((e) => e.type === "approval.requested" && resolve()),
    );
    const turn = gateway.handleMessage({ sessionKey: "sd", surface: "terminal", text: "remind me" });
    await requested;
    const dbPath = gateway.settings.databasePath;
    await gateway.shutdown();
    const outcome = await turn;
    expect(outcome.stopReason).toBe("aborted");
    expect(outcome.summaryText).toMatch(/⛔ reminders\.create denied by system: "gateway shutting down"/);
    expect(h.calls).toEqual([]);
    expect(() => gateway.db!.query("SELECT 1").get()).toThrow();
    await expect(gateway.handleMessage({ sessionKey: "sd", surface: "terminal", text: "again" })).rejects.toThrow(
      /shutting down/,
    );

    // Reopen the file: the denial receipt and the closed approval are durable.
    const { openDatabase } = await import("@openassistant/core/db");
    const db = openDatabase(dbPath);
    const phases = db
      .query<{ phase: string; reason: string | null }, []>("SELECT phase, reason FROM receipts ORDER BY seq")
      .all();
    expect(phases.map((p) => p.phase)).toEqual(["requested", "denied"]);
    expect(phases[1]!.reason).toBe("gateway shutting down");
    expect(db.query<{ status: string }, []>("SELECT status FROM approvals").get()!.status).toBe("denied");
    db.close();
  });
});

describe("graceful shutdown in a real process", () => {
  test("with a pending approval, the process exits on its own after shutdown()", async () => {
    const { makeTempDir } = await import("@openassistant/testkit/temp.ts");
    const dir = makeTempDir("oa-gw-child-");
    const proc = Bun.spawn(["bun", `${import.meta.dir}/../test/shutdown.child.ts`, dir], {
      stdout: "pipe",
      stderr: "pipe",
    });
    // A process that hangs is SIGKILLed and fails the exit-code check below; no wall-clock comparison.
    const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    clearTimeout(killer);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(result.stopReason).toBe("aborted");
    expect(result.summaryText).toContain('⛔ reminders.create denied by system: "gateway shutting down"');
  }, 30_000);
});

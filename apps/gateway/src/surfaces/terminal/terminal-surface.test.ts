import { afterEach, describe, expect, test } from "bun:test";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { lastToolResult, startHarness, terminalStreams, TEST_MODEL, type Harness } from "../../../test/harness.ts";
import { startTerminalSurface } from "./terminal-surface.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CREATE = 'return await tools.reminders.create({ text: "call mom", at: "tomorrow 9:00" });';

describe("terminal surface", () => {
  test("approve from the terminal: the tool runs and the answer shows the ✅ summary", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: CREATE } }),
      (req) =>
        textTurn(
          lastToolResult(req.body).content.includes("✅ reminders.create succeeded")
            ? "I've scheduled the reminder for tomorrow at 9:00."
            : "It did not work.",
        ),
    ]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    io.send("remind me to call mom tomorrow at 9");
    const prompt = await io.waitFor(/Approval needed[\s\S]*deny with a reason.*\n/);
    expect(prompt).toContain("Tool:  tools.reminders.create");
    expect(prompt).toContain("What:  Create a reminder at a time");
    expect(prompt).toContain('Input:\n  text: "call mom"\n  at: "tomorrow 9:00"\n');
    expect(prompt).toContain(`│ ${CREATE}`);
    io.send("a");
    const answer = await io.waitFor(/assistant › [\s\S]*\[r_\d+\]\n/);
    expect(answer).toContain("I've scheduled the reminder");
    expect(answer).toMatch(/✅ reminders\.create succeeded \(approved by terminal:ann\) \[r_\d+\]/);
    expect(answer).not.toContain("unverified");
    expect(h.calls).toEqual(["reminders.create:call mom"]);
    io.input.end();
    await surface.done;
  });

  test("deny with a reason: the reason reaches the model and the ⛔ line is shown", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn({
        id: "toolu_1",
        name: "execute",
        input: { code: `try { ${CREATE} } catch (e) { return (e as Error).name + ": " + (e as Error).message; }` },
      }),
      (req) => textTurn(`Not scheduled. ${lastToolResult(req.body).content.split("\n")[1]}`),
    ]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    io.send("remind me");
    await io.waitFor(/deny with a reason/);
    io.send("r");
    await io.waitFor(/Reason for the denial/);
    io.send("not on weekends");
    const answer = await io.waitFor(/assistant › [\s\S]*\[r_\d+\]\n/);
    expect(answer).toContain("ToolDeniedError");
    expect(answer).toContain("not on weekends");
    expect(answer).toMatch(/⛔ reminders\.create denied by terminal:ann: "not on weekends" \[r_\d+\]/);
    expect(h.calls).toEqual([]);
    const denied = await h.gateway.receipts.query({ phase: "denied" });
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ decidedBy: "terminal:ann", reason: "not on weekends" });
    io.input.end();
    await surface.done;
  });

  test("plain deny, and a claim after a denial is marked unverified", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: CREATE } }),
      textTurn("Your reminder has been created."),
    ]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    io.send("remind me");
    await io.waitFor(/deny with a reason/);
    io.send("x");
    await io.waitFor(/Answer a \(approve\), d \(deny\)/);
    io.send("d");
    const answer = await io.waitFor(/assistant › [\s\S]*\[r_\d+\]\n/);
    expect(answer).toContain("⚠️ unverified: no successful tool call backs this claim");
    expect(answer).toMatch(/⛔ reminders\.create denied by terminal:ann: "denied by the operator"/);
    io.input.end();
    await surface.done;
  });

  test("on a TTY a spinner shows progress; messages typed during a turn are queued", async () => {
    h = await startHarness();
    h.api.script([textTurn("First answer.", { delayMs: 300 }), textTurn("Second answer.")]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: true,
      userId: "ann",
    });
    await io.waitFor(/you › /);
    io.send("one");
    await io.waitFor(/⠋ thinking…/);
    io.send("two");
    await io.waitFor(/\(queued: the current request is still running\)/);
    await io.waitFor(/assistant › First answer\.[\s\S]*assistant › Second answer\./);
    expect(io.text).toContain("\r\x1b[2K");
    expect(
      h.api
        .messageRequests()
        .at(-1)!
        .body.messages.map((m: { role: string }) => m.role),
    ).toEqual(["user", "assistant", "user"]);
    io.input.end();
    await surface.done;
  });

  test("when the input closes while an approval is pending, the turn is cancelled and the call denied", async () => {
    h = await startHarness();
    h.api.script([toolUseTurn({ id: "toolu_1", name: "execute", input: { code: CREATE } })]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    io.send("remind me");
    await io.waitFor(/deny with a reason/);
    io.input.end();
    await surface.done;
    const denied = await h.gateway.receipts.query({ phase: "denied" });
    expect(denied[0]).toMatchObject({ decidedBy: "system", reason: "terminal input closed" });
    expect(io.text).toMatch(/⛔ reminders\.create denied by system: "terminal input closed"/);
  });

  test("/model <name> sets the terminal session's model: the next request uses it; /model default goes back", async () => {
    h = await startHarness();
    h.api.script([textTurn("one"), textTurn("two"), textTurn("three")]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    io.send("/model");
    await io.waitFor(new RegExp(`model: the configured default \\(${TEST_MODEL}\\)`));
    io.send("hi");
    await io.waitFor(/assistant › one/);
    io.send("/model claude-opus-5-5");
    await io.waitFor(/model: claude-opus-5-5 for this session from the next message/);
    io.send("/model");
    await io.waitFor(/model: claude-opus-5-5 \(this session\)/);
    io.send("hi again");
    await io.waitFor(/assistant › two/);
    io.send("/model not a model!");
    await io.waitFor(/"not a model!" is not a model name/);
    io.send("/model default");
    await io.waitFor(new RegExp(`model: back to the configured default \\(${TEST_MODEL}\\)`));
    io.send("and again");
    await io.waitFor(/assistant › three/);
    expect(h.api.messageRequests().map((r) => r.body.model)).toEqual([TEST_MODEL, "claude-opus-5-5", TEST_MODEL]);
    // "/model" lines are commands, never sent to the model as messages.
    expect(JSON.stringify(h.api.messageRequests().at(-1)!.body.messages)).not.toContain("/model");
    io.input.end();
    await surface.done;
  });

  test("control characters from the model (ESC sequences, carriage returns) are shown escaped, in answers and approval cards", async () => {
    h = await startHarness();
    const sneaky = `${CREATE} // \x1b[2K\bjust a comment`;
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: sneaky } }),
      textTurn("Done.\x1b[2J\x1b[H\r✅ everything approved\u009b31m"),
    ]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    io.send("remind me");
    await io.waitFor(/deny with a reason.*\n/);
    io.send("d");
    await io.waitFor(/assistant › [\s\S]*\[r_\d+\]\n/);
    expect(io.text).not.toMatch(/[\x1b\r\x08\x9b]/);
    expect(io.text).toContain(`│ ${CREATE} // \\u{001B}[2K\\u{0008}just a comment`);
    expect(io.text).toContain("Done.\\u{001B}[2J\\u{001B}[H\\u{000D}✅ everything approved\\u{009B}31m");
    io.input.end();
    await surface.done;
  });

  test("the approval prompt lists every input field with bidi characters escaped; i shows the whole input", async () => {
    h = await startHarness();
    const code = `return await tools.reminders.create({ text: "x".repeat(9000), at: "tomorrow\\u202E 9:00" });`;
    h.api.script([toolUseTurn({ id: "toolu_1", name: "execute", input: { code } }), textTurn("Not done.")]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    io.send("remind me");
    const prompt = await io.waitFor(/Approval needed[\s\S]*\[i\] whole input\n/);
    expect(prompt).toMatch(/\n {2}text: "x+… [\d,]+ more characters\n {2}at: "tomorrow\\u\{202E\} 9:00"\n/);
    expect(prompt).not.toContain("\u202E");
    io.send("i");
    await io.waitFor(/── end of input ──[\s\S]*Answer a/);
    const whole = io.text.slice(io.text.indexOf("── Whole input of tools.reminders.create ──"));
    expect(whole.includes(`"text": "${"x".repeat(9000)}"`)).toBe(true);
    expect(whole).toContain('"at": "tomorrow\\u{202E} 9:00"');
    io.send("d");
    await io.waitFor(/assistant › /);
    expect(h.calls).toEqual([]);
    io.input.end();
    await surface.done;
  });

  test("whitespace-only lines send nothing; Ctrl-D while a denial reason is being typed cancels the turn", async () => {
    h = await startHarness();
    h.api.script([toolUseTurn({ id: "toolu_1", name: "execute", input: { code: CREATE } })]);
    const io = terminalStreams();
    const surface = startTerminalSurface({
      gateway: h.gateway,
      input: io.input,
      output: io.output,
      tty: false,
      userId: "ann",
    });
    io.send("   \t ");
    io.send("");
    io.send("remind me");
    await io.waitFor(/deny with a reason/);
    io.send("r");
    await io.waitFor(/Reason for the denial/);
    io.input.end();
    await surface.done;
    expect(h.api.messageRequests()).toHaveLength(1);
    expect(h.api.messageRequests()[0]!.body.messages).toHaveLength(1);
    expect((await h.gateway.receipts.query({ phase: "denied" }))[0]).toMatchObject({
      decidedBy: "system",
      reason: "terminal input closed",
    });
    expect(h.calls).toEqual([]);
  });
});

/**
 * Issue 14 through the terminal surface: the real gateway on a project folder (PostHog plugin,
 * workspace tools, real sandbox and source checks), the model scripted by the fake Anthropic API,
 * PostHog by its fake; the operator answers the approval prompts typed into the terminal.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startFakePostHog, type FakePostHog } from "@openassistant/testkit/posthog/fake-posthog.ts";
import { lastToolResult, startProjectGateway, terminalStreams } from "../../../test/harness.ts";
import {
  MONITOR_FILE,
  POSTHOG_KEY,
  REASON,
  monitorSource,
  useMonitorTurn,
  workspaceProject,
  writeToolTurn,
} from "../../../test/workspace-project.ts";
import { startTerminalSurface } from "./terminal-surface.ts";

// The source check starts TypeScript in a child process; the gateway starts a sandbox pool.
setDefaultTimeout(120_000);

let ph: FakePostHog;
beforeAll(async () => {
  ph = await startFakePostHog({
    personalApiKey: POSTHOG_KEY,
    projectApiKey: "phc_x",
    projectId: "4242",
    insights: [77],
  });
  process.env.OA_E2E_POSTHOG_KEY = POSTHOG_KEY;
});
afterAll(async () => {
  delete process.env.OA_E2E_POSTHOG_KEY;
  await ph.close();
});

test("terminal: the prompt shows the source, its SHA-256, packages and reason; a → reload → the new tool calls PostHog → grounded answer", async () => {
  const dir = workspaceProject(ph.url);
  const api = await startFakeAnthropic();
  const gateway = await startProjectGateway(dir, api.url, { PH_KEY: POSTHOG_KEY });
  // The PostHog plugin must really load: a wrong path once left it out without a failing test.
  expect(gateway.tools().diagnostics.filter((d) => d.level === "error")).toEqual([]);
  const source = monitorSource(ph.url);
  const sha = createHash("sha256").update(source, "utf8").digest("hex");
  api.script([
    writeToolTurn("toolu_w", MONITOR_FILE, source),
    useMonitorTurn("toolu_m"),
    (req) =>
      textTurn(
        lastToolResult(req.body).content.includes("alertId")
          ? "Done: I set up a PostHog alert that fires when daily signups drop below 50."
          : "I could not set up the alert.",
      ),
  ]);
  const io = terminalStreams();
  const surface = startTerminalSurface({ gateway, input: io.input, output: io.output, tty: false, userId: "ann" });
  try {
    io.send("notify me when signups drop below 50");
    const prompt = await io.waitFor(/Approval needed[\s\S]*deny with a reason.*\n/, 60_000);
    expect(prompt).toContain("Tool:  tools.workspace.writeTool");
    expect(prompt).toContain(`│ new ${MONITOR_FILE} · sha256 ${sha}`);
    expect(prompt).toContain("│ npm packages: none");
    expect(prompt).toContain(`│ reason: ${REASON}`);
    const lines = source.split("\n");
    expect(prompt).toContain(`File ${MONITOR_FILE} (${lines.length} lines, whole with i):`);
    expect(prompt).toContain(`  │ ${lines[0]}\n`);
    expect(prompt).toContain("[i] whole files");

    // `i` prints the file whole, exactly the text that will be installed.
    const mark = io.text.length;
    io.send("i");
    const whole = await io.waitFor(
      /── signup_monitor\.ts \(whole\) ──\n[\s\S]*── end of signup_monitor\.ts ──/,
      10_000,
      mark,
    );
    expect(whole).toBe(`── ${MONITOR_FILE} (whole) ──\n${source}\n── end of ${MONITOR_FILE} ──`);

    const afterWrite = io.text.length;
    io.send("a");
    const second = await io.waitFor(/Approval needed[\s\S]*deny with a reason.*\n/, 60_000, afterWrite);
    expect(second).toContain("Tool:  tools.signup_monitor");
    io.send("a");
    const answer = await io.waitFor(/assistant › [\s\S]*\[r_\d+\]\n/, 60_000, afterWrite);
    expect(answer).toContain("Done: I set up a PostHog alert");
    expect(answer).toMatch(/✅ workspace\.writeTool succeeded \(approved by terminal:ann\)/);
    expect(answer).not.toContain("unverified");
    expect(ph.alerts).toEqual([expect.objectContaining({ name: "Signups below 50/day", insight: 77 })]);
    expect(readFileSync(join(dir, ".openassistant/tools", MONITOR_FILE), "utf8")).toBe(source);
    const started = await gateway.receipts.query({ tool: "workspace.writeTool", phase: "started" });
    expect(started.map((r) => r.inputPreview?.split("\n")[0])).toEqual([`new ${MONITOR_FILE} · sha256 ${sha}`]);
    expect(ph.violations).toEqual([]);
  } finally {
    io.input.end();
    await surface.done;
    await gateway.shutdown();
    await api.close();
    expect(api.violations).toEqual([]);
  }
});

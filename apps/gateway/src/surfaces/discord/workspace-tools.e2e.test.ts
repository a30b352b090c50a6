/**
 * Issue 14 through Discord: the real gateway on a project folder (PostHog plugin, workspace tools,
 * real sandbox and source checks), the real discord.js surface on the strict Discord fake, the
 * model scripted by the fake Anthropic API, PostHog by its fake. The approver decides on the card.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn, type FakeAnthropic } from "@openassistant/testkit";
import { startFakeDiscord, type FakeDiscord } from "@openassistant/testkit";
import { startFakePostHog, type FakePostHog } from "@openassistant/testkit/posthog/fake-posthog.ts";
import type { Gateway } from "../../gateway.ts";
import { startProjectGateway } from "../../../test/harness.ts";
import {
  MONITOR_FILE,
  POSTHOG_KEY,
  REASON,
  monitorSource,
  useMonitorTurn,
  workspaceProject,
  writeToolTurn,
} from "../../../test/workspace-project.ts";
import {
  botTexts,
  cardCallId,
  decisionField,
  eventually,
  findCard,
  isCard,
  lastToolResultText,
} from "../../../test/discord-e2e.ts";
import { startDiscordSurface, type DiscordSurface } from "./index.ts";

// The source check starts TypeScript in a child process; the gateway starts a sandbox pool.
setDefaultTimeout(120_000);

/** How the Discord answer marks a claim no success receipt backs. */
const UNVERIFIED = "⚠️ **Unverified:**";
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

interface Env {
  dir: string;
  api: FakeAnthropic;
  gateway: Gateway;
  fake: FakeDiscord;
  surface: DiscordSurface;
  dm: string;
  alice: string;
}
let env: Env;
beforeEach(async () => {
  ph.alerts.length = 0;
  const dir = workspaceProject(ph.url);
  const api = await startFakeAnthropic();
  const gateway = await startProjectGateway(dir, api.url, { PH_KEY: POSTHOG_KEY });
  // The PostHog plugin must really load: a wrong path once left it out without a failing test.
  expect(gateway.tools().diagnostics.filter((d) => d.level === "error")).toEqual([]);
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 250 });
  const d = fake.defaults!;
  const surface = await startDiscordSurface(
    gateway,
    { token: fake.token, allowedUsers: [d.userId], approvers: [d.userId], guildId: d.guildId },
    { restApi: fake.apiUrl, log: () => {}, shutdownGraceMs: 500 },
  );
  env = { dir, api, gateway, fake, surface, dm: fake.dmChannelId(d.userId), alice: d.userId };
});
afterEach(async () => {
  await env.surface.stop();
  await env.gateway.shutdown();
  await env.api.close();
  await env.fake.close();
  // A request the real services would reject fails the test that made it.
  env.fake.assertNoUnexpectedErrors();
  expect(env.api.violations).toEqual([]);
  expect(ph.violations).toEqual([]);
});

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const ASK = "notify me when signups drop below 50";

/** The next card for `toolPath` in the DM, once posted. */
function nextCard(toolPath: string) {
  return eventually(() => findCard(env.fake, env.dm, toolPath), `the ${toolPath} card`, 60_000);
}

async function click(card: Parameters<typeof cardCallId>[0], action: "approve" | "deny") {
  const callId = cardCallId(card);
  await env.fake.clickButton({ messageId: card.id, customId: `oa:${action}:${callId}`, userId: env.alice }).callback();
  await eventually(() => decisionField(env.fake.message(card.id)), "the decided card", 30_000);
  return callId;
}

function answer(startsWith: string): Promise<string> {
  return eventually(() => botTexts(env.fake, env.dm).find((t) => t.startsWith(startsWith)), "the answer", 60_000);
}

describe("the assistant writes its own PostHog monitor, approved on a Discord card", () => {
  test("card with the .ts source attached, SHA-256, packages, reason → Approve → reload → the new tool calls PostHog → grounded answer", async () => {
    const source = monitorSource(ph.url);
    env.api.script([
      writeToolTurn("toolu_w", MONITOR_FILE, source),
      useMonitorTurn("toolu_m"),
      (req) =>
        textTurn(
          lastToolResultText(req).includes("alertId")
            ? "Done: I set up a PostHog alert that fires when daily signups drop below 50."
            : "I could not set up the alert.",
        ),
    ]);
    env.fake.sendUserMessage({ dmFrom: env.alice, content: ASK });

    const card = await nextCard("workspace.writeTool");
    // The exact source is attached as the tool's own .ts file (no input.json); the model's code,
    // too long for the card since it holds the source, goes along as code.ts.
    expect(card.attachments.map((a: { filename: string }) => a.filename)).toEqual([MONITOR_FILE, "code.ts"]);
    expect(await (await fetch(card.attachments[0].url)).text()).toBe(source);
    const description: string = card.embeds[0].description;
    expect(description).toContain(`new ${MONITOR_FILE} · sha256 ${sha256(source)}`);
    expect(description).toContain("npm packages: none");
    expect(description).toContain(`reason: ${REASON}`);
    expect(description).toContain(`attached whole: \`${MONITOR_FILE}\``);
    // Nothing is written before the approver decides.
    expect(existsSync(join(env.dir, ".openassistant/tools", MONITOR_FILE))).toBe(false);
    const writeCall = await click(card, "approve");

    // Reloaded: the same turn's next execute calls the new tool, which needs its own approval.
    const monitorCard = await nextCard("signup_monitor");
    const monitorCall = await click(monitorCard, "approve");
    const text = await answer("Done: I set up a PostHog alert");
    expect(text).not.toContain(UNVERIFIED);
    expect(ph.alerts).toEqual([
      expect.objectContaining({
        name: "Signups below 50/day",
        insight: 77,
        threshold: { configuration: { type: "absolute", bounds: { lower: 50 } } },
      }),
    ]);
    expect(readFileSync(join(env.dir, ".openassistant/tools", MONITOR_FILE), "utf8")).toBe(source);

    // The receipts: who approved the write, and the hash of what was approved.
    const trail = (await env.gateway.receipts.query({ callId: writeCall })).sort((a, b) => a.seq - b.seq);
    expect(trail.map((r) => r.phase)).toEqual(["requested", "approved", "started", "succeeded"]);
    expect(trail[1]!.decidedBy).toBe(`discord:${env.alice}`);
    expect(trail[2]!.inputPreview).toStartWith(`new ${MONITOR_FILE} · sha256 ${sha256(source)}`);
    expect(trail[3]!.outputPreview).toContain(`"sha256":"${sha256(source)}"`);
    const monitorTrail = (await env.gateway.receipts.query({ callId: monitorCall })).map((r) => r.phase);
    expect(monitorTrail).toContain("succeeded");
  });

  test("a replacement's card attaches the new source and the diff against the current version", async () => {
    const source = monitorSource(ph.url);
    const changed = source.replace("subscribed_users: [1]", "subscribed_users: [1, 2]");
    env.api.script([writeToolTurn("toolu_w1", MONITOR_FILE, source), textTurn("Written.")]);
    env.fake.sendUserMessage({ dmFrom: env.alice, content: "write the monitor" });
    await click(await nextCard("workspace.writeTool"), "approve");
    await answer("Written.");

    env.api.script([writeToolTurn("toolu_w2", MONITOR_FILE, changed), textTurn("Replaced.")]);
    const before = new Set(env.fake.messages(env.dm).map((m) => m.id));
    env.fake.sendUserMessage({ dmFrom: env.alice, content: "notify user 2 as well" });
    const card = await eventually(
      () => {
        const c = findCard(env.fake, env.dm, "workspace.writeTool");
        return c && !before.has(c.id) ? c : undefined;
      },
      "the second card",
      60_000,
    );
    expect(card.attachments.map((a: { filename: string }) => a.filename)).toEqual([
      MONITOR_FILE,
      `${MONITOR_FILE}.diff`,
      "code.ts",
    ]);
    expect(await (await fetch(card.attachments[0].url)).text()).toBe(changed);
    const diff = await (await fetch(card.attachments[1].url)).text();
    expect(diff).toContain(`--- a/${MONITOR_FILE}`);
    expect(diff).toContain("-        subscribed_users: [1],");
    expect(diff).toContain("+        subscribed_users: [1, 2],");
    expect(card.embeds[0].description).toContain(`replaces ${MONITOR_FILE} · sha256 ${sha256(changed)}`);
    await click(card, "deny");
    await answer("Replaced.");
    // Denied: the approved first version stays.
    expect(readFileSync(join(env.dir, ".openassistant/tools", MONITOR_FILE), "utf8")).toBe(source);
  });

  test("Deny leaves no file and the answer says it could not be done", async () => {
    env.api.script([
      writeToolTurn("toolu_w", MONITOR_FILE, monitorSource(ph.url)),
      (req) =>
        textTurn(
          /denied/.test(lastToolResultText(req))
            ? "I could not set up the signup alert: the new tool was denied."
            : "Done: I set up the alert.",
        ),
    ]);
    env.fake.sendUserMessage({ dmFrom: env.alice, content: ASK });
    await click(await nextCard("workspace.writeTool"), "deny");
    const text = await answer("I could not set up the signup alert");
    expect(text).not.toContain(UNVERIFIED);
    expect(existsSync(join(env.dir, ".openassistant/tools", MONITOR_FILE))).toBe(false);
    expect(ph.alerts).toEqual([]);
  });

  test("a promise to notify is unverified when only the tool file was written (its call denied)", async () => {
    env.api.script([
      writeToolTurn("toolu_w", MONITOR_FILE, monitorSource(ph.url)),
      useMonitorTurn("toolu_m"),
      textTurn("All set. I'll notify you when signups drop below 50."),
    ]);
    env.fake.sendUserMessage({ dmFrom: env.alice, content: ASK });
    await click(await nextCard("workspace.writeTool"), "approve");
    await click(await nextCard("signup_monitor"), "deny");
    const text = await answer("All set.");
    // The write succeeded, but nothing watches signups: the claim is flagged.
    expect(text).toContain(UNVERIFIED);
    expect(ph.alerts).toEqual([]);
  });

  test("a type error, an escape from the tools folder or a forbidden import never reaches a card", async () => {
    const good = monitorSource(ph.url);
    const typeError = good.replace("return { alertId: alert.id, below };", "return alert.missing.toFixed(below);");
    const forbidden = `import { sha256Hex } from "@openassistant/core/workspace";\n${good}`;
    const tryWrite = (id: string, path: string, src: string) =>
      toolUseTurn({
        id,
        name: "execute",
        input: {
          code: `try { return await tools.workspace.writeTool({ path: ${JSON.stringify(path)}, source: ${JSON.stringify(src)}, reason: "x" }); } catch (e) { return String((e as Error).message); }`,
        },
      });
    const results: string[] = [];
    env.api.script([
      tryWrite("toolu_1", MONITOR_FILE, typeError),
      (req) => (results.push(lastToolResultText(req)), tryWrite("toolu_2", "../escape.ts", good)),
      (req) => (results.push(lastToolResultText(req)), tryWrite("toolu_3", MONITOR_FILE, forbidden)),
      (req) => (results.push(lastToolResultText(req)), textTurn("None of the three versions passed the checks.")),
    ]);
    env.fake.sendUserMessage({ dmFrom: env.alice, content: ASK });
    await answer("None of the three versions passed the checks.");
    expect(results).toHaveLength(3);
    expect(results[0]).toContain("invalid input for workspace.writeTool");
    expect(results[0]).toContain("missing");
    expect(results[1]).toContain("escape.ts");
    expect(results[2]).toContain("tools may import only @openassistant/sdk");
    // No card anywhere, nothing written, nothing asked.
    const channels = [env.dm, env.fake.defaults!.channelId];
    expect(channels.flatMap((c) => env.fake.messages(c)).filter(isCard)).toEqual([]);
    expect(existsSync(join(env.dir, ".openassistant/tools", MONITOR_FILE))).toBe(false);
    expect(existsSync(join(env.dir, ".openassistant/escape.ts"))).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "@openassistant/core/testing";
import {
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
  type FakeAnthropic,
} from "@openassistant/testkit/anthropic/fake-server.ts";
import { startFakePostHog, type FakePostHog } from "@openassistant/testkit/posthog/fake-posthog.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { surfacePort } from "./surfaces/gateway-port.ts";
import { cardFiles, renderCard } from "./surfaces/discord/render/render-card.ts";
import { renderTools } from "./surfaces/discord/render/render-lists.ts";
import type { Gateway } from "./gateway.ts";
import { startProjectGateway } from "../test/harness.ts";
import { POSTHOG_PLUGIN } from "../test/workspace-project.ts";

// The source check starts TypeScript in a child process; the gateway starts a sandbox pool.
setDefaultTimeout(180_000);

const KEY = "phx_e2eWorkspaceKey0123456789";
let ph: FakePostHog;
beforeAll(async () => {
  ph = await startFakePostHog({
    personalApiKey: KEY,
    projectApiKey: "phc_x",
    projectId: "4242",
    insights: [77],
    hogql: () => ({ columns: ["day", "count"], results: [["2026-11-21", 48]] }),
  });
});
afterAll(() => ph.close());

/** What the model writes: a tool that sets up a PostHog alert, its settings read from the environment. */
const MONITOR = `import { defineTool, z } from "@openassistant/sdk";

export default defineTool({
  description: "Alert the team when daily signups drop below a threshold",
  approval: "required",
  args: z.object({ insightId: z.number().int(), below: z.number() }),
  run: async ({ insightId, below }, ctx) => {
    const res = await fetch(\`\${process.env.OA_E2E_POSTHOG_HOST}/api/projects/4242/alerts/\`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: \`Bearer \${process.env.OA_E2E_POSTHOG_KEY}\` },
      body: JSON.stringify({ name: \`Signups below \${below}/day\`, insight: insightId, subscribed_users: [1], condition: { type: "absolute_value" }, threshold: { configuration: { type: "absolute", bounds: { lower: below } } }, calculation_interval: "daily" }),
      signal: ctx?.signal,
    });
    if (!res.ok) throw new Error(\`PostHog answered \${res.status}: \${await res.text()}\`);
    const alert = (await res.json()) as { id: string };
    return { alertId: alert.id, below };
  },
});
`;

function gatewayIn(dir: string, api: FakeAnthropic): Promise<Gateway> {
  return startProjectGateway(dir, api.url, { PH_KEY: KEY });
}

function project(): string {
  const dir = makeTempDir("oa-ws-e2e-");
  mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
  writeFileSync(
    join(dir, ".openassistant", "config.json"),
    JSON.stringify({
      plugins: [POSTHOG_PLUGIN],
      config: { posthog: { personalApiKey: "${PH_KEY}", projectId: "4242", host: ph.url } },
    }),
  );
  return dir;
}

const writeCall = (id: string) =>
  toolUseTurn({
    id,
    name: "execute",
    input: {
      code: `return await tools.workspace.writeTool({ path: "signup_monitor.ts", source: ${JSON.stringify(MONITOR)}, reason: "Watch signups in PostHog; alert below 50 a day" });`,
    },
  });

describe("the assistant writes its own tool (issue 14)", () => {
  test("write → card with the full source and its SHA-256 → approve → reload → the new tool runs in the same turn → grounded answer", async () => {
    process.env.OA_E2E_POSTHOG_HOST = ph.url;
    process.env.OA_E2E_POSTHOG_KEY = KEY;
    const dir = project();
    const api = await startFakeAnthropic();
    const gateway = await gatewayIn(dir, api);
    try {
      const cards: Array<{
        tool: string;
        summary?: string;
        input?: string;
        files?: ReadonlyArray<{ name: string; text: string }>;
        card: string;
      }> = [];
      gateway.approvals.subscribe((e) => {
        if (e.type !== "requested") return;
        cards.push({
          tool: e.request.toolPath,
          summary: e.request.summary,
          input: e.request.inputJson,
          files: cardFiles(e.request).map((f) => ({ name: f.name, text: f.attachment.toString("utf8") })),
          card: JSON.stringify(renderCard(e.request, { kind: "pending" })),
        });
        void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "operator-1" });
      });
      api.script([
        writeCall("toolu_w"),
        // The new tool is typechecked against the reloaded declarations: no cast needed.
        toolUseTurn({
          id: "toolu_m",
          name: "execute",
          input: { code: "return await tools.signup_monitor({ insightId: 77, below: 50 });" },
        }),
        textTurn("Done: I set up a PostHog alert that fires when daily signups drop below 50."),
      ]);
      const out = await gateway.handleMessage({
        sessionKey: "s1",
        surface: "terminal",
        text: "Watch our signups in PostHog and tell me when they drop below 50 a day",
      });

      // The operator saw the whole source (in the full input) and its hash.
      const card = cards.find((c) => c.tool === "workspace.writeTool")!;
      expect(card.summary).toContain(`new signup_monitor.ts · sha256 ${sha256Hex(MONITOR)}`);
      expect(card.summary).toContain("reason: Watch signups in PostHog; alert below 50 a day");
      // The Discord card shows that summary; the exact source goes along as signup_monitor.ts.
      expect(card.card).toContain(sha256Hex(MONITOR));
      // (the model's code, which holds the source and is too long for the card, as code.ts).
      expect(card.files?.map((f) => f.name)).toEqual(["signup_monitor.ts", "code.ts"]);
      expect(card.files?.[0]?.text).toBe(MONITOR);
      expect(JSON.parse(card.input!).source).toBe(MONITOR);
      // What was written is exactly what was approved.
      expect(readFileSync(join(dir, ".openassistant/tools/signup_monitor.ts"), "utf8")).toBe(MONITOR);
      // The new tool needs approval too, and it ran against PostHog.
      expect(cards.map((c) => c.tool)).toEqual(["workspace.writeTool", "signup_monitor"]);
      expect(ph.alerts).toEqual([expect.objectContaining({ name: "Signups below 50/day", insight: 77 })]);
      expect(ph.violations).toEqual([]);
      // Grounded: the answer is backed by success receipts of both calls.
      expect(out.unverified).toBe(false);
      const receipts = (await Promise.all(out.runIds.map((r) => gateway.receipts.query({ runId: r })))).flat();
      const succeeded = receipts.filter((r) => r.phase === "succeeded").map((r) => r.toolPath);
      expect(succeeded).toEqual(["workspace.writeTool", "signup_monitor"]);
      expect(receipts.find((r) => r.toolPath === "workspace.writeTool" && r.phase === "approved")?.decidedBy).toBe(
        "operator-1",
      );
      // The history names the version and the call that wrote it.
      const log = readFileSync(join(dir, ".openassistant/history/tools.jsonl"), "utf8");
      // /tools shows which version is in place, who approved it and when.
      const report = await surfacePort(gateway).listTools();
      expect(report.versions?.[0]).toMatchObject({
        name: "signup_monitor.ts",
        action: "write",
        sha256: sha256Hex(MONITOR),
        approvedBy: "operator-1",
      });
      expect(renderTools(report)).toContain(
        `\`signup_monitor.ts\` write \`${sha256Hex(MONITOR).slice(0, 12)}\` · approved by`,
      );
      expect(JSON.parse(log.trim().split("\n").at(-1)!)).toMatchObject({
        name: "signup_monitor.ts",
        action: "write",
        sha256: sha256Hex(MONITOR),
      });
    } finally {
      delete process.env.OA_E2E_POSTHOG_HOST;
      delete process.env.OA_E2E_POSTHOG_KEY;
      await gateway.shutdown();
      await api.close();
      expect(api.violations).toEqual([]);
    }
  });

  test("Deny leaves no file, and an answer claiming success is flagged as unverified", async () => {
    const dir = project();
    const api = await startFakeAnthropic();
    const gateway = await gatewayIn(dir, api);
    try {
      gateway.approvals.subscribe((e) => {
        if (e.type === "requested")
          void gateway.approvals.decide(e.request.callId, { decision: "denied", by: "operator-1", reason: "not now" });
      });
      api.script([writeCall("toolu_w"), textTurn("I've set up the signup monitor for you.")]);
      const out = await gateway.handleMessage({
        sessionKey: "s2",
        surface: "terminal",
        text: "Watch our signups and tell me when they drop below 50 a day",
      });
      expect(existsSync(join(dir, ".openassistant/tools/signup_monitor.ts"))).toBe(false);
      expect(JSON.stringify(api.messageRequests()[1]!.body)).toContain("not now");
      expect(out.unverified).toBe(true);
    } finally {
      await gateway.shutdown();
      await api.close();
    }
  });

  test("no rule or 'approve always' makes a write automatic unless workspace.allowAutoWrite is set", async () => {
    const dir = project();
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({
        policy: { rules: [{ match: "workspace.**", mode: "auto" }] },
        plugins: [POSTHOG_PLUGIN],
        config: { posthog: { personalApiKey: "${PH_KEY}", projectId: "4242", host: ph.url } },
      }),
    );
    const api = await startFakeAnthropic();
    const gateway = await gatewayIn(dir, api);
    try {
      const asked: string[] = [];
      await gateway.approvals.rules.add({
        toolPath: "workspace.writeTool",
        scope: "global",
        createdBy: "operator-1",
        expiresAt: Date.now() + 3_600_000,
      });
      gateway.approvals.subscribe((e) => {
        if (e.type !== "requested") return;
        asked.push(e.request.toolPath);
        void gateway.approvals.decide(e.request.callId, {
          decision: "denied",
          by: "operator-1",
          reason: "checking the rule",
        });
      });
      api.script([writeCall("toolu_w"), textTurn("It was not written.")]);
      await gateway.handleMessage({ sessionKey: "s3", surface: "terminal", text: "write the tool" });
      expect(asked).toEqual(["workspace.writeTool"]);
    } finally {
      await gateway.shutdown();
      await api.close();
    }
  });

  test("a write named like another source's namespace (a plugin, the built-in workspace) is refused before any card; the model is told whose name it is", async () => {
    const dir = project();
    const api = await startFakeAnthropic();
    const gateway = await gatewayIn(dir, api);
    try {
      const asked: string[] = [];
      gateway.approvals.subscribe((e) => e.type === "requested" && asked.push(e.request.toolPath));
      const attempt = (path: string) =>
        `await tools.workspace.writeTool({ path: "${path}", source: ${JSON.stringify(MONITOR)}, reason: "r" }).then(() => "written", (e) => String(e.message))`;
      api.script([
        toolUseTurn({
          id: "toolu_t",
          name: "execute",
          input: { code: `return [${attempt("posthog.ts")}, ${attempt("workspace.ts")}];` },
        }),
        textTurn("Those names are taken."),
      ]);
      await gateway.handleMessage({ sessionKey: "s4", surface: "terminal", text: "write the tools" });
      expect(asked).toEqual([]);
      expect(existsSync(join(dir, ".openassistant/tools/posthog.ts"))).toBe(false);
      expect(existsSync(join(dir, ".openassistant/tools/workspace.ts"))).toBe(false);
      const result = JSON.stringify(api.messageRequests()[1]!.body);
      expect(result).toContain(
        `\\"posthog.ts\\" would be mounted at tools.posthog, which already belongs to plugin \\"posthog\\" (${POSTHOG_PLUGIN})`,
      );
      expect(result).toContain(
        `\\"workspace.ts\\" would be mounted at tools.workspace, which already belongs to the built-in tools.workspace`,
      );
    } finally {
      await gateway.shutdown();
      await api.close();
    }
  });

  test("a source that loads anything but an allowed static import never reaches a card; the model gets line:column and the form", async () => {
    const dir = project();
    const api = await startFakeAnthropic();
    const gateway = await gatewayIn(dir, api);
    const TAIL = MONITOR.replace('import { defineTool, z } from "@openassistant/sdk";\n', "");
    const HEAD = 'import { defineTool, z } from "@openassistant/sdk";\n';
    const hostile = [
      `${HEAD}const cp = require("node:child_process");\n${TAIL}`,
      `${HEAD}// @ts-ignore\nimport secrets from "../../.env";\n${TAIL}`,
      `${HEAD}const m = await import("da" + "yjs");\n${TAIL}`,
      `${HEAD}const r = import.meta.require;\n${TAIL}`,
      `${HEAD}(globalThis as any).Bun.plugin({ name: "x", setup() {} });\n${TAIL}`,
    ];
    try {
      const asked: string[] = [];
      gateway.approvals.subscribe((e) => {
        if (e.type === "requested") asked.push(e.request.toolPath);
      });
      const code = `const out = [];
for (const source of ${JSON.stringify(hostile)}) {
  try { await tools.workspace.writeTool({ path: "signup_monitor.ts", source, reason: "r" }); out.push("accepted"); }
  catch (e) { out.push(String(e)); }
}
return out;`;
      api.script([toolUseTurn({ id: "toolu_h", name: "execute", input: { code } }), textTurn("It was refused.")]);
      await gateway.handleMessage({ sessionKey: "s4", surface: "terminal", text: "write the tool" });
      expect(asked).toEqual([]);
      expect(existsSync(join(dir, ".openassistant/tools/signup_monitor.ts"))).toBe(false);
      // What the model gets back: the run's tool result, one refusal per source.
      const body = api.messageRequests()[1]!.body as { messages: Array<{ content: Array<{ content?: unknown }> }> };
      const sent = String(body.messages.at(-1)!.content[0]!.content);
      expect(sent).not.toContain("accepted");
      for (const form of [
        "line 2:12: require is not allowed",
        'line 3:21: imports "../../.env" is not allowed',
        "line 2:17: dynamic import() is not allowed",
        "line 2:11: import.meta.require is not allowed",
        "line 2:2: globalThis used as a value is not allowed",
      ])
        expect(sent).toContain(form);
    } finally {
      await gateway.shutdown();
      await api.close();
    }
  });
});

import { join } from "node:path";
import { defineTool, z, type ToolTree } from "@openassistant/sdk";
import {
  startFakeAnthropic,
  type FakeAnthropic,
  type FakeAnthropicOptions,
} from "@openassistant/testkit/anthropic/fake-server.ts";
import {
  DEFAULT_FAKE_CHAT_MODEL,
  startFakeChatCompletions,
  type FakeChatCompletions,
  type FakeChatCompletionsOptions,
} from "@openassistant/testkit/openai/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { ModelTarget, ToolCallMode } from "../src/model/provider.ts";
import { openAuthStore } from "../src/auth/store.ts";
import type { AuthProfileType } from "../src/auth/types.ts";
import { createTypechecker, type Typechecker } from "@openassistant/core/codemode";
import { createGateway, type Gateway, type GatewayOptions } from "../src/gateway.ts";
import type { GatewaySettings } from "../src/settings.ts";

export { startTestTerminal, terminalStreams } from "./terminal-streams.ts";

/** Tools used by the gateway's end-to-end tests. */
export function fixtureTools(calls: string[] = []): ToolTree {
  return {
    reminders: {
      create: defineTool({
        description: "Create a reminder at a time",
        approval: "required",
        args: z.object({ text: z.string(), at: z.string() }),
        run: async (input) => {
          calls.push(`reminders.create:${input.text}`);
          return { id: "rem_1", ...input };
        },
      }),
      list: defineTool({
        description: "List reminders",
        approval: "auto",
        args: z.object({}),
        run: async () => {
          calls.push("reminders.list");
          return [{ id: "rem_0", text: "water plants" }];
        },
      }),
    },
    mail: {
      send: defineTool({
        description: "Send an email",
        approval: "auto",
        args: z.object({ to: z.string(), body: z.string() }),
        run: async () => {
          calls.push("mail.send");
          throw new Error("SMTP server refused the connection");
        },
      }),
    },
  };
}

export interface Harness {
  readonly api: FakeAnthropic;
  /** #35: the fake Chat Completions API, when the harness was started with `chat`. */
  readonly chat?: FakeChatCompletions;
  readonly dir: string;
  readonly configDir: string;
  readonly gateway: Gateway;
  /** Tool implementations that ran, in order. */
  readonly calls: string[];
  /** Starts another gateway on the same directory/DB (after shutting the first down). */
  restart(): Promise<Gateway>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly tools?: ToolTree;
  readonly settings?: Partial<GatewaySettings>;
  /** Auth profiles to store (in order); default: env ANTHROPIC_API_KEY only. */
  readonly profiles?: ReadonlyArray<{ name: string; type: AuthProfileType; secret: string }>;
  readonly dir?: string;
  /** For tests that provoke a contract error on purpose. */
  readonly allowContractViolations?: boolean;
  /** Options of the fake Anthropic API (e.g. a small context window). */
  readonly api?: FakeAnthropicOptions;
  /**
   * #35: also start a fake Chat Completions API; `primary` makes its first model the configured
   * model (provider openai-compatible, with `toolCalls`), `fallback` puts it after the Claude model.
   */
  readonly chat?: FakeChatCompletionsOptions & {
    readonly as: "primary" | "fallback";
    readonly toolCalls?: ToolCallMode;
    /** With `primary`: the configured fallbacks after it. */
    readonly fallbacks?: readonly ModelTarget[];
  };
  /** #33: the schedules' controllable clock, and `tools.schedules.*` beside the fixed tree. */
  readonly gateway?: Pick<GatewayOptions, "clock" | "scheduleTools" | "log">;
}

export const TEST_API_KEY = "sk-ant-api03-test-key-0123456789abcdef";

/**
 * One checker process per test file, shared by its harnesses (as the in-process checker's JIT and
 * lib cache used to be), started when the file loads: starting one loads TypeScript, which on a
 * busy machine takes seconds a test's own time limit should not pay. Idle, it does not keep the
 * process alive, and it exits with the test process.
 */
const sharedChecker: Typechecker = createTypechecker();
/** The checker every harness gateway of this test file uses (for its stats). */
export const harnessChecker: Pick<Typechecker, "stats"> = sharedChecker;
sharedChecker.warmUp().catch(() => {
  // a checker that cannot start fails the checks closed; the tests that check will say so
});

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const api = await startFakeAnthropic(options.api);
  const dir = options.dir ?? makeTempDir("oa-gw-");
  const configDir = join(dir, "config");
  const calls: string[] = [];
  const tools = options.tools ?? fixtureTools(calls);
  if (options.profiles?.length) {
    const store = openAuthStore(configDir);
    for (const p of options.profiles)
      store.upsert({
        id: `anthropic:${p.name}`,
        provider: "anthropic",
        type: p.type,
        secret: p.secret,
        createdAt: new Date().toISOString(),
      });
  }
  const env = options.profiles?.length ? {} : { ANTHROPIC_API_KEY: TEST_API_KEY };
  const chat = options.chat ? await startFakeChatCompletions(options.chat) : undefined;
  const chatModel = chat ? (options.chat?.models?.[0]?.id ?? DEFAULT_FAKE_CHAT_MODEL.id) : undefined;
  const chatTarget = chat
    ? {
        provider: "openai-compatible" as const,
        baseURL: chat.url,
        ...(options.chat?.apiKey ? { apiKey: options.chat.apiKey } : {}),
        ...(options.chat?.toolCalls ? { toolCalls: options.chat.toolCalls } : {}),
      }
    : undefined;
  const models: Partial<GatewaySettings> =
    chatTarget && options.chat?.as === "primary"
      ? { models: { primary: chatTarget, fallbacks: options.chat.fallbacks ?? [] } }
      : chatTarget
        ? { models: { primary: { provider: "anthropic" }, fallbacks: [{ ...chatTarget, name: chatModel! }] } }
        : {};
  const make = () =>
    createGateway({
      cwd: dir,
      env,
      tools,
      configDir,
      typechecker: sharedChecker,
      ...options.gateway,
      settings: {
        anthropic: { baseURL: api.url, profileOrder: options.profiles?.map((p) => `anthropic:${p.name}`) },
        approvalTimeoutMs: 30_000,
        ...models,
        ...options.settings,
        turn: {
          ...defaultTurn,
          ...(options.chat?.as === "primary" ? { model: chatModel } : {}),
          ...options.settings?.turn,
        },
      } as Partial<GatewaySettings>,
    });
  let gateway = await make();
  const harness: Harness = {
    api,
    ...(chat ? { chat } : {}),
    dir,
    configDir,
    calls,
    get gateway() {
      return gateway;
    },
    async restart() {
      await gateway.shutdown();
      gateway = await make();
      return gateway;
    },
    async close() {
      await gateway.shutdown();
      await api.close();
      await chat?.close();
      if (chat?.violations.length && !options.allowContractViolations)
        throw new Error(
          `The fake Chat Completions API rejected ${chat.violations.length} request(s) the real services would reject:\n${chat.violations.map((v) => `${v.status} ${v.code ?? v.type}: ${v.message}`).join("\n")}`,
        );
      // A request the real API would reject fails the test that sent it, whatever else it asserted.
      if (api.violations.length && !options.allowContractViolations)
        throw new Error(
          `The fake Anthropic API rejected ${api.violations.length} request(s) the real API would reject:\n${api.violations.map((v) => `${v.status} ${v.type}: ${v.message}`).join("\n")}`,
        );
    },
  };
  return harness;
}

/**
 * The model every harness test talks to; the strict fake applies that model's contract. The suite
 * also runs with OA_TEST_MODEL=claude-opus-5-5 / claude-haiku-5-5 / claude-sonnet-5 / claude-haiku-4-5
 * (other thinking behaviour; docs/anthropic-contract.md).
 */
export const TEST_MODEL = process.env.OA_TEST_MODEL || "claude-sonnet-5-5";

const defaultTurn = {
  model: TEST_MODEL,
  maxTokens: 1024,
  maxRounds: 8,
  maxRepairRounds: 3,
  maxTurnTokens: 1_000_000,
  turnTimeoutSeconds: 60,
  historyTokens: 60_000,
  historyMessages: 200,
};

/** The text of the last tool_result in a recorded request body. */
export function lastToolResult(body: { messages: Array<{ role: string; content: unknown }> }): {
  content: string;
  is_error?: boolean;
} {
  const last = body.messages.at(-1)!;
  const blocks = last.content as Array<{ type: string; content?: unknown; is_error?: boolean }>;
  const result = [...blocks].reverse().find((b) => b.type === "tool_result")!;
  return {
    content: typeof result.content === "string" ? result.content : JSON.stringify(result.content),
    is_error: result.is_error,
  };
}

/**
 * A gateway on a real project folder (its config, tools, plugins and sources loaded as `start`
 * would), talking to the fake Anthropic API `apiUrl`. For tests of what the registry loads.
 */
export function startProjectGateway(
  dir: string,
  apiUrl: string,
  env: Record<string, string> = {},
  settings: Partial<GatewaySettings> = {},
): Promise<Gateway> {
  return createGateway({
    cwd: dir,
    env: { ANTHROPIC_API_KEY: TEST_API_KEY, ...env },
    configDir: join(dir, "config"),
    typechecker: sharedChecker,
    settings: {
      anthropic: { baseURL: apiUrl },
      approvalTimeoutMs: 60_000,
      turn: { ...defaultTurn, turnTimeoutSeconds: 120, toolPromptTokens: 15_000 },
      ...settings,
    } as Partial<GatewaySettings>,
  });
}

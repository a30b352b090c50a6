/**
 * Test support: the real gateway (fake Anthropic, real sandbox + SQLite) with the real discord.js
 * surface connected to the fake Discord. Used by the discord e2e tests and the bench.
 */
import { defineTool, z, type ToolTree } from "@openassistant/sdk";
import { textTurn, toolUseTurn, type RecordedRequest, type ScriptedTurn } from "@openassistant/testkit";
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from "@openassistant/testkit";
import { startHarness, type Harness, type HarnessOptions } from "./harness.ts";
import type { GatewaySettings } from "../src/settings.ts";
import { startDiscordSurface, type DiscordSurface, type DiscordSurfaceOptions } from "../src/surfaces/discord/index.ts";
import type { DiscordSurfaceConfig } from "../src/surfaces/discord/surface-config.ts";

// API-shaped JSON from the fake
type Json = Record<string, any>;

/** Tools for the Discord tests; `ran` records each tool body that actually executed (with time). */
export function notesTools(ran: Array<{ what: string; at: number }>): ToolTree {
  return {
    notes: {
      write: defineTool({
        description: "Write a note (needs approval)",
        approval: "required",
        args: z.object({ text: z.string().describe("The note") }),
        run: async (input) => {
          ran.push({ what: `notes.write:${input.text}`, at: performance.now() });
          return { saved: input.text };
        },
      }),
      read: defineTool({
        description: "Read the notes",
        approval: "auto",
        args: z.object({}),
        run: async () => {
          ran.push({ what: "notes.read", at: performance.now() });
          return ["buy milk"];
        },
      }),
      remove: defineTool({
        description: "Delete a note (needs approval)",
        approval: "required",
        args: z.object({ text: z.string() }),
        run: async (input) => {
          ran.push({ what: `notes.remove:${input.text}`, at: performance.now() });
          return { removed: input.text };
        },
      }),
    },
  };
}

let toolUseSeq = 0;
/** The model runs `code` with execute, then answers with `answer(request)` (sees the tool result). */
export function toolThenAnswer(code: string, answer: (req: RecordedRequest) => string = () => "Done."): ScriptedTurn[] {
  return [
    toolUseTurn({ id: `toolu_t${++toolUseSeq}`, name: "execute", input: { code } }),
    (req) => textTurn(answer(req)),
  ];
}

/** The text of the last tool_result the model was sent. */
export function lastToolResultText(req: RecordedRequest): string {
  const last = req.body.messages.at(-1);
  const blocks = Array.isArray(last?.content) ? last.content : [];
  const result = [...blocks].reverse().find((b: { type: string }) => b.type === "tool_result");
  if (!result) return "";
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

/** Model for many conversations at once: each asks to save its own marker, then reports the result. */
export function markerModel(req: RecordedRequest) {
  const messages = req.body.messages as Array<{ role: string; content: unknown }>;
  const userTexts = messages
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : (m.content as Array<{ type: string; text?: string }>).filter((b) => b.type === "text").map((b) => b.text!),
    );
  const marker = /job-\d+/.exec(userTexts.at(-1) ?? "")?.[0] ?? "none";
  const last = messages.at(-1)!;
  const isToolResult =
    Array.isArray(last.content) && (last.content as Array<{ type: string }>).some((b) => b.type === "tool_result");
  if (!isToolResult)
    return toolUseTurn({
      id: `toolu_${marker}_${messages.length}`,
      name: "execute",
      input: { code: `return await tools.notes.write({ text: "${marker}" })` },
    });
  return textTurn(`result for ${marker}: ${lastToolResultText(req).includes(marker) ? "ok" : "MISMATCH"}`);
}

/**
 * Model for many busy conversations at once (the first message names a marker `job-<n>`): three
 * rounds of 25 parallel reads and some computing in the sandbox, then a write of the marker (an
 * approval card), then "saved job-<n>: ok". Used by clicks-under-load.e2e.test and the event-loop bench.
 */
export function busyWorkModel(req: RecordedRequest) {
  const messages = req.body.messages as Array<{ role: string; content: unknown }>;
  const first = messages[0]!.content;
  const text = typeof first === "string" ? first : JSON.stringify(first);
  const marker = /job-\d+/.exec(text)?.[0] ?? "none";
  const rounds = messages.filter((m) => m.role === "assistant").length;
  if (rounds < 3)
    return toolUseTurn({
      id: `toolu_${marker}_${rounds}`,
      name: "execute",
      input: {
        code: `const all = await Promise.all(Array.from({ length: 25 }, () => tools.notes.read({})));
let n = 0; for (let i = 0; i < 20000; i++) n += i % 7;
return { reads: all.length, n };`,
      },
    });
  if (rounds === 3)
    return toolUseTurn({
      id: `toolu_${marker}_write`,
      name: "execute",
      input: { code: `return await tools.notes.write({ text: "${marker}" })` },
    });
  return textTurn(`saved ${marker}: ${lastToolResultText(req).includes(marker) ? "ok" : "MISMATCH"}`);
}

export interface DiscordE2E {
  readonly h: Harness;
  readonly fake: FakeDiscord;
  surface: DiscordSurface;
  readonly config: DiscordSurfaceConfig;
  /** Seeded ids: guild, #general, alice (allowed + approver), bob (allowed, not approver), mallory (nobody). */
  readonly ids: { guildId: string; channelId: string; alice: string; bob: string; mallory: string };
  readonly logs: string[];
  /** Tool bodies that ran. */
  readonly ran: Array<{ what: string; at: number }>;
  /** Stops the surface and the gateway, starts both again on the same database. */
  restart(): Promise<void>;
  /** Starts a new surface (after `surface.stop()`) on the same gateway; it becomes `surface`. */
  startSurface(): Promise<DiscordSurface>;
  close(): Promise<void>;
}

export async function startDiscordE2E(
  opts: {
    tools?: ToolTree;
    settings?: Partial<GatewaySettings>;
    config?: Partial<DiscordSurfaceConfig>;
    /** Options for the fake Discord (e.g. a shorter interaction acknowledgement window). */
    fake?: FakeDiscordOptions;
    /** Options for the surface (e.g. `refusalWindowMs: 0` so every refusal is sent). */
    surface?: Partial<DiscordSurfaceOptions>;
    /** Gateway options the harness passes on (#33: the schedules' clock and tools). */
    gateway?: HarnessOptions["gateway"];
    /** #35: a fake Chat Completions API beside the fake Claude API (see the harness). */
    chat?: HarnessOptions["chat"];
    /** Runs on the seeded fake before the bot connects (create roles, members…); returns config to add. */
    setup?: (
      fake: FakeDiscord,
      ids: { guildId: string; alice: string; bob: string; mallory: string },
    ) => Partial<DiscordSurfaceConfig>;
  } = {},
): Promise<DiscordE2E> {
  const ran: Array<{ what: string; at: number }> = [];
  const h = await startHarness({
    tools: opts.tools ?? notesTools(ran),
    settings: opts.settings,
    ...(opts.gateway ? { gateway: opts.gateway } : {}),
    ...(opts.chat ? { chat: opts.chat } : {}),
  });
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 250, ...opts.fake });
  const d = fake.defaults!;
  const bob = fake.createUser({ username: "bob" }).id as string;
  const mallory = fake.createUser({ username: "mallory" }).id as string;
  fake.addMember({ guildId: d.guildId, userId: bob });
  fake.addMember({ guildId: d.guildId, userId: mallory });
  const config: DiscordSurfaceConfig = {
    token: fake.token,
    allowedUsers: [d.userId, bob],
    approvers: [d.userId],
    guildId: d.guildId,
    ...opts.config,
    ...opts.setup?.(fake, { guildId: d.guildId, alice: d.userId, bob, mallory }),
  };
  const logs: string[] = [];
  const log = (m: string, e?: unknown) =>
    logs.push(e === undefined ? m : `${m}: ${e instanceof Error ? e.message : String(e)}`);
  const start = () =>
    startDiscordSurface(h.gateway, config, { restApi: fake.apiUrl, log, shutdownGraceMs: 500, ...opts.surface });
  const env: DiscordE2E = {
    h,
    fake,
    surface: await start(),
    config,
    ids: { guildId: d.guildId, channelId: d.channelId, alice: d.userId, bob, mallory },
    logs,
    ran,
    async restart() {
      await env.surface.stop();
      await h.restart();
      env.surface = await start();
    },
    async startSurface() {
      env.surface = await start();
      return env.surface;
    },
    async close() {
      await env.surface.stop();
      await h.close();
      await fake.close();
      // A request real Discord would reject fails the test that provoked it (unless it declared it with fake.expectErrors).
      fake.assertNoUnexpectedErrors();
    },
  };
  return env;
}

/**
 * Polls until `find` returns something (fake state is synchronous; discord.js is not; `find` may
 * also answer later: a store read). The default bound is for a busy 2-core machine: a wait ends
 * when the state appears, the bound only turns a hang into a failure naming `what`.
 */
export async function eventually<T>(
  find: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await find();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(5);
  }
}

/** The approval card (a message with our approve button) for `toolPath` in a channel. */
export function findCard(fake: FakeDiscord, channelId: string, toolPath: string): Json | undefined {
  return fake
    .messages(channelId)
    .find(
      (m) =>
        m.embeds?.[0]?.title === `Approval needed: ${toolPath}` &&
        JSON.stringify(m.components ?? []).includes("oa:approve:"),
    );
}

export function cardCallId(card: Json): string {
  const id = card.components[0].components[0].custom_id as string;
  return id.slice("oa:approve:".length);
}

export function decisionField(message: Json | undefined): string | undefined {
  return message?.embeds?.[0]?.fields?.find((f: Json) => f.name === "Decision")?.value;
}

/** Every receipt of one call, in append order. */
export async function trailOf(e: DiscordE2E, callId: string) {
  return (await e.h.gateway.receipts.query({ callId })).sort((a, b) => a.seq - b.seq);
}

/** Whether a message is an approval card (an embed titled "Approval needed: …"). */
export function isCard(m: Json): boolean {
  return (m.embeds ?? []).some((x: Json) => String(x.title ?? "").startsWith("Approval needed"));
}

/** What a user reads in a bot message: its content, then the activity embed under it (cards excluded). */
export function messageText(m: Json): string {
  const activity = isCard(m) ? [] : (m.embeds ?? []).map((x: Json) => x.description as string).filter(Boolean);
  return [m.content as string, ...activity].filter(Boolean).join("\n\n");
}

/** Message texts in a channel sent by the bot (content plus activity embeds, see messageText). */
export function botTexts(fake: FakeDiscord, channelId: string): string[] {
  return fake
    .messages(channelId)
    .filter((m) => m.author?.id === fake.botId)
    .map(messageText);
}

let writeSeq = 0;
/** The model calls notes.write; `before` runs synchronously when the model is asked (no race with the card). */
export function writeTurn(text: string, before: () => void) {
  return [
    (_req: RecordedRequest) => {
      before();
      return toolUseTurn({
        id: `toolu_write_${++writeSeq}`,
        name: "execute",
        input: { code: `return await tools.notes.write({ text: ${JSON.stringify(text)} })` },
      });
    },
    (req: RecordedRequest) => textTurn(`tool said: ${lastToolResultText(req)}`),
  ];
}

/** The thread opened for a message, read synchronously (the model is asked only after the thread exists). */
export function threadNow(e: DiscordE2E, messageId: string): string {
  const call = e.fake.calls.find(
    (c) =>
      c.method === "POST" && c.path === `/channels/${e.ids.channelId}/messages/${messageId}/threads` && c.status < 300,
  );
  if (!call) throw new Error(`no thread for message ${messageId} yet`);
  return call.response.id as string;
}

/** The thread opened for a message, once it exists. */
export function threadOf(e: DiscordE2E, messageId: string, timeoutMs?: number): Promise<string> {
  return e.fake
    .waitFor({ method: "POST", path: `/channels/${e.ids.channelId}/messages/${messageId}/threads` }, timeoutMs)
    .then((c) => c.response.id as string);
}

/** Loosely typed Discord API JSON. The fake stores and returns API-shaped objects. */
export type Json = Record<string, any>;

export const ChannelType = {
  GuildText: 0,
  DM: 1,
  GuildVoice: 2,
  GuildCategory: 4,
  GuildAnnouncement: 5,
  AnnouncementThread: 10,
  PublicThread: 11,
  PrivateThread: 12,
  GuildForum: 15,
} as const;

export const Intents = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  GuildMessageTyping: 1 << 11,
  DirectMessages: 1 << 12,
  DirectMessageReactions: 1 << 13,
  DirectMessageTyping: 1 << 14,
  MessageContent: 1 << 15,
  GuildPresences: 1 << 8,
} as const;

export const PRIVILEGED_INTENTS = Intents.GuildMembers | Intents.GuildPresences | Intents.MessageContent;

/** One REST request as the fake saw it (the bot token is redacted). */
export interface RecordedCall {
  index: number;
  method: string;
  /** Path below `/api/v10`, percent-decoded: `/webhooks/1/tok/messages/@original`. */
  path: string;
  query: Record<string, string>;
  body: any;
  /** Names and sizes of multipart files, if any. */
  files: { name: string; size: number; contentType: string }[];
  headers: Record<string, string>;
  status: number;
  response: any;
  rateLimited: boolean;
  time: number;
}

/** One gateway frame, either direction. Tokens in IDENTIFY/RESUME are redacted. */
export interface RecordedFrame {
  index: number;
  direction: "in" | "out";
  connectionId: number;
  sessionId: string | null;
  op: number;
  t: string | null;
  s: number | null;
  d: any;
  time: number;
}

export interface CallMatcher {
  method?: string;
  path?: RegExp | string;
  body?: (body: any) => boolean;
  status?: number;
  /** Only consider calls with `index >= since` (use `fake.calls.length` before acting). Default 0. */
  since?: number;
}

export type CallPredicate = (call: RecordedCall) => boolean;

export function matchCall(matcher: CallMatcher | CallPredicate, call: RecordedCall): boolean {
  if (typeof matcher === "function") return matcher(call);
  if (matcher.since !== undefined && call.index < matcher.since) return false;
  if (matcher.method && matcher.method.toUpperCase() !== call.method) return false;
  if (matcher.status !== undefined && matcher.status !== call.status) return false;
  if (matcher.path !== undefined) {
    if (typeof matcher.path === "string" ? matcher.path !== call.path : !matcher.path.test(call.path)) return false;
  }
  if (matcher.body && !matcher.body(call.body)) return false;
  return true;
}

export function describeMatcher(matcher: CallMatcher | CallPredicate): string {
  if (typeof matcher === "function") return "predicate";
  return `${matcher.method ?? "*"} ${matcher.path ?? "*"}`;
}

export { FakeDiscord, startFakeDiscord, type FakeDiscordOptions, type SeedIds } from "./fake.ts";
export type { FakeInteraction, InteractionCallback } from "./interactions.ts";
export type { RateLimitOptions, RouteMatcher } from "./ratelimit.ts";
export type {
  ClickButtonInput,
  RunSlashCommandInput,
  SelectMenuInput,
  SendUserMessageInput,
  SubmitModalInput,
} from "./user-actions.ts";
export {
  ChannelType,
  Intents,
  type CallMatcher,
  type CallPredicate,
  type Json,
  type RecordedCall,
  type RecordedFrame,
} from "./types.ts";
export type { ConnectionInfo } from "./gateway.ts";

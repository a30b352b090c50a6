export { makeTempDir } from "./temp.ts";
export {
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
  fakeAnthropicErrors,
  type FakeAnthropic,
  type ScriptedTurn,
  type ScriptedMessage,
  type ScriptedError,
  type StaticTurn,
  type RecordedRequest,
  type FakeContentBlock,
  type FakeUsage,
  type FakeStopReason,
  type ContractViolation,
} from "./anthropic/fake-server.ts";
export { FAKE_MODELS, type FakeModelRules } from "./anthropic/models.ts";
export {
  startFakeDiscord,
  FakeDiscord,
  type FakeDiscordOptions,
  type FakeInteraction,
  type InteractionCallback,
  type RecordedCall,
  type RecordedFrame,
  type CallMatcher,
} from "@openassistant/discord-fake";

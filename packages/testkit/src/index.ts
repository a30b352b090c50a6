export { makeTempDir } from "./temp.ts";
export {
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
  fakeAnthropicErrors,
  type FakeAnthropic,
  type ScriptedTurn,
  type RecordedRequest,
} from "./anthropic/fake-server.ts";
export {
  startFakeDiscord,
  FakeDiscord,
  type FakeDiscordOptions,
  type FakeInteraction,
} from "@openassistant/discord-fake";

export { FakeDiscord, startFakeDiscord, type FakeDiscordOptions } from "./fake.ts";
export type { FakeInteraction } from "./interactions.ts";

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { chatText } from "@openassistant/testkit/openai/fake-server.ts";
import { botTexts, eventually, startDiscordE2E, type DiscordE2E } from "../../../../test/discord-e2e.ts";
import { TEST_MODEL } from "../../../../test/harness.ts";

// #35: Discord's /model, the terminal's logic (model/model-command.ts), on the fake Discord with
// real discord.js; Claude (fake Anthropic) configured, an OpenAI-compatible endpoint as fallback.
const VENDOR_MODEL = "qwen/qwen-2.5-coder-32b-instruct";

let e: DiscordE2E;
let dm: string;
beforeAll(async () => {
  e = await startDiscordE2E({ chat: { as: "fallback", models: [{ id: "llama3.1:8b" }, { id: VENDOR_MODEL }] } });
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

async function slash(channelId: string, name?: string): Promise<string> {
  const i = e.fake.runSlashCommand({
    name: "model",
    ...(name !== undefined ? { options: { name } } : {}),
    userId: e.ids.alice,
    channelId,
  });
  await i.callback();
  return eventually(() => {
    const o = i.original();
    return o && !(o.flags & 128)
      ? [o.content as string, ...i.followUps().map((f) => f.content as string)].join("\n")
      : undefined;
  }, "/model reply");
}

async function say(text: string, answer: string): Promise<void> {
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: text });
  await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith(answer)), `the answer "${answer}"`);
}

describe("/model on Discord", () => {
  test("is registered with a free-text name (no fixed choices: the endpoints' lists may pass Discord's 25)", () => {
    const model = e.fake.commands(e.ids.guildId).find((c) => c.name === "model");
    expect(model?.options).toMatchObject([{ type: 3, name: "name", required: false, max_length: 200 }]);
    expect(model?.options?.[0]?.choices).toBeUndefined();
  });

  test("lists what each configured endpoint offers, refuses an unknown name before any turn, and switches to an offered one", async () => {
    const listed = await slash(dm);
    expect(listed).toContain(`model: the configured default (${TEST_MODEL})`);
    expect(listed).toMatch(/anthropic at http:\/\/127\.0\.0\.1:\d+: .*claude-sonnet-5-5/);
    expect(listed).toMatch(
      /openai-compatible at http:\/\/127\.0\.0\.1:\d+\/v1: llama3\.1:8b, qwen\/qwen-2\.5-coder-32b-instruct/,
    );

    const refused = await slash(dm, "gpt-nope");
    expect(refused).toContain(`"gpt-nope" is not a model the gateway knows; nothing changed.`);
    e.h.api.script([textTurn("from Claude")]);
    await say("hi", "from Claude");
    expect(e.h.chat!.completionRequests()).toHaveLength(0);

    // A vendor-prefixed name (OpenRouter's, vLLM's) is a model name like any other.
    expect(await slash(dm, VENDOR_MODEL)).toContain(`model: ${VENDOR_MODEL} for this session from the next message`);
    expect(await slash(dm)).toContain(`model: ${VENDOR_MODEL} (this session)`);
    e.h.chat!.script([chatText("from qwen")]);
    await say("hi again", "from qwen");
    expect(e.h.chat!.completionRequests().map((r) => r.body.model)).toEqual([VENDOR_MODEL]);
    // The refused name reached no model.
    expect(e.h.api.messageRequests().map((r) => r.body.model)).toEqual([TEST_MODEL]);

    expect(await slash(dm, "default")).toContain(`model: back to the configured default (${TEST_MODEL})`);
  });

  test("in a plain channel (each mention starts its own thread) it says where to use it and changes nothing", async () => {
    expect(await slash(e.ids.channelId, VENDOR_MODEL)).toContain(
      "Use `/model` in the assistant's thread or in a DM with it",
    );
  });
});

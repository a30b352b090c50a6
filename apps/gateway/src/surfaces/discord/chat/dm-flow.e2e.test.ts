import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit";
import { botTexts, eventually, startDiscordE2E, type DiscordE2E } from "../../../../test/discord-e2e.ts";

let e: DiscordE2E;
let dm: string;
beforeAll(async () => {
  e = await startDiscordE2E();
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

const userTexts = (body: { messages: Array<{ role: string; content: unknown }> }) => JSON.stringify(body.messages);

describe("DM flow", () => {
  test("a DM gets typing, a live status and the answer; the next DM continues the conversation", async () => {
    e.h.api.script([textTurn("Hello Alice, all good.")]);
    const since = e.fake.calls.length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "hi there" });
    await e.fake.waitFor({ method: "POST", path: `/channels/${dm}/typing`, since });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("Hello Alice")), "the answer");
    await eventually(() => botTexts(e.fake, dm)[0]!.startsWith("✅ Done"), "the status to say done");

    e.h.api.script([textTurn("Still here.")]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "second message" });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("Still here.")), "the second answer");
    const body = e.h.api.messageRequests().at(-1)!.body;
    expect(userTexts(body)).toContain("hi there");
    expect(userTexts(body)).toContain("second message");
  });

  test("/new starts a fresh conversation", async () => {
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "/new" });
    await eventually(
      () => botTexts(e.fake, dm).find((t) => t.startsWith("Started a fresh conversation")),
      "the /new reply",
    );
    e.h.api.script([textTurn("Fresh start.")]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "third message" });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("Fresh start.")), "the answer");
    const body = e.h.api.messageRequests().at(-1)!.body;
    expect(userTexts(body)).toContain("third message");
    expect(userTexts(body)).not.toContain("hi there");
  });

  test("a long answer is split below 2000 characters without breaking its code block", async () => {
    const code = Array.from({ length: 120 }, (_, i) => `console.log("line ${i} ${"x".repeat(20)}");`).join("\n");
    e.h.api.script([textTurn(`Here you go:\n\`\`\`ts\n${code}\n\`\`\`\nThat's all.`)]);
    const before = botTexts(e.fake, dm).length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "give me a long script" });
    const parts = await eventually(() => {
      const texts = botTexts(e.fake, dm).slice(before);
      return texts.some((t) => t.includes("That's all.")) && texts.filter((t) => !/^(💭|⚙️|✅ Done|⏸️)/.test(t));
    }, "the split answer");
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(2000);
      expect((p.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    for (let i = 0; i < 120; i++) expect(parts.join("\n")).toContain(`line ${i} `);
    expect(parts[1]!.startsWith("```ts\n")).toBe(true);
  });

  test("an unauthorized user gets one polite private refusal, nothing runs", async () => {
    const mdm = e.fake.dmChannelId(e.ids.mallory);
    const requests = e.h.api.messageRequests().length;
    e.fake.sendUserMessage({ dmFrom: e.ids.mallory, content: "let me in" });
    await eventually(() => botTexts(e.fake, mdm).find((t) => t.startsWith("Sorry, I can only help")), "the refusal");
    e.fake.sendUserMessage({ dmFrom: e.ids.mallory, content: "please" });
    e.fake.sendUserMessage({ dmFrom: e.ids.mallory, content: "pretty please" });
    await Bun.sleep(150);
    expect(botTexts(e.fake, mdm)).toHaveLength(1);
    expect(e.h.api.messageRequests().length).toBe(requests);
  });
});

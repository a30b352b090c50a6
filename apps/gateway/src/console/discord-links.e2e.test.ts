import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { eventually, startDiscordE2E, toolThenAnswer, type DiscordE2E } from "../../test/discord-e2e.ts";
import { launchChromium } from "../../test/browser.ts";

let e: DiscordE2E;
let browser: Browser;
beforeAll(async () => {
  [e, browser] = await Promise.all([startDiscordE2E({ settings: { http: { port: 0 } } }), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await e?.close();
});

describe("receipt links in Discord (console on)", () => {
  test("the answer's activity links each call to its console page; the link opens it in a browser", async () => {
    const dm = e.fake.dmChannelId(e.ids.alice);
    e.h.api.script(toolThenAnswer("return await tools.notes.read({})", () => "You have one note."));
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "read my notes" });
    const answer = await eventually(
      () =>
        e.fake
          .messages(dm)
          .find((m) => m.author?.id === e.fake.botId && String(m.content).startsWith("You have one note.")),
      "the answer",
    );
    const description = answer.embeds[0].description as string;
    const m =
      /`notes\.read` · \[`(r_\d+)`\]\((http:\/\/127\.0\.0\.1:\d+\/console\/runs\/run_\w+\?t=[\w.-]+&call=\w+#call-\w+)\)/.exec(
        description,
      );
    expect(m).not.toBeNull();
    const page = await browser.newPage();
    expect((await page.goto(m![2]!))!.status()).toBe(200);
    const call = page.locator("section.call:target");
    expect(await call.locator("h3").textContent()).toContain("tools.notes.read");
    expect(await call.locator("ol.timeline").textContent()).toContain(m![1]!);
    expect(await call.locator("pre.result").textContent()).toContain("buy milk");
    await page.close();
  }, 60_000);
});

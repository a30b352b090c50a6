import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOY, deployTools } from "../../test/abilities-deploy.ts";
import {
  botTexts,
  cardCallId,
  decisionField,
  type DiscordE2E,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
} from "../../test/discord-e2e.ts";

/**
 * The deploy flow (tool steps, a gate, a conditional step) on the real gateway and the real
 * discord.js surface against the fake Discord: started by `/ability run` in a DM, its gate a normal
 * approval card clicked by alice, its end posted in the DM.
 */
setDefaultTimeout(30_000);

let e: DiscordE2E;
let dm: string;
const ran: Array<{ what: string; at: number }> = [];
beforeAll(async () => {
  e = await startDiscordE2E({ tools: deployTools(ran) });
  dm = e.fake.dmChannelId(e.ids.alice);
  const dir = join(e.h.dir, ".openassistant", "abilities", "deploy");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "ability.yaml"), DEPLOY);
}, 30_000);
afterAll(() => e?.close(), 30_000);

const runs = (what: string) => ran.filter((r) => r.what.startsWith(what)).length;

/** Sends a DM and waits for the bot's reply that starts with `start`. */
async function dmAndWait(text: string, start: string): Promise<string> {
  const before = botTexts(e.fake, dm).length;
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: text });
  return eventually(
    () =>
      botTexts(e.fake, dm)
        .slice(before)
        .find((t) => t.startsWith(start)),
    `a reply starting "${start}"`,
  );
}

describe("the deploy ability on Discord", () => {
  test("approved: CI checked, the card clicked, deployed; the conditional step skipped on staging; the end posted in the DM", async () => {
    const reply = await dmAndWait(
      "/ability run deploy version=v1.2.3",
      "Ability deploy is waiting for approval at step approve",
    );
    expect(reply).toContain("✅ ci · ⏳ approve · · deploy · · announce");
    const card = await eventually(() => findCard(e.fake, dm, "abilities.gate"), "the gate's card in the DM");
    expect(JSON.stringify(card)).toContain("Deploy v1.2.3 to staging? CI is success.");
    e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice });
    const done = await eventually(
      () => botTexts(e.fake, dm).find((t) => t.startsWith("Ability deploy completed.")),
      "the end",
    );
    expect(done).toContain("✅ ci · ✅ approve · ✅ deploy · ⏭️ announce (skipped)");
    expect(await eventually(() => decisionField(e.fake.message(card.id)), "the card edited")).toContain("Approved by");
    expect(runs("deploy.run")).toBe(1);
    expect(runs("chat.post")).toBe(0);
    expect((await e.h.gateway.receipts.verify()).ok).toBe(true);
  });

  test("denied at the gate: nothing deployed, the run ends denied", async () => {
    await dmAndWait("/ability run deploy version=v1.2.4 environment=prod", "Ability deploy is waiting for approval");
    const card = await eventually(() => findCard(e.fake, dm, "abilities.gate"), "the gate's card");
    e.fake.clickButton({ messageId: card.id, customId: `oa:deny:${cardCallId(card)}`, userId: e.ids.alice });
    const done = await eventually(
      () => botTexts(e.fake, dm).find((t) => t.startsWith("Ability deploy denied")),
      "the end",
    );
    expect(done).toContain(`abilities.gate was denied by discord:${e.ids.alice}`);
    expect(done).toContain("✅ ci · ⛔ approve · · deploy · · announce");
    expect(runs("deploy.run")).toBe(1); // the first test's only
  });

  test("while it waits, the model's call outside the ability is denied, named and receipted; then /ability cancel", async () => {
    await dmAndWait("/ability run deploy version=v2.0.0 environment=prod", "Ability deploy is waiting for approval");
    e.h.api.script(
      toolThenAnswer(
        'return await tools.chat.post({ text: "sneaky" })',
        (req) => `tool said: ${JSON.stringify(req.body).includes("plugin abilities") ? "blocked" : "ran"}`,
      ),
    );
    const answer = await dmAndWait("post sneaky to chat", "tool said:");
    expect(answer).toStartWith("tool said: blocked");
    expect(answer).toContain("⛔ `chat.post` denied by `plugin:abilities`");
    // The model's system prompt told it where the ability is.
    const asked = JSON.stringify(e.h.api.requests.at(-1)!.body);
    expect(asked).toContain("Active ability: deploy");
    expect(runs("chat.post")).toBe(0);
    const denied = (await e.h.gateway.receipts.query({ phase: "denied" })).filter((r) => r.toolPath === "chat.post");
    expect(denied.map((r) => r.decidedBy)).toEqual(["plugin:abilities"]);
    expect(denied[0]!.reason).toContain('ability "deploy" (step "approve", approval) is running in this session');

    const card = await eventually(() => findCard(e.fake, dm, "abilities.gate"), "the gate's card");
    const cancelled = await dmAndWait("/ability cancel", "Ability deploy cancelled");
    expect(cancelled).toContain("✅ ci · 🚫 approve · · deploy · · announce");
    expect(await eventually(() => decisionField(e.fake.message(card.id)), "the card closed")).toBeDefined();
    expect(runs("deploy.run")).toBe(1);
    const status = await dmAndWait("/ability status", "Ability deploy cancelled");
    expect(status).toContain("(run ability_");
  });
});

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOY, deployTools } from "../../../../test/abilities-deploy.ts";
import {
  botTexts,
  decisionField,
  type DiscordE2E,
  eventually,
  findCard,
  startDiscordE2E,
} from "../../../../test/discord-e2e.ts";

/**
 * #32: `/ability` as a Discord application command, on the real gateway and real discord.js against
 * the fake Discord: registered with its subcommands, `run` deferred then answered with the run's
 * state while its gate card waits in the DM, `status`, `cancel`, the name's autocomplete.
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

/** Runs `/ability <subcommand>` in the user's DM (alice's by default) and waits for its answer (the edit of the deferred reply). */
async function ability(
  subcommand: string,
  options: Record<string, string> = {},
  userId = e.ids.alice,
): Promise<{ text: string; flags: number }> {
  const channelId = e.fake.dmChannelId(userId);
  const i = e.fake.runSlashCommand({ name: "ability", subcommand, options, userId, channelId });
  const first = await i.callback();
  expect(first.type).toBe(5); // deferred: the answer may wait on the run's first steps
  return eventually(() => {
    const o = i.original();
    return o && !(o.flags & 128) ? { text: o.content as string, flags: (o.flags ?? 0) as number } : undefined;
  }, `/ability ${subcommand}'s answer`);
}

describe("/ability on Discord", () => {
  test("is registered with run (name autocompleted, inputs), status, cancel and list, also for DMs", () => {
    for (const where of [e.ids.guildId, undefined]) {
      const command = e.fake.commands(where).find((c) => c.name === "ability");
      expect(command?.options?.map((o: { type: number; name: string }) => `${o.type}:${o.name}`)).toEqual([
        "1:run",
        "1:status",
        "1:cancel",
        "1:list",
      ]);
      const run = command?.options?.[0]?.options;
      expect(run).toMatchObject([
        { type: 3, name: "name", required: true, autocomplete: true },
        { type: 3, name: "inputs", required: false },
      ]);
      expect(run?.[0]?.choices).toBeUndefined();
      expect(command?.options?.[1]?.options).toMatchObject([{ type: 3, name: "run_id", required: false }]);
    }
  });

  test("autocomplete offers the defined abilities matching what was typed", async () => {
    const typed = async (value: string) => {
      const i = e.fake.runAutocomplete({
        name: "ability",
        subcommand: "run",
        focused: "name",
        value,
        userId: e.ids.alice,
        channelId: dm,
      });
      const cb = await i.callback();
      expect(cb.accepted).toBe(true);
      return cb.data?.choices;
    };
    expect(await typed("dep")).toEqual([{ name: "deploy", value: "deploy" }]);
    expect(await typed("")).toEqual([{ name: "deploy", value: "deploy" }]);
    expect(await typed("zzz")).toEqual([]);
  });

  test("run starts the ability and its gate card appears; status shows it waiting; cancel cancels it", async () => {
    const started = await ability("run", { name: "deploy", inputs: "version=v3.0.0 environment=prod" });
    expect(started.text).toStartWith("Ability deploy is waiting for approval at step approve");
    expect(started.flags & 64).toBe(0); // shown in the conversation, like the typed form's answer
    const card = await eventually(() => findCard(e.fake, dm, "abilities.gate"), "the gate's card in the DM");
    expect(JSON.stringify(card)).toContain("Deploy v3.0.0 to prod? CI is success.");

    const status = await ability("status");
    expect(status.text).toStartWith("Ability deploy is waiting for approval at step approve");
    expect(status.flags & 64).toBe(64);

    const cancelled = await ability("cancel");
    expect(cancelled.text).toStartWith("Ability deploy cancelled");
    expect(await eventually(() => decisionField(e.fake.message(card.id)), "the card closed")).toBeDefined();
    expect(ran.filter((r) => r.what.startsWith("deploy.run"))).toHaveLength(0);
    const runId = /\(run (ability_[^)\s]+)\)/.exec(cancelled.text)?.[1];
    expect(runId).toBeDefined();
    expect((await ability("status", { run_id: runId! })).text).toStartWith("Ability deploy cancelled");
  });

  test("an unknown ability is refused clearly, and nothing reaches the model", async () => {
    const asked = e.h.api.requests.length;
    const refused = await ability("run", { name: "deplyo" });
    expect(refused.text).toContain('no ability "deplyo" (abilities: deploy; see docs/abilities.md)');
    expect(e.h.api.requests.length).toBe(asked);
  });

  test("who may chat may use it; anyone else is refused and offered no names", async () => {
    expect((await ability("list", {}, e.ids.bob)).text).toContain("• deploy");
    const refused = await ability("run", { name: "deploy", inputs: "version=v9.9.9" }, e.ids.mallory);
    expect(refused.text).toContain("Sorry, I can only help");
    const i = e.fake.runAutocomplete({
      name: "ability",
      subcommand: "run",
      focused: "name",
      value: "",
      userId: e.ids.mallory,
      channelId: e.fake.dmChannelId(e.ids.mallory),
    });
    expect((await i.callback()).data?.choices).toEqual([]);
    expect(ran.filter((r) => r.what.startsWith("ci."))).toHaveLength(1); // the one run above only
  });

  test("list shows the defined abilities; the typed form still answers in the DM", async () => {
    expect((await ability("list")).text).toContain("• deploy — Deploy a version after CI passed");
    const before = botTexts(e.fake, dm).length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "/ability list" });
    await eventually(
      () =>
        botTexts(e.fake, dm)
          .slice(before)
          .find((t) => t.startsWith("• deploy")),
      "the typed /ability list answered",
    );
  });
});

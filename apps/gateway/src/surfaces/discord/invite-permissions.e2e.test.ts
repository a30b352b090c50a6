import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PermissionFlagsBits } from "discord.js";
import {
  botTexts,
  cardCallId,
  eventually,
  findCard,
  notesTools,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
} from "../../../test/discord-e2e.ts";

// The invite in docs/discord.md grants every permission the bot uses, and the bot works with
// exactly those: a change to either that leaves a permission out fails here.
const USED = {
  ViewChannel: "see the channels it is allowed in",
  SendMessages: "answers and approval cards",
  SendMessagesInThreads: "answers in the conversation's thread",
  CreatePublicThreads: "a mention opens a thread (message.startThread)",
  EmbedLinks: "approval cards and lists are embeds",
  AttachFiles: "cards attach input.json, <name>.ts and its diff",
  ReadMessageHistory: "replies, and finding an orphaned card after a restart (messages.fetch)",
} as const;
const DOCS = readFileSync(join(import.meta.dir, "../../../../../docs/discord.md"), "utf8");
const invite = BigInt(/permissions=(\d+)/.exec(DOCS)![1]!);

test("the invite's integer is computed from the permissions the bot uses, and the docs name each", () => {
  const computed = Object.keys(USED).reduce((bits, name) => bits | PermissionFlagsBits[name as keyof typeof USED], 0n);
  expect(computed).toBe(309237763072n);
  expect(invite).toBe(computed);
  const listed = /- Permissions \(`(\d+)`\): ([^.]+)\./.exec(DOCS)!;
  expect(BigInt(listed[1]!)).toBe(computed);
  const words = (name: string) => name.replace(/([a-z])([A-Z])/g, "$1 $2").replace("View Channel", "View Channels");
  expect(listed[2]!.replace(/\s+/g, " ").split(", ").sort()).toEqual(Object.keys(USED).map(words).sort());
});

let e: DiscordE2E;
const ran: Array<{ what: string; at: number }> = [];
beforeAll(async () => {
  e = await startDiscordE2E({
    tools: notesTools(ran),
    setup: (fake, ids) => {
      // In #general the bot has exactly the invite's permissions: every other bit denied to @everyone.
      const all = (1n << 51n) - 1n;
      fake.setPermissionOverwrite(fake.defaults!.channelId, {
        id: ids.guildId,
        type: 0,
        deny: all & ~invite,
        allow: invite,
      });
      return {};
    },
  });
});
afterAll(() => e.close());

test("with exactly the invite's permissions: a thread, an approval card with its file, the answer", async () => {
  e.h.api.script(toolThenAnswer(`return await tools.notes.write({ text: "buy milk" });`, () => "Saved the note."));
  const msg = e.fake.sendUserMessage({
    channelId: e.ids.channelId,
    authorId: e.ids.alice,
    content: "write buy milk",
    mentionsBot: true,
  });
  const thread = await e.fake.waitFor({
    method: "POST",
    path: `/channels/${e.ids.channelId}/messages/${msg.id}/threads`,
  });
  const threadId = thread.response.id as string;
  const card = await eventually(() => findCard(e.fake, threadId, "notes.write"), "the approval card in the thread");
  expect(card.attachments.map((a: { filename: string }) => a.filename)).toEqual(["input.json"]);
  const click = e.fake.clickButton({
    messageId: card.id,
    customId: `oa:approve:${cardCallId(card)}`,
    userId: e.ids.alice,
  });
  await click.callback();
  await eventually(() => botTexts(e.fake, threadId).find((t) => t.startsWith("Saved the note.")), "the answer");
  expect(ran.map((r) => r.what)).toEqual(["notes.write:buy milk"]);
}, 30_000);

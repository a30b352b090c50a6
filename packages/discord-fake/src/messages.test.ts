import { describe, expect, test } from "bun:test";
import {
  AttachmentBuilder,
  ChannelType,
  GatewayIntentBits,
  type Message,
  type TextChannel,
  type ThreadChannel,
  type Typing,
} from "discord.js";
import { connectedPerTest, DEFAULT_INTENTS, nextEvent } from "./test-client.ts";

const setup = connectedPerTest();

const fromUser = (m: Message) => !m.author.bot;

describe("messages", () => {
  test("a guild message arrives and the bot replies in the channel", async () => {
    const { fake, client, seed } = await setup();
    const received = nextEvent<[Message]>(client, "messageCreate", fromUser);
    const sent = fake.sendUserMessage({
      channelId: seed.channelId,
      authorId: seed.userId,
      content: "hello bot",
      mentionsBot: true,
    });
    const [message] = await received;
    expect(message.id).toBe(sent.id);
    expect(message.content).toBe(`<@${fake.botId}> hello bot`);
    expect(message.mentions.users.has(fake.botId)).toBe(true);
    expect(message.member?.id).toBe(seed.userId);

    const reply = await message.reply("hi alice");
    expect(reply.reference?.messageId).toBe(sent.id);
    const state = fake.messages(seed.channelId);
    expect(state.map((m) => m.content)).toEqual([`<@${fake.botId}> hello bot`, "hi alice"]);
    expect(state[1]).toMatchObject({
      type: 19,
      author: { id: fake.botId },
      message_reference: { message_id: sent.id },
    });
  });

  test("a DM arrives (channel_type 1, partial channel) and the bot answers in the DM", async () => {
    const { fake, client, seed } = await setup();
    const received = nextEvent<[Message]>(client, "messageCreate", fromUser);
    fake.sendUserMessage({ dmFrom: seed.userId, content: "private question" });
    const [message] = await received;
    expect(message.channel.type).toBe(ChannelType.DM);
    expect(message.guildId).toBeNull();
    if (!message.channel.isSendable()) throw new Error("DM channel should be sendable");
    await message.channel.send("private answer");
    const dm = fake.dmChannelId(seed.userId);
    expect(fake.messages(dm).map((m) => [m.author.id, m.content])).toEqual([
      [seed.userId, "private question"],
      [fake.botId, "private answer"],
    ]);
  });

  test("the bot can open a DM itself", async () => {
    const { fake, client, seed } = await setup();
    const user = await client.users.fetch(seed.userId);
    await user.send("hello from the bot");
    expect(fake.messages(fake.dmChannelId(seed.userId))[0]?.content).toBe("hello from the bot");
    expect(fake.calls.some((c) => c.method === "POST" && c.path === "/users/@me/channels")).toBe(true);
  });

  test("without the MessageContent intent guild content is blanked unless the bot is mentioned", async () => {
    const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages];
    const { fake, client, seed } = await setup({ privilegedIntents: 0 }, intents);
    const plain = nextEvent<[Message]>(client, "messageCreate", fromUser);
    fake.sendUserMessage({ channelId: seed.channelId, authorId: seed.userId, content: "secret" });
    expect((await plain)[0].content).toBe("");
    const mention = nextEvent<[Message]>(client, "messageCreate", fromUser);
    fake.sendUserMessage({ channelId: seed.channelId, authorId: seed.userId, content: "hey", mentionsBot: true });
    expect((await mention)[0].content).toContain("hey");
  });

  test("editing and deleting a message updates the fake and dispatches events", async () => {
    const { fake, client, seed } = await setup();
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const status = await channel.send("thinking…");
    const updated = nextEvent<[Message, Message]>(client, "messageUpdate");
    await status.edit("done ✅");
    const [, after] = await updated;
    expect(after.content).toBe("done ✅");
    const stored = fake.message(status.id)!;
    expect(stored.content).toBe("done ✅");
    expect(stored.edited_timestamp).not.toBeNull();
    expect(fake.calls.find((c) => c.method === "PATCH")?.path).toBe(
      `/channels/${seed.channelId}/messages/${status.id}`,
    );

    const deleted = nextEvent<[Message]>(client, "messageDelete");
    await status.delete();
    expect((await deleted)[0].id).toBe(status.id);
    expect(fake.messages(seed.channelId)).toEqual([]);
  });

  test("embeds over Discord's limits are rejected with 50035, on send and on edit", async () => {
    const { client, seed } = await setup();
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const field = (value: string) => ({ embeds: [{ title: "t", fields: [{ name: "f", value }] }] });
    await expect(channel.send(field("v".repeat(1025)))).rejects.toThrow(/Invalid Form Body/);
    await expect(channel.send({ embeds: [{ title: "t".repeat(257) }] })).rejects.toThrow(/Invalid Form Body/);
    await expect(channel.send({ embeds: [{ description: "d".repeat(4097) }] })).rejects.toThrow(/Invalid Form Body/);
    // Each part within its limit, but more than 6000 characters in total.
    await expect(
      channel.send({ embeds: [{ description: "d".repeat(4000) }, { description: "d".repeat(2001) }] }),
    ).rejects.toThrow(/Invalid Form Body/);
    const ok = await channel.send(field("v".repeat(1024)));
    await expect(ok.edit(field("v".repeat(1025)))).rejects.toThrow(/Invalid Form Body/);
    await expect(ok.edit(field(""))).rejects.toThrow(/Invalid Form Body/);
  });

  test("a user's message cannot be edited by the bot (403)", async () => {
    const { fake, client, seed } = await setup();
    const received = nextEvent<[Message]>(client, "messageCreate", fromUser);
    fake.sendUserMessage({ channelId: seed.channelId, authorId: seed.userId, content: "mine" });
    const [message] = await received;
    await expect(message.edit("hacked")).rejects.toThrow(/another user/);
  });

  test("typing: the bot's sendTyping is recorded; a user's TYPING_START reaches the client", async () => {
    const intents = [...DEFAULT_INTENTS, GatewayIntentBits.GuildMessageTyping];
    const { fake, client, seed } = await setup({}, intents);
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    await channel.sendTyping();
    const call = await fake.waitFor({ method: "POST", path: `/channels/${seed.channelId}/typing` });
    expect(call.status).toBe(204);

    const typing = nextEvent<[Typing]>(client, "typingStart");
    fake.startTyping({ channelId: seed.channelId, userId: seed.userId });
    const [event] = await typing;
    expect(event.user.id).toBe(seed.userId);
    expect(event.channel.id).toBe(seed.channelId);
  });

  test("creating a thread from a message and posting in it", async () => {
    const { fake, client, seed } = await setup();
    const received = nextEvent<[Message]>(client, "messageCreate", fromUser);
    fake.sendUserMessage({
      channelId: seed.channelId,
      authorId: seed.userId,
      content: "please deploy",
      mentionsBot: true,
    });
    const [message] = await received;

    const threadCreated = nextEvent<[ThreadChannel]>(client, "threadCreate");
    const thread = await message.startThread({ name: "deploy request" });
    expect((await threadCreated)[0].id).toBe(thread.id);
    const dispatched = await fake.waitForFrame((f) => f.t === "THREAD_CREATE");
    expect(dispatched.d).toMatchObject({ id: thread.id, newly_created: true, parent_id: seed.channelId });
    expect(thread.id).toBe(message.id);
    expect(thread.parentId).toBe(seed.channelId);
    await thread.send("working on it");
    expect(fake.messages(thread.id).map((m) => m.content)).toEqual(["working on it"]);
    expect(fake.message(message.id)?.thread?.id).toBe(thread.id);

    const inThread = nextEvent<[Message]>(client, "messageCreate", fromUser);
    fake.sendUserMessage({ channelId: thread.id, authorId: seed.userId, content: "thanks" });
    const [reply] = await inThread;
    expect(reply.channel.isThread()).toBe(true);
    expect(reply.channelId).toBe(thread.id);

    await expect(message.startThread({ name: "again" })).rejects.toThrow(/already been created/);
  });

  test("standalone threads via channel.threads.create", async () => {
    const { fake, client, seed } = await setup();
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const thread = await channel.threads.create({ name: "standalone", type: ChannelType.PublicThread });
    expect(fake.channel(thread.id)).toMatchObject({ type: 11, parent_id: seed.channelId, name: "standalone" });
    expect(fake.calls.some((c) => c.path === `/channels/${seed.channelId}/threads`)).toBe(true);
  });

  test("file uploads are stored as attachments and served back", async () => {
    const { fake, client, seed } = await setup();
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const sent = await channel.send({
      content: "log",
      files: [new AttachmentBuilder(Buffer.from("line 1\nline 2"), { name: "run.log" })],
    });
    const attachment = sent.attachments.first()!;
    expect(attachment.name).toBe("run.log");
    expect(await (await fetch(attachment.url)).text()).toBe("line 1\nline 2");
    expect(fake.calls.at(-1)?.files).toEqual([{ name: "run.log", size: 13, contentType: expect.any(String) }]);
  });
});

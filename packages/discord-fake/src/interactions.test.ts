import { describe, expect, test } from "bun:test";
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  LabelBuilder,
  MessageFlags,
  ModalBuilder,
  SlashCommandBuilder,
  StringSelectMenuBuilder,
  TextInputBuilder,
  TextInputStyle,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type ModalSubmitInteraction,
  type StringSelectMenuInteraction,
  type TextChannel,
} from "discord.js";
import { connectedPerTest, nextEvent } from "./test-client.ts";

const setup = connectedPerTest();

function approvalRow() {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId("oa:approve:1").setLabel("Approve").setStyle(ButtonStyle.Success),
    new ButtonBuilder().setCustomId("oa:deny:1").setLabel("Deny").setStyle(ButtonStyle.Danger),
  );
}

const nextInteraction = <T extends Interaction>(client: Parameters<typeof nextEvent>[0]) =>
  nextEvent<[Interaction]>(client, "interactionCreate").then(([i]) => i as T);

describe("buttons", () => {
  test("clickButton → ButtonInteraction; update() edits the card and the fake sees callback type 7", async () => {
    const { fake, client, seed } = await setup();
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const card = await channel.send({ content: "Approve deploy?", components: [approvalRow()] });
    expect(fake.message(card.id)?.components[0].components.map((c: { custom_id: string }) => c.custom_id)).toEqual([
      "oa:approve:1",
      "oa:deny:1",
    ]);

    const arrived = nextInteraction<ButtonInteraction>(client);
    const click = fake.clickButton({ messageId: card.id, customId: "oa:approve:1", userId: seed.userId });
    const interaction = await arrived;
    expect(interaction.isButton()).toBe(true);
    expect(interaction.customId).toBe("oa:approve:1");
    expect(interaction.user.id).toBe(seed.userId);
    expect(interaction.message.id).toBe(card.id);
    expect(interaction.member?.roles).toBeDefined();

    await interaction.update({ content: "Approved by alice", components: [] });
    const callback = await click.callback();
    expect(callback).toMatchObject({ type: 7, accepted: true, status: 204 });
    expect(fake.message(card.id)).toMatchObject({ content: "Approved by alice", components: [] });
    expect(click.original()?.id).toBe(card.id);
    expect(() => fake.clickButton({ messageId: card.id, customId: "oa:approve:1", userId: seed.userId })).toThrow(
      /no component/,
    );
  });

  test("deferUpdate() then editReply() edits the component message via the webhook", async () => {
    const { fake, client, seed } = await setup();
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const card = await channel.send({ content: "Approve?", components: [approvalRow()] });
    const arrived = nextInteraction<ButtonInteraction>(client);
    const click = fake.clickButton({ messageId: card.id, customId: "oa:deny:1", userId: seed.userId });
    const interaction = await arrived;
    await interaction.deferUpdate();
    expect((await click.callback()).type).toBe(6);
    await interaction.editReply({ content: "Denied", components: [] });
    const patch = await fake.waitFor({ method: "PATCH", path: /^\/webhooks\/\d+\/[^/]+\/messages\/@original$/ });
    expect(patch.headers.authorization).toBeUndefined();
    expect(fake.message(card.id)?.content).toBe("Denied");
  });

  test("a second acknowledgement is refused with 40060; late callbacks get Unknown interaction", async () => {
    const { fake, client, seed } = await setup({ interactionAckTimeoutMs: 100 });
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const card = await channel.send({ content: "Approve?", components: [approvalRow()] });

    const arrived = nextInteraction<ButtonInteraction>(client);
    const click = fake.clickButton({ messageId: card.id, customId: "oa:approve:1", userId: seed.userId });
    const interaction = await arrived;
    await interaction.reply({ content: "Only you can see this", flags: MessageFlags.Ephemeral });
    const reply = click.original()!;
    expect(reply.flags & 64).toBe(64);
    expect(reply.interaction_metadata).toMatchObject({ id: click.id, user: { id: seed.userId } });
    // Bypass discord.js' own "already replied" guard to hit the API twice.
    const again = await fetch(`${fake.apiUrl}/v10/interactions/${click.id}/${click.token}/callback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: 6 }),
    });
    expect(await again.json()).toEqual({ message: "Interaction has already been acknowledged.", code: 40060 });
    expect(click.callbacks.map((c) => c.accepted)).toEqual([true, false]);

    const late = nextInteraction<ButtonInteraction>(client);
    const lateClick = fake.clickButton({ messageId: card.id, customId: "oa:deny:1", userId: seed.userId });
    const lateInteraction = await late;
    await Bun.sleep(150);
    await expect(lateInteraction.deferUpdate()).rejects.toThrow(/Unknown interaction/);
    expect((await lateClick.callback()).error).toBe("Unknown interaction");
  });
});

describe("modals", () => {
  test("showModal → submitModal gives a ModalSubmitInteraction with the fields", async () => {
    const { fake, client, seed } = await setup();
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const card = await channel.send({ content: "Approve?", components: [approvalRow()] });

    const arrived = nextInteraction<ButtonInteraction>(client);
    const click = fake.clickButton({ messageId: card.id, customId: "oa:deny:1", userId: seed.userId });
    const button = await arrived;
    const modal = new ModalBuilder()
      .setCustomId("oa:deny-reason:1")
      .setTitle("Deny with reason")
      .addComponents(
        new ActionRowBuilder<TextInputBuilder>().addComponents(
          new TextInputBuilder().setCustomId("reason").setLabel("Reason").setStyle(TextInputStyle.Paragraph),
        ),
      );
    await button.showModal(modal);
    expect((await click.callback()).type).toBe(9);
    expect(click.modal()?.custom_id).toBe("oa:deny-reason:1");

    expect(() =>
      fake.submitModal({ customId: "oa:deny-reason:1", fields: { nope: "x" }, userId: seed.userId }),
    ).toThrow(/no text input "nope"/);
    // The Discord client caps what can be typed: max_length defaults to 4000.
    expect(() =>
      fake.submitModal({ customId: "oa:deny-reason:1", fields: { reason: "r".repeat(4001) }, userId: seed.userId }),
    ).toThrow(/longer than its max_length 4000/);
    const submitted = nextInteraction<ModalSubmitInteraction>(client);
    const submit = fake.submitModal({
      customId: "oa:deny-reason:1",
      fields: { reason: "too risky" },
      userId: seed.userId,
    });
    const interaction = await submitted;
    expect(interaction.isModalSubmit()).toBe(true);
    expect(interaction.fields.getTextInputValue("reason")).toBe("too risky");
    expect(interaction.channelId).toBe(seed.channelId);
    expect(interaction.message?.id).toBe(card.id);
    await interaction.deferUpdate();
    await interaction.editReply({ content: "Denied: too risky", components: [] });
    expect((await submit.callback()).type).toBe(6);
    expect(fake.message(card.id)?.content).toBe("Denied: too risky");
  });
});

describe("slash commands", () => {
  test("guild and global registration are stored; runSlashCommand → reply, editReply, followUp", async () => {
    const { fake, client, seed } = await setup();
    const receipts = new SlashCommandBuilder()
      .setName("receipts")
      .setDescription("Show receipts")
      .addStringOption((o) => o.setName("run").setDescription("Run id"))
      .addIntegerOption((o) => o.setName("page").setDescription("Page"));
    await client.application!.commands.set([
      new SlashCommandBuilder().setName("new").setDescription("New conversation"),
    ]);
    await client.guilds.cache.get(seed.guildId)!.commands.set([receipts]);
    expect(fake.commands().map((c) => c.name)).toEqual(["new"]);
    expect(fake.commands(seed.guildId)).toMatchObject([
      { name: "receipts", guild_id: seed.guildId, options: [{ name: "run" }, { name: "page" }] },
    ]);
    const firstId = fake.commands(seed.guildId)[0]!.id;
    await client.guilds.cache.get(seed.guildId)!.commands.set([receipts]);
    expect(fake.commands(seed.guildId)[0]!.id).toBe(firstId);

    const arrived = nextInteraction<ChatInputCommandInteraction>(client);
    const run = fake.runSlashCommand({
      name: "receipts",
      options: { run: "r-42", page: 2 },
      userId: seed.userId,
      guildId: seed.guildId,
    });
    const interaction = await arrived;
    expect(interaction.isChatInputCommand()).toBe(true);
    expect(interaction.commandName).toBe("receipts");
    expect(interaction.options.getString("run")).toBe("r-42");
    expect(interaction.options.getInteger("page")).toBe(2);
    expect(interaction.channelId).toBe(seed.channelId);

    await interaction.reply("Receipts for r-42");
    expect((await run.callback()).type).toBe(4);
    await interaction.editReply("Receipts for r-42 (page 2)");
    const followUp = await interaction.followUp({ content: "More…", flags: MessageFlags.Ephemeral });
    expect(run.original()).toMatchObject({ content: "Receipts for r-42 (page 2)", type: 20 });
    expect(run.followUps()).toMatchObject([{ id: followUp.id, content: "More…", flags: 64 }]);
    const channelContents = fake.messages(seed.channelId).map((m) => m.content);
    expect(channelContents).toEqual(["Receipts for r-42 (page 2)", "More…"]);
  });

  test("deferReply then editReply fills the placeholder; global commands work in DMs", async () => {
    const { fake, client, seed } = await setup();
    await client.application!.commands.create(new SlashCommandBuilder().setName("tools").setDescription("List tools"));
    const arrived = nextInteraction<ChatInputCommandInteraction>(client);
    const run = fake.runSlashCommand({ name: "tools", userId: seed.userId, channelId: fake.dmChannelId(seed.userId) });
    const interaction = await arrived;
    expect(interaction.guildId).toBeNull();
    expect(interaction.user.id).toBe(seed.userId);
    await interaction.deferReply();
    expect(run.original()?.flags & 128).toBe(128);
    await interaction.editReply("3 tools loaded");
    expect(run.original()).toMatchObject({ content: "3 tools loaded", flags: 0 });
    const reply = await interaction.fetchReply();
    expect(reply.content).toBe("3 tools loaded");
    await interaction.deleteReply();
    expect(run.original()).toBeNull();
  });

  test("unknown commands and options fail loudly in the helper", async () => {
    const { fake, seed } = await setup();
    expect(() => fake.runSlashCommand({ name: "nope", userId: seed.userId, guildId: seed.guildId })).toThrow(
      /no command \/nope/,
    );
  });
});

describe("more interaction shapes", () => {
  test("a string option's max_length is 1–6000 at registration, and a longer value cannot be sent", async () => {
    const { fake, client, seed } = await setup();
    const guild = client.guilds.cache.get(seed.guildId)!;
    const model = (max_length: number) => ({
      name: "model",
      description: "Switch the model",
      options: [{ type: 3, name: "name", description: "Model name", required: false, max_length }],
    });
    await expect(guild.commands.set([model(6001)] as never)).rejects.toThrow(/Invalid Form Body/);
    await expect(guild.commands.set([model(0)] as never)).rejects.toThrow(/Invalid Form Body/);
    await guild.commands.set([model(10)] as never);
    expect(() =>
      fake.runSlashCommand({
        name: "model",
        options: { name: "x".repeat(11) },
        userId: seed.userId,
        guildId: seed.guildId,
      }),
    ).toThrow(/longer than its max_length 10/);
  });

  test("subcommands with user options are resolved; a label modal shown from a command round-trips", async () => {
    const { fake, client, seed } = await setup();
    await client.guilds.cache.get(seed.guildId)!.commands.set([
      new SlashCommandBuilder()
        .setName("rules")
        .setDescription("Approval rules")
        .addSubcommand((s) =>
          s
            .setName("grant")
            .setDescription("Grant")
            .addUserOption((o) => o.setName("who").setDescription("User").setRequired(true)),
        ),
    ]);
    expect(() =>
      fake.runSlashCommand({
        name: "rules",
        subcommand: "grant",
        options: {},
        userId: seed.userId,
        guildId: seed.guildId,
      }),
    ).toThrow(/requires option "who"/);

    const arrived = nextInteraction<ChatInputCommandInteraction>(client);
    fake.runSlashCommand({
      name: "rules",
      subcommand: "grant",
      options: { who: seed.ownerId },
      userId: seed.userId,
      guildId: seed.guildId,
    });
    const command = await arrived;
    expect(command.options.getSubcommand()).toBe("grant");
    expect(command.options.getUser("who")?.username).toBe("owner");
    expect(command.options.getMember("who")).toBeTruthy();

    const modal = new ModalBuilder()
      .setCustomId("why")
      .setTitle("Why?")
      .addLabelComponents(
        new LabelBuilder()
          .setLabel("Reason")
          .setTextInputComponent(new TextInputBuilder().setCustomId("reason").setStyle(TextInputStyle.Short)),
      );
    await command.showModal(modal);
    const submitted = nextInteraction<ModalSubmitInteraction>(client);
    const submit = fake.submitModal({ customId: "why", fields: { reason: "trusted" }, userId: seed.userId });
    const interaction = await submitted;
    expect(submit.payload.data.components[0].type).toBe(18);
    expect(interaction.fields.getTextInputValue("reason")).toBe("trusted");
    expect(interaction.message).toBeNull();
    await interaction.reply("granted");
    expect(submit.original()?.content).toBe("granted");
  });

  test("select menus arrive as StringSelectMenuInteraction with values", async () => {
    const { fake, client, seed } = await setup();
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const menu = new StringSelectMenuBuilder()
      .setCustomId("scope")
      .addOptions({ label: "Here", value: "conversation" }, { label: "Everywhere", value: "global" });
    const card = await channel.send({
      content: "Scope?",
      components: [new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(menu)],
    });
    const arrived = nextInteraction<StringSelectMenuInteraction>(client);
    const pick = fake.selectMenu({ messageId: card.id, customId: "scope", values: ["global"], userId: seed.userId });
    const interaction = await arrived;
    expect(interaction.isStringSelectMenu()).toBe(true);
    expect(interaction.values).toEqual(["global"]);
    await interaction.deferUpdate();
    expect((await pick.callback()).latencyMs).toBeLessThan(1000);
  });
});

import { afterEach, describe, expect, test } from "bun:test";
import { ChannelType } from "discord.js";
import { startFakeDiscord } from "./fake.ts";
import { connected, makeClient } from "./test-client.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

async function setup(...args: Parameters<typeof connected>) {
  const env = await connected(...args);
  cleanups.push(env.close);
  return env;
}

describe("login", () => {
  test("IDENTIFY → READY → GUILD_CREATE fills the client caches", async () => {
    const { fake, client, seed } = await setup();
    expect(client.user?.id).toBe(fake.botId);
    expect(client.application?.id).toBe(fake.applicationId);
    const guild = client.guilds.cache.get(seed.guildId)!;
    expect(guild.name).toBe("Fake Guild");
    expect(guild.channels.cache.get(seed.channelId)?.type).toBe(ChannelType.GuildText);
    expect(guild.roles.everyone.id).toBe(seed.guildId);
    expect(guild.members.me?.id).toBe(fake.botId);

    const identify = fake.frames.find((f) => f.direction === "in" && f.op === 2)!;
    expect(identify.d.token).toBe("[redacted]");
    expect(
      fake.frames
        .filter((f) => f.direction === "out")
        .map((f) => f.t ?? f.op)
        .slice(0, 3),
    ).toEqual([10, "READY", "GUILD_CREATE"]);
    expect(fake.calls[0]).toMatchObject({ method: "GET", path: "/gateway/bot", status: 200 });
    expect(fake.calls[0]!.headers.authorization).toBe("Bot [redacted]");
  });

  test("heartbeats are acknowledged", async () => {
    const { fake } = await setup({ heartbeatIntervalMs: 50 });
    await fake.waitForFrame((f) => f.direction === "out" && f.op === 11, 2000);
    expect(fake.frames.some((f) => f.direction === "in" && f.op === 1)).toBe(true);
  });

  test("guilds, channels, roles and members created after login reach the client", async () => {
    const { fake, client } = await setup();
    const owner = fake.createUser({ username: "bob" });
    const created = new Promise((resolve) => client.once("guildCreate", resolve));
    const guild = fake.createGuild({ name: "Second", ownerId: owner.id });
    await created;
    const channelCreated = new Promise((resolve) => client.once("channelCreate", resolve));
    const channel = fake.createChannel({ guildId: guild.id, name: "ops" });
    await channelCreated;
    expect(client.guilds.cache.get(guild.id)?.channels.cache.get(channel.id)?.name).toBe("ops");
  });

  test("a wrong token is rejected with 401 and login fails", async () => {
    const fake = await startFakeDiscord();
    cleanups.push(() => fake.close());
    const client = makeClient(fake);
    cleanups.push(async () => void (await client.destroy()));
    await expect(client.login("not-the-token")).rejects.toThrow(/invalid token/i);
    expect(fake.calls[0]).toMatchObject({ path: "/gateway/bot", status: 401 });
    expect(fake.calls[0]!.headers.authorization).toBe("[redacted: wrong token]");
  });

  test("IDENTIFY with a wrong token closes the gateway with 4004", async () => {
    const fake = await startFakeDiscord();
    cleanups.push(() => fake.close());
    const ws = new WebSocket(fake.gatewayUrl + "?v=10&encoding=json");
    const closed = new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)));
    ws.onmessage = (e) => {
      const payload = JSON.parse(String(e.data));
      if (payload.op === 10) ws.send(JSON.stringify({ op: 2, d: { token: "nope", intents: 1, properties: {} } }));
    };
    expect(await closed).toBe(4004);
  });

  test("disallowed privileged intents close with 4014", async () => {
    const fake = await startFakeDiscord({ privilegedIntents: 0 });
    cleanups.push(() => fake.close());
    const client = makeClient(fake);
    cleanups.push(async () => void (await client.destroy()));
    const error = new Promise<Error>((resolve) => client.once("shardError", resolve));
    void client.login(fake.token).catch(() => {});
    expect((await error).message).toMatch(/disallowed intents/i);
  });

  test("REST errors use Discord's JSON shape", async () => {
    const fake = await startFakeDiscord();
    cleanups.push(() => fake.close());
    const auth = { authorization: `Bot ${fake.token}`, "content-type": "application/json" };
    const res = await fetch(`${fake.apiUrl}/v10/channels/123/messages`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ content: "x" }),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ message: "Unknown Channel", code: 10003 });
    const empty = await fetch(`${fake.apiUrl}/v10/channels/${fake.defaults!.channelId}/messages`, {
      method: "POST",
      headers: auth,
      body: "{}",
    });
    expect(await empty.json()).toEqual({ message: "Cannot send an empty message", code: 50006 });
    const long = await fetch(`${fake.apiUrl}/v10/channels/${fake.defaults!.channelId}/messages`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ content: "x".repeat(2001) }),
    });
    expect(long.status).toBe(400);
    expect(((await long.json()) as any).errors.content._errors[0].code).toBe("BASE_TYPE_MAX_LENGTH");
  });
});

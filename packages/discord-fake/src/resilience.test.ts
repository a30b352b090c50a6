import { describe, expect, test } from "bun:test";
import { RESTEvents, type Message, type TextChannel } from "discord.js";
import { connectedPerTest, nextEvent, noIdentifyWait } from "./test-client.ts";

const setup = connectedPerTest();

const fromUser = (m: Message) => !m.author.bot;

describe("rate limits", () => {
  test("a 429 on message post is honoured and retried by discord.js", async () => {
    const { fake, client, seed } = await setup();
    fake.rateLimitNext({ method: "POST", path: /^\/channels\/\d+\/messages$/ }, { retryAfter: 0.3 });
    const limited = new Promise<{ retryAfter: number; global: boolean }>((resolve) =>
      client.rest.once(RESTEvents.RateLimited, resolve),
    );
    const channel = client.channels.cache.get(seed.channelId) as TextChannel;
    const sent = await channel.send("after the limit");

    const posts = fake.calls.filter((c) => c.method === "POST" && c.path === `/channels/${seed.channelId}/messages`);
    expect(posts.map((c) => c.status)).toEqual([429, 200]);
    expect(posts[0]!.rateLimited).toBe(true);
    expect(posts[1]!.time - posts[0]!.time).toBeGreaterThanOrEqual(280);
    expect(await limited).toMatchObject({ global: false });
    expect(fake.messages(seed.channelId).map((m) => m.id)).toEqual([sent.id]);
  });

  test("429 responses carry Discord's headers, global flag when global", async () => {
    const { fake } = await setup();
    fake.rateLimitNext({ path: "/users/@me" }, { retryAfter: 1.5 });
    fake.rateLimitNext({ path: "/users/@me" }, { retryAfter: 2, global: true });
    const auth = { authorization: `Bot ${fake.token}` };
    const local = await fetch(`${fake.apiUrl}/v10/users/@me`, { headers: auth });
    expect(local.status).toBe(429);
    expect(local.headers.get("retry-after")).toBe("1.5");
    expect(local.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(local.headers.get("x-ratelimit-reset-after")).toBe("1.500");
    expect(local.headers.get("x-ratelimit-bucket")).toBeTruthy();
    expect(local.headers.get("x-ratelimit-global")).toBeNull();
    expect(await local.json()).toEqual({ message: "You are being rate limited.", retry_after: 1.5, global: false });
    const global = await fetch(`${fake.apiUrl}/v10/users/@me`, { headers: auth });
    expect(global.headers.get("x-ratelimit-global")).toBe("true");
    expect(global.headers.get("x-ratelimit-scope")).toBe("global");
    expect((await fetch(`${fake.apiUrl}/v10/users/@me`, { headers: auth })).status).toBe(200);
  });
});

describe("gateway resilience", () => {
  test("a dropped connection is resumed: RESUME is sent, missed events replayed, new events arrive", async () => {
    const { fake, client, seed } = await setup();
    const resumed = new Promise((resolve) => client.once("shardResume", resolve));
    const seen: string[] = [];
    client.on("messageCreate", (m) => void (fromUser(m) && seen.push(m.content)));

    expect(fake.dropConnection()).toBe(1);
    fake.sendUserMessage({ channelId: seed.channelId, authorId: seed.userId, content: "while you were away" });
    await resumed;

    const resume = fake.frames.find((f) => f.direction === "in" && f.op === 6)!;
    expect(resume.d).toMatchObject({ token: "[redacted]", session_id: expect.any(String), seq: expect.any(Number) });
    const identifies = fake.frames.filter((f) => f.direction === "in" && f.op === 2);
    expect(identifies).toHaveLength(1);
    const resumedFrame = fake.frames.find((f) => f.t === "RESUMED")!;
    expect(
      fake.frames.some(
        (f) => f.t === "MESSAGE_CREATE" && f.connectionId === resumedFrame.connectionId && f.index < resumedFrame.index,
      ),
    ).toBe(true);

    const after = nextEvent<[Message]>(client, "messageCreate", (m) => m.content === "after resume");
    fake.sendUserMessage({ channelId: seed.channelId, authorId: seed.userId, content: "after resume" });
    await after;
    expect(seen).toEqual(["while you were away", "after resume"]);
  });

  test("op 7 RECONNECT: the client reconnects to resume_gateway_url and resumes", async () => {
    const { fake, client } = await setup();
    const resumed = new Promise((resolve) => client.once("shardResume", resolve));
    expect(fake.requestReconnect()).toBe(1);
    await resumed;
    const resume = fake.frames.find((f) => f.direction === "in" && f.op === 6)!;
    const hello = fake.frames.filter((f) => f.op === 10 && f.connectionId === resume.connectionId);
    expect(hello).toHaveLength(1);
    expect(fake.connectedSessions).toBe(1);
    expect(fake.connections.map((c) => c.path)).toEqual(["/gateway", "/resume-gateway"]);
    expect(fake.connections[0]!.closeCode).toBe(4200);
    expect(fake.frames.find((f) => f.t === "READY")!.d.resume_gateway_url).toMatch(
      /^ws:\/\/127\.0\.0\.1:\d+\/resume-gateway$/,
    );
  });

  test("an abrupt drop (no close frame) is resumed too", async () => {
    const { fake, client } = await setup();
    const resumed = new Promise((resolve) => client.once("shardResume", resolve));
    fake.dropConnection({ abrupt: true });
    await resumed;
    expect(fake.frames.some((f) => f.direction === "in" && f.op === 6)).toBe(true);
  });

  test("a non-resumable INVALID_SESSION makes the client identify again", async () => {
    const { fake, client, seed } = await setup({}, undefined, noIdentifyWait);
    const firstSession = fake.frames.find((f) => f.t === "READY")!.d.session_id;
    fake.invalidateSession();
    const ready = await fake.waitForFrame((f) => f.t === "READY" && f.d.session_id !== firstSession, 3000);
    expect(fake.frames.some((f) => f.op === 9 && f.d === false)).toBe(true);
    const identifies = fake.frames.filter((f) => f.direction === "in" && f.op === 2);
    expect(identifies).toHaveLength(2);
    const after = nextEvent<[Message]>(client, "messageCreate", (m) => m.content === "new session");
    await fake.waitForFrame((f) => f.t === "GUILD_CREATE" && f.index > ready.index);
    fake.sendUserMessage({ channelId: seed.channelId, authorId: seed.userId, content: "new session" });
    await after;
  });
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { startFakeDiscord, type FakeDiscord } from "./fake.ts";

let fake: FakeDiscord;
beforeEach(async () => {
  fake = await startFakeDiscord({ routeLimit: { limit: 5, windowMs: 60_000 } });
});
afterEach(() => fake.close());

/** A raw bot request, as a client library would send it. */
async function rest(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${fake.apiUrl}/v10${path}`, {
    method,
    headers: { authorization: `Bot ${fake.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: res.status === 204 ? null : await res.json(), headers: res.headers };
}

const button = (custom_id: string, label = "ok") => ({ type: 2, style: 1, label, custom_id });
const row = (...components: unknown[]) => ({ type: 1, components });

describe("strict fake: what real Discord rejects is rejected", () => {
  test("components: 5 buttons per row, custom_id ≤ 100 and unique, label ≤ 80", async () => {
    const ch = `/channels/${fake.defaults!.channelId}/messages`;
    const six = await rest("POST", ch, { components: [row(...Array.from({ length: 6 }, (_, i) => button(`b${i}`)))] });
    expect(six.status).toBe(400);
    expect(six.json.code).toBe(50035);
    const dup = await rest("POST", `/channels/${fake.createChannel({ guildId: fake.defaults!.guildId }).id}/messages`, {
      components: [row(button("same"), button("same"))],
    });
    expect(JSON.stringify(dup.json.errors)).toContain("COMPONENT_CUSTOM_ID_DUPLICATED");
    const long = await rest(
      "POST",
      `/channels/${fake.createChannel({ guildId: fake.defaults!.guildId }).id}/messages`,
      { components: [row(button("x".repeat(101)))] },
    );
    expect(long.status).toBe(400);
    const label = await rest(
      "POST",
      `/channels/${fake.createChannel({ guildId: fake.defaults!.guildId }).id}/messages`,
      { components: [row(button("a", "l".repeat(81)))] },
    );
    expect(label.status).toBe(400);
    expect(fake.unexpectedErrors).toHaveLength(4);
  });

  test("the ephemeral flag only on interaction responses; lone surrogates are refused", async () => {
    const ch = `/channels/${fake.defaults!.channelId}/messages`;
    fake.expectErrors({ status: 400 });
    expect((await rest("POST", ch, { content: "secret", flags: 64 })).status).toBe(400);
    const lone = await rest("POST", ch, '{"content":"half an emoji \\ud83d"}');
    expect(lone.status).toBe(400);
    expect(JSON.stringify(lone.json.errors)).toContain("content");
    expect(fake.unexpectedErrors).toEqual([]);
  });

  test("allowed_mentions decides who is pinged; a ping of @everyone is recorded", async () => {
    const ch = `/channels/${fake.defaults!.channelId}/messages`;
    const quiet = await rest("POST", ch, { content: "@everyone look", allowed_mentions: { parse: [] } });
    expect(quiet.json.mention_everyone).toBe(false);
    expect(fake.pings).toEqual([]);
    const loud = await rest("POST", ch, { content: "@everyone look" });
    expect(loud.json.mention_everyone).toBe(true);
    expect(fake.pings).toEqual([
      { messageId: loud.json.id, channelId: fake.defaults!.channelId, everyone: true, roles: [], users: [] },
    ]);
  });

  test("rate-limit headers on every response; a per-route bucket answers 429 when exceeded", async () => {
    const ch = `/channels/${fake.defaults!.channelId}/messages`;
    const first = await rest("POST", ch, { content: "1" });
    for (const h of [
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "x-ratelimit-reset-after",
      "x-ratelimit-bucket",
    ])
      expect(first.headers.get(h)).not.toBeNull();
    expect(first.headers.get("x-ratelimit-remaining")).toBe("4");
    for (const n of [2, 3, 4, 5]) await rest("POST", ch, { content: String(n) });
    const over = await rest("POST", ch, { content: "6" });
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).not.toBeNull();
    expect(over.json.retry_after).toBeGreaterThan(0);
    // Another channel is another bucket.
    expect(
      (
        await rest("POST", `/channels/${fake.createChannel({ guildId: fake.defaults!.guildId }).id}/messages`, {
          content: "ok",
        })
      ).status,
    ).toBe(200);
  });

  test("DMs closed (50007) and missing permission (50013) are switchable and count as expected", async () => {
    const dm = fake.dmChannelId(fake.defaults!.userId);
    fake.setDmsClosed(fake.defaults!.userId);
    const closed = await rest("POST", `/channels/${dm}/messages`, { content: "hi" });
    expect([closed.status, closed.json.code]).toEqual([403, 50007]);
    fake.setMissingPermission(fake.defaults!.channelId);
    const denied = await rest("POST", `/channels/${fake.defaults!.channelId}/messages`, { content: "hi" });
    expect([denied.status, denied.json.code]).toEqual([403, 50013]);
    fake.setDmsClosed(fake.defaults!.userId, false);
    expect((await rest("POST", `/channels/${dm}/messages`, { content: "hi" })).status).toBe(200);
    expect(fake.unexpectedErrors).toEqual([]);
  });

  test("commands: required options before optional ones, valid contexts", async () => {
    const base = `/applications/${fake.applicationId}/commands`;
    fake.expectErrors({ status: 400 });
    const order = await rest("POST", base, {
      name: "x",
      description: "d",
      options: [
        { type: 3, name: "a", description: "a" },
        { type: 3, name: "b", description: "b", required: true },
      ],
    });
    expect(JSON.stringify(order.json.errors)).toContain("APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID");
    expect((await rest("POST", base, { name: "x", description: "d", contexts: [7] })).status).toBe(400);
    expect((await rest("POST", base, { name: "Upper", description: "d" })).status).toBe(400);
    expect((await rest("POST", base, { name: "ok", description: "d", contexts: [1] })).status).toBe(201);
    // A global command with only the DM context is not offered in a guild.
    expect(() =>
      fake.runSlashCommand({ name: "ok", userId: fake.defaults!.userId, guildId: fake.defaults!.guildId }),
    ).toThrow(/no command \/ok/);
  });

  test("autocomplete: only on string/number options without choices; at most 25 choices of ≤ 100 characters", async () => {
    const base = `/applications/${fake.applicationId}/commands`;
    fake.expectErrors({ status: 400 });
    const option = (o: Record<string, unknown>) => ({
      name: "x",
      description: "d",
      options: [{ name: "o", description: "o", ...o }],
    });
    expect((await rest("POST", base, option({ type: 5, autocomplete: true }))).status).toBe(400);
    const withChoices = option({ type: 3, autocomplete: true, choices: [{ name: "a", value: "a" }] });
    expect((await rest("POST", base, withChoices)).status).toBe(400);
    expect((await rest("POST", base, option({ type: 3, autocomplete: true }))).status).toBe(201);
    const userId = fake.defaults!.userId;
    const channelId = fake.defaults!.channelId;
    expect(() => fake.runAutocomplete({ name: "x", focused: "nope", value: "", userId, channelId })).toThrow(
      /does not ask for autocomplete/,
    );
    const answer = async (choices: unknown) => {
      const i = fake.runAutocomplete({ name: "x", focused: "o", value: "a", userId, channelId });
      expect(i.payload.data.options).toEqual([{ name: "o", type: 3, value: "a", focused: true }]);
      const res = await fetch(`${fake.apiUrl}/v10/interactions/${i.id}/${i.token}/callback`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: 8, data: { choices } }),
      });
      return res.status;
    };
    const many = Array.from({ length: 26 }, (_, n) => ({ name: `c${n}`, value: `c${n}` }));
    expect(await answer(many)).toBe(400);
    expect(await answer([{ name: "x".repeat(101), value: "x" }])).toBe(400);
    expect(await answer([{ name: "x", value: "x".repeat(101) }])).toBe(400);
    expect(await answer(many.slice(0, 25))).toBe(204);
    // An autocomplete answer to a slash command is refused.
    const slash = fake.runSlashCommand({ name: "x", userId, channelId });
    const res = await fetch(`${fake.apiUrl}/v10/interactions/${slash.id}/${slash.token}/callback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: 8, data: { choices: [] } }),
    });
    expect(res.status).toBe(400);
  });

  test("unexpected 4xx are listed by assertNoUnexpectedErrors", async () => {
    await rest("GET", "/channels/1/messages");
    expect(() => fake.assertNoUnexpectedErrors()).toThrow(/GET \/channels\/1\/messages → 404/);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DiscordAPIError } from "discord.js";
import { connected } from "./test-client.ts";

let env: Awaited<ReturnType<typeof connected>>;
beforeAll(async () => {
  env = await connected();
});
afterAll(() => env.close());

describe("GET /guilds/:guildId/members/:userId", () => {
  test("discord.js guild.members.fetch(userId) gets the member with its roles; role changes show on the next forced fetch", async () => {
    const { fake, client, seed } = env;
    const role = fake.createRole({ guildId: seed.guildId, name: "helpers" }).id as string;
    const carol = fake.createUser({ username: "carol" }).id as string;
    fake.addMember({ guildId: seed.guildId, userId: carol, roles: [role], nick: "Caz" });
    const guild = client.guilds.cache.get(seed.guildId)!;
    const since = fake.calls.length;
    const member = await guild.members.fetch({ user: carol, force: true });
    expect(member.id).toBe(carol);
    expect(member.nickname).toBe("Caz");
    expect(member.user.username).toBe("carol");
    expect([...member.roles.cache.keys()].sort()).toEqual([role, seed.guildId].sort()); // plus @everyone
    const call = await fake.waitFor({ method: "GET", path: `/guilds/${seed.guildId}/members/${carol}`, since });
    expect(call.status).toBe(200);
    expect(call.response.roles).toEqual([role]);

    fake.addMember({ guildId: seed.guildId, userId: carol, roles: [] });
    const again = await guild.members.fetch({ user: carol, force: true });
    expect([...again.roles.cache.keys()]).toEqual([seed.guildId]);
  });

  test("a user who is not a member gets Discord's Unknown Member (10007); an unknown guild 10004", async () => {
    const { fake, client, seed } = env;
    const stranger = fake.createUser({ username: "stranger" }).id as string;
    const guild = client.guilds.cache.get(seed.guildId)!;
    const error = await guild.members.fetch({ user: stranger, force: true }).catch((e) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error.code).toBe(10007);
    expect(error.status).toBe(404);
    const noGuild: DiscordAPIError = await client.rest.get(`/guilds/1234567890/members/${stranger}`).then(
      () => {
        throw new Error("expected an error");
      },
      (e) => e,
    );
    expect(noGuild.code).toBe(10004);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DiscordAPIError } from "discord.js";
import { GatewayIntentBits } from "discord.js";
import { DEFAULT_INTENTS, connected, nextEvent } from "./test-client.ts";

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

describe("membership changes", () => {
  test("a removed member is Unknown Member (10007) afterwards; GUILD_MEMBER_REMOVE needs the GuildMembers intent", async () => {
    const { fake, client, seed } = env;
    const erin = fake.createUser({ username: "erin" }).id as string;
    fake.addMember({ guildId: seed.guildId, userId: erin });
    const since = fake.frames.length;
    fake.removeMember({ guildId: seed.guildId, userId: erin });
    const guild = client.guilds.cache.get(seed.guildId)!;
    const error = await guild.members.fetch({ user: erin, force: true }).catch((e) => e);
    expect(error.code).toBe(10007);
    // This client did not ask for GuildMembers: no member event was sent to it.
    expect(fake.frames.slice(since).filter((f) => f.t?.startsWith("GUILD_MEMBER"))).toEqual([]);
    expect(() => fake.removeMember({ guildId: seed.guildId, userId: erin })).toThrow(/not a member/);
  });

  test("with GuildMembers, role changes and removals are dispatched", async () => {
    const members = await connected({}, [...DEFAULT_INTENTS, GatewayIntentBits.GuildMembers]);
    try {
      const { fake, client, seed } = members;
      const role = fake.createRole({ guildId: seed.guildId, name: "deciders" }).id as string;
      const update = nextEvent(client, "guildMemberUpdate");
      fake.addMember({ guildId: seed.guildId, userId: seed.userId, roles: [role] });
      const [, updated] = (await update) as [unknown, { roles: { cache: Map<string, unknown> } }];
      expect(updated.roles.cache.has(role)).toBe(true);
      const removed = nextEvent(client, "guildMemberRemove");
      fake.removeMember({ guildId: seed.guildId, userId: seed.userId });
      const [member] = (await removed) as [{ id: string }];
      expect(member.id).toBe(seed.userId);
    } finally {
      await members.close();
    }
  });

  test("a deleted role leaves every member and GUILD_ROLE_DELETE reaches Guilds clients", async () => {
    const { fake, client, seed } = env;
    const role = fake.createRole({ guildId: seed.guildId, name: "temp" }).id as string;
    const fay = fake.createUser({ username: "fay" }).id as string;
    fake.addMember({ guildId: seed.guildId, userId: fay, roles: [role] });
    const deleted = nextEvent(client, "roleDelete");
    fake.deleteRole({ guildId: seed.guildId, roleId: role });
    const [gone] = (await deleted) as [{ id: string }];
    expect(gone.id).toBe(role);
    const member = await client.guilds.cache.get(seed.guildId)!.members.fetch({ user: fay, force: true });
    expect([...member.roles.cache.keys()]).toEqual([seed.guildId]);
    expect(() => fake.deleteRole({ guildId: seed.guildId, roleId: seed.guildId })).toThrow(/@everyone/);
  });
});

import { afterEach, beforeEach, expect, test } from "bun:test";
import { startFakeDiscord, type FakeDiscord } from "./fake.ts";

// Real Discord's file rules (https://docs.discord.com/developers/reference#uploading-files): files go
// as multipart `files[n]` beside `payload_json`, at most 10 on a message, each within the 10 MiB
// default upload limit (413, code 40005, when over).

let fake: FakeDiscord;
beforeEach(async () => {
  fake = await startFakeDiscord();
});
afterEach(() => fake.close());

/** A multipart create or edit, as discord.js sends one. */
async function upload(
  method: string,
  path: string,
  payload: unknown,
  files: Array<{ name: string; bytes: Uint8Array }>,
): Promise<{ status: number; json: any }> {
  const form = new FormData();
  form.set("payload_json", JSON.stringify(payload));
  files.forEach((f, i) => form.set(`files[${i}]`, new Blob([f.bytes]), f.name));
  const res = await fetch(`${fake.apiUrl}/v10${path}`, {
    method,
    headers: { authorization: `Bot ${fake.token}` },
    body: form,
  });
  return { status: res.status, json: await res.json() };
}

const text = (s: string) => new TextEncoder().encode(s);
const card = {
  embeds: [{ title: "Approval needed: workspace.writeTool", description: "new monitor.ts" }],
  components: [{ type: 1, components: [{ type: 2, style: 3, label: "Approve", custom_id: "oa:approve:c1" }] }],
};

test("a message with embeds and buttons carries up to 10 files; the 11th is refused", async () => {
  const ch = `/channels/${fake.defaults!.channelId}/messages`;
  const ten = Array.from({ length: 10 }, (_, i) => ({ name: `f${i}.ts`, bytes: text(`export const x = ${i};`) }));
  const ok = await upload("POST", ch, card, ten);
  expect(ok.status).toBe(200);
  expect(ok.json.attachments.map((a: { filename: string }) => a.filename)).toEqual(ten.map((f) => f.name));
  expect(ok.json.components[0].components[0].custom_id).toBe("oa:approve:c1");

  fake.expectErrors({ status: 400, code: 50035 });
  const eleven = await upload("POST", ch, card, [...ten, { name: "f10.ts", bytes: text("x") }]);
  expect(eleven.status).toBe(400);
  expect(JSON.stringify(eleven.json.errors)).toContain("BASE_TYPE_MAX_LENGTH");
  expect(fake.messages(fake.defaults!.channelId)).toHaveLength(1);
  expect(fake.unexpectedErrors).toEqual([]);
});

test("a file over the 10 MiB default upload limit is refused with 413 / 40005", async () => {
  const ch = `/channels/${fake.defaults!.channelId}/messages`;
  fake.expectErrors({ status: 413, code: 40005 });
  const big = await upload("POST", ch, card, [{ name: "big.ts", bytes: new Uint8Array(10 * 1024 * 1024 + 1) }]);
  expect(big.status).toBe(413);
  expect(big.json.code).toBe(40005);
  const atLimit = await upload("POST", ch, card, [{ name: "max.ts", bytes: new Uint8Array(10 * 1024 * 1024) }]);
  expect(atLimit.status).toBe(200);
  expect(fake.unexpectedErrors).toEqual([]);
});

test("an edit that would leave more than 10 attachments is refused and changes nothing", async () => {
  const ch = `/channels/${fake.defaults!.channelId}/messages`;
  const nine = Array.from({ length: 9 }, (_, i) => ({ name: `f${i}.ts`, bytes: text(String(i)) }));
  const sent = await upload("POST", ch, card, nine);
  fake.expectErrors({ status: 400, code: 50035 });
  const more = await upload("PATCH", `${ch}/${sent.json.id}`, { content: "changed" }, [
    { name: "a.ts", bytes: text("a") },
    { name: "b.ts", bytes: text("b") },
  ]);
  expect(more.status).toBe(400);
  const stored = fake.messages(fake.defaults!.channelId).find((m) => m.id === sent.json.id)!;
  expect(stored.content).toBe("");
  expect(stored.attachments).toHaveLength(9);
  // Keeping one of the nine and adding one is fine.
  const swap = await upload("PATCH", `${ch}/${sent.json.id}`, { attachments: [{ id: sent.json.attachments[0].id }] }, [
    { name: "new.ts", bytes: text("n") },
  ]);
  expect(swap.status).toBe(200);
  expect(swap.json.attachments.map((a: { filename: string }) => a.filename)).toEqual(["f0.ts", "new.ts"]);
  expect(fake.unexpectedErrors).toEqual([]);
});

test("a file in a channel where the bot lacks ATTACH_FILES is refused with 50013 and nothing is posted; text still goes", async () => {
  const { guildId, channelId } = fake.defaults!;
  const other = fake.createUser({ username: "owner" });
  const g = fake.createGuild({ ownerId: other.id });
  const ch = fake.createChannel({ guildId: g.id });
  const path = `/channels/${ch.id}/messages`;
  const file = [{ name: "input.json", bytes: text("{}") }];
  // A new guild's @everyone may attach files, so the bot (no role) may too.
  expect((await upload("POST", path, card, file)).status).toBe(200);
  // Denied on the channel for @everyone: the upload is refused, as on Discord, plain text is not.
  fake.setPermissionOverwrite(ch.id, { id: g.id, type: 0, deny: 1n << 15n });
  const refused = await upload("POST", path, card, file);
  expect([refused.status, refused.json.code, refused.json.message]).toEqual([403, 50013, "Missing Permissions"]);
  expect(fake.messages(ch.id).map((m) => m.attachments.length)).toEqual([1]);
  expect((await upload("POST", path, { content: "no file" }, [])).status).toBe(200);
  // An edit that adds a file is refused the same way.
  const posted = fake.messages(ch.id).at(-1)!;
  expect((await upload("PATCH", `${path}/${posted.id}`, { content: "edit" }, file)).json.code).toBe(50013);
  // A member overwrite for the bot gives it back.
  fake.setPermissionOverwrite(ch.id, { id: fake.botId, type: 1, allow: 1n << 15n });
  expect((await upload("POST", path, card, file)).status).toBe(200);
  // In the seeded guild: a role of the bot's whose overwrite allows it beats the @everyone deny.
  const role = fake.createRole({ guildId, name: "bots" });
  fake.addMember({ guildId, userId: fake.botId, roles: [role.id as string] });
  fake.setPermissionOverwrite(channelId, { id: guildId, type: 0, deny: 1n << 15n });
  const seeded = `/channels/${channelId}/messages`;
  expect((await upload("POST", seeded, card, file)).json.code).toBe(50013);
  fake.setPermissionOverwrite(channelId, { id: role.id as string, type: 0, allow: 1n << 15n });
  expect((await upload("POST", seeded, card, file)).status).toBe(200);
  expect(fake.unexpectedErrors).toEqual([]);
});

/**
 * What deciding on fresh facts costs in a DM: "Deny with reason" must answer with its form, so the
 * approver check comes first. A user-id approver needs no lookup (baseline); an approver through a
 * role is looked up in the guild (`GET /guilds/:id/members/:user`) on every click. Measures click →
 * form (Discord's window: 3 s) and the REST requests per click.
 * Run: bun bench/fresh-roles.bench.ts
 */
import { fmtMs, printTable } from "./lib.ts";
import { cardCallId, eventually, findCard, startDiscordE2E, toolThenAnswer } from "../apps/gateway/test/discord-e2e.ts";

const ITER = 20;
let dave = "";
const e = await startDiscordE2E({
  settings: { approvalTimeoutMs: 60_000 },
  setup(fake, ids) {
    const deciders = fake.createRole({ guildId: ids.guildId, name: "deciders" }).id as string;
    dave = fake.createUser({ username: "dave" }).id as string;
    fake.addMember({ guildId: ids.guildId, userId: dave, roles: [deciders] });
    return { allowedUsers: [ids.alice, dave], approvers: [ids.alice, deciders] };
  },
});

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(userId: string, label: string) {
  const dm = e.fake.dmChannelId(userId);
  e.h.api.script(toolThenAnswer(`return await tools.notes.write({ text: "${label}" })`, () => `done ${label}`));
  e.fake.sendUserMessage({ dmFrom: userId, content: `save ${label}` });
  const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "card", 20_000);
  const callId = cardCallId(card);
  const samples: number[] = [];
  const since = e.fake.calls.length;
  for (let i = 0; i < ITER + 3; i++) {
    const cb = await e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${callId}`, userId }).callback();
    if (cb.type !== 9) throw new Error(`${label}: expected the form, got callback type ${cb.type}`);
    if (i >= 3) samples.push(cb.latencyMs);
  }
  const lookups = e.fake.calls.slice(since).filter((c) => c.path.includes("/members/")).length;
  await e.fake.clickButton({ messageId: card.id, customId: `oa:deny:${callId}`, userId }).callback();
  await eventually(() => e.fake.messages(dm).some((m) => String(m.content).startsWith(`done ${label}`)), "answer");
  return { samples, lookups: lookups / (ITER + 3) };
}

// Measured twice in alternating order, so warm-up and a busy machine weigh on both alike.
const byId = await measure(e.ids.alice, "by-id");
const byRole = await measure(dave, "by-role");
const byRole2 = await measure(dave, "by-role-2");
const byId2 = await measure(e.ids.alice, "by-id-2");
byId.samples.push(...byId2.samples);
byRole.samples.push(...byRole2.samples);
printTable("Deny with reason in a DM: click → form", [
  {
    metric: "approver by user id (baseline: no lookup)",
    median: fmtMs(median(byId.samples)),
    max: fmtMs(Math.max(...byId.samples)),
    "member fetches per click": byId.lookups,
  },
  {
    metric: "approver by role (fresh member fetch per click)",
    median: fmtMs(median(byRole.samples)),
    max: fmtMs(Math.max(...byRole.samples)),
    "member fetches per click": byRole.lookups,
  },
]);
await e.close().catch((x) => console.log(`note: ${x instanceof Error ? x.message.split("\n")[0] : String(x)}`));
process.exit(0);

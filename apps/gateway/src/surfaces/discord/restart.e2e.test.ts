import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import {
  cardCallId,
  decisionField,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
  trailOf,
} from "../../../test/discord-e2e.ts";

let e: DiscordE2E;
let dm: string;
let child: ReturnType<typeof Bun.spawn> | undefined;
// Starting and restarting a gateway (sandbox and checker processes) is slow on a busy 2-core machine.
beforeAll(async () => {
  e = await startDiscordE2E();
  dm = e.fake.dmChannelId(e.ids.alice);
}, 30_000);
afterAll(async () => {
  child?.kill("SIGKILL");
  await e.close();
}, 30_000);

async function pendingCard(text: string) {
  // Only the tool call: the turn never gets to answer (restart/crash ends it).
  e.h.api.script(toolThenAnswer(`return await tools.notes.write({ text: ${JSON.stringify(text)} })`).slice(0, 1));
  const before = new Set(e.fake.messages(dm).map((m) => m.id));
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: `save ${text}` });
  return eventually(() => {
    const c = findCard(e.fake, dm, "notes.write");
    return c && !before.has(c.id) ? c : undefined;
  }, "a pending card");
}

const closed = (id: string) =>
  eventually(
    () => {
      const m = e.fake.message(id)!;
      return m.components.length === 0 && m;
    },
    "the card to be closed",
    20_000,
  );

describe("restart", () => {
  test("a graceful restart with a pending card closes it; clicking the old card afterwards changes nothing", async () => {
    const card = await pendingCard("G1");
    const callId = cardCallId(card);
    await e.restart();
    expect(decisionField(await closed(card.id))).toContain("Closed:");
    expect((await e.h.gateway.approvals.get(callId))!.decision!.decision).toBe("denied");
    const click = e.fake.clickButton({
      messageId: card.id,
      customId: `oa:approve:${callId}`,
      userId: e.ids.alice,
      force: true,
    });
    await click.callback();
    expect((await e.h.gateway.approvals.get(callId))!.decision!.decision).toBe("denied");
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:G1");
  }, 60_000);

  test("#30: after a crash (SIGKILL) the old card still decides the resumed run: the tool runs once, the answer reaches the DM, receipts verify", async () => {
    await e.surface.stop();
    await e.h.gateway.shutdown();
    child = Bun.spawn(["bun", join(import.meta.dir, "fixtures", "crash-child.ts")], {
      env: {
        ...process.env,
        OA_DIR: e.h.dir,
        OA_CONFIG_DIR: e.h.configDir,
        OA_ANTHROPIC_URL: e.h.api.url,
        OA_DISCORD_API: e.fake.apiUrl,
        OA_DISCORD_CONFIG: JSON.stringify(e.config),
      },
      stdout: "pipe",
      stderr: "inherit",
    });
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain("ready");
    const card = await pendingCard("K1");
    const callId = cardCallId(card);
    child.kill("SIGKILL");
    await child.exited;

    await e.restart();
    // The card is not closed: the run it belongs to resumes (serve.ts starts it once the surface is up).
    expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");
    e.h.api.script([textTurn("Saved K1.")]);
    const before = new Set(e.fake.messages(dm).map((m) => m.id));
    const resumed = e.h.gateway.resumeInterrupted();
    await eventually(async () => (await trailOf(e, callId)).length === 2, "the resumed run to ask again");
    const click = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.alice });
    await click.callback();
    await eventually(() => decisionField(e.fake.message(card.id))?.includes("Approved by"), "the old card edited");
    expect(await resumed).toEqual([{ runId: expect.any(String), ok: true }]);
    expect(e.ran.filter((r) => r.what === "notes.write:K1")).toHaveLength(1);
    expect((await trailOf(e, callId)).map((r) => r.phase)).toEqual([
      "requested",
      "requested",
      "approved",
      "started",
      "succeeded",
    ]);
    expect((await e.h.gateway.receipts.verify()).ok).toBe(true);
    const answer = await eventually(
      () => e.fake.messages(dm).find((m) => !before.has(m.id) && m.content?.includes("Saved K1.")),
      "the resumed turn's answer in the DM",
    );
    expect(answer.content).toContain("Saved K1.");
    // Asked again under the same call id: the old card is its card, no second one was posted.
    const cardsSince = e.fake
      .messages(dm)
      .filter((m) => !before.has(m.id) && m.embeds?.[0]?.title?.startsWith("Approval needed"));
    expect(cardsSince).toEqual([]);
  }, 60_000);
});

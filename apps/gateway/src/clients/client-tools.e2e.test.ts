/**
 * #34 end to end: a user's client in its own process (the real @openassistant/client over a real
 * WebSocket) registers two tools and bridges @modelcontextprotocol/server-everything; a turn the
 * fake model drives calls them through the gateway's approvals, shown as cards on the fake Discord.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { textTurn, toolUseTurn, type RecordedRequest } from "@openassistant/testkit";
import { cardCallId, eventually, findCard, startDiscordE2E, trailOf, type DiscordE2E } from "../../test/discord-e2e.ts";
import { openClientTokens } from "./tokens.ts";

const CHILD = join(import.meta.dir, "../../test/clients/client-process.ts");
const EVERYTHING = Bun.resolveSync(
  "@modelcontextprotocol/server-everything/dist/index.js",
  join(import.meta.dir, "../../../../packages/testkit/src"),
);

type Line = Record<string, any>;

/** The client process: what it printed so far, and a way to give it commands. */
interface ClientProcess {
  readonly lines: Line[];
  readonly proc: ReturnType<typeof Bun.spawn>;
  command(c: Record<string, unknown>): void;
  next(what: string, match: (l: Line) => boolean): Promise<Line>;
}

function startClient(url: string, token: string): ClientProcess {
  const proc = Bun.spawn([process.execPath, CHILD], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, OA_GATEWAY_URL: url, OA_CLIENT_TOKEN: token, OA_EVERYTHING: EVERYTHING },
  });
  const lines: Line[] = [];
  void (async () => {
    let buffered = "";
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      buffered += new TextDecoder().decode(chunk);
      for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
        lines.push(JSON.parse(buffered.slice(0, i)) as Line);
        buffered = buffered.slice(i + 1);
      }
    }
  })();
  let seen = 0;
  return {
    lines,
    proc,
    command(c) {
      (proc.stdin as import("bun").FileSink).write(`${JSON.stringify(c)}\n`);
      (proc.stdin as import("bun").FileSink).flush();
    },
    async next(what, match) {
      const found = await eventually(() => lines.slice(seen).find(match), what);
      seen = lines.indexOf(found) + 1;
      return found;
    },
  };
}

const systemText = (req: RecordedRequest) => JSON.stringify(req.body.system);

let e: DiscordE2E;
let approverDm: string;
let client: ClientProcess;
let token: string;

beforeAll(async () => {
  e = await startDiscordE2E({
    settings: {
      http: { port: 0 },
      clients: { graceMs: 1_000 },
      // The operator makes the bridged sum tool automatic; every other client tool asks.
      policy: [{ match: "client.everything_get_sum", mode: "auto" }],
    },
  });
  approverDm = e.fake.dmChannelId(e.ids.alice);
  token = openClientTokens(e.h.gateway.settings.dataDir).create("laptop").token;
  client = startClient(e.h.gateway.http!.url, token);
});
afterAll(async () => {
  client?.proc.kill();
  await e.close();
});

describe("client tools", () => {
  test("two own tools and a bridged MCP server are registered; the policy, not the client, decides approval", async () => {
    const ready = await client.next("the client's session", (l) => "ready" in l);
    const tools = ready.registered.tools as Array<{ path: string; approval: string }>;
    const approvalOf = (path: string) => tools.find((t) => t.path === path)?.approval;
    // notes_write asked for "auto" in its defineTool: the gateway's default for client tools is "required".
    expect(approvalOf("client.notes_write")).toBe("required");
    expect(approvalOf("client.read_file")).toBe("required");
    expect(approvalOf("client.everything_get_sum")).toBe("auto");
    expect(approvalOf("client.everything_echo")).toBe("required");
    expect(ready.registered.refused).toEqual([]);
  });

  test("a turn calls both own tools after Approve on the fake Discord and the bridged tool without a card; receipts and grounding", async () => {
    e.h.api.script([
      toolUseTurn({
        id: "toolu_client_1",
        name: "execute",
        input: {
          code: `const saved = await tools.client.notes_write({ text: "N1" });
const file = await tools.client.read_file({ path: "/etc/motd" });
const sum = await tools.client.everything_get_sum({ a: 2, b: 3 });
return { saved, file, sum };`,
        },
      }),
      (req) => textTurn(`Done: ${JSON.stringify(req.body.messages.at(-1).content[0].content).slice(0, 400)}`),
    ]);
    client.command({ ask: "save N1, read motd and add 2 and 3" });

    const card1 = await eventually(() => findCard(e.fake, approverDm, "client.notes_write"), "the notes_write card");
    expect(card1.embeds[0].description).toContain("Write a note on the user's laptop");
    expect(JSON.stringify(card1.embeds[0].fields)).toContain("client:laptop");
    // Nothing ran on the client before the decision.
    expect(client.lines.some((l) => l.ran === "notes_write:N1")).toBe(false);
    const approval = await client.next("the approval streamed to the client", (l) => l.approval?.state === "requested");
    expect(approval.approval.tool).toBe("client.notes_write");
    const id1 = cardCallId(card1);
    await e.fake.clickButton({ messageId: card1.id, customId: `oa:approve:${id1}`, userId: e.ids.alice }).callback();
    await client.next("notes_write ran on the client", (l) => l.ran === "notes_write:N1");

    const card2 = await eventually(() => findCard(e.fake, approverDm, "client.read_file"), "the read_file card");
    const id2 = cardCallId(card2);
    await e.fake.clickButton({ messageId: card2.id, customId: `oa:approve:${id2}`, userId: e.ids.alice }).callback();

    const answer = (await client.next("the answer", (l) => "answer" in l)).answer;
    expect(answer.stopReason).toBe("answered");
    expect(answer.text).toContain("contents of /etc/motd");
    expect(answer.text).toContain("The sum of 2 and 3 is 5");
    expect(answer.summaryText).toContain("client.notes_write");
    expect(answer.summaryText).toContain("client.everything_get_sum");
    expect(client.lines.some((l) => typeof l.text === "string" && l.text.startsWith("Done:"))).toBe(true);
    expect(findCard(e.fake, approverDm, "client.everything_get_sum")).toBeUndefined();

    expect((await trailOf(e, id1)).map((r) => r.phase)).toEqual(["requested", "approved", "started", "succeeded"]);
    const trail2 = await trailOf(e, id2);
    expect(trail2.map((r) => r.phase)).toEqual(["requested", "approved", "started", "succeeded"]);
    expect(trail2.at(-1)!.sessionId).toBeTruthy();
    // The model saw the client's tools declared from their schemas.
    const first = e.h.api.requests.find((r) => JSON.stringify(r.body.messages).includes("save N1"))!;
    expect(systemText(first)).toContain("notes_write");
    expect(systemText(first)).toContain("everything_get_sum");
  });

  test("another session does not see the client's tools, and cannot call them", async () => {
    e.h.api.script([
      toolUseTurn({
        id: "toolu_other",
        name: "execute",
        input: { code: `return await tools.client.notes_write({ text: "X" })` },
      }),
      (req) => textTurn(`other: ${JSON.stringify(req.body.messages.at(-1).content[0].content).slice(0, 300)}`),
    ]);
    const before = e.h.api.requests.length;
    e.fake.sendUserMessage({ dmFrom: e.ids.bob, content: "write X with the laptop" });
    const bobDm = e.fake.dmChannelId(e.ids.bob);
    const reply = await eventually(
      () => e.fake.messages(bobDm).find((m) => String(m.content).startsWith("other:")),
      "bob's answer",
    );
    const request = e.h.api.requests[before]!;
    expect(systemText(request)).not.toContain("notes_write");
    expect(reply.content).toContain("typecheck");
    expect(client.lines.some((l) => l.ran === "notes_write:X")).toBe(false);
  });

  test("hostile names are refused and shown escaped; a hostile description is escaped in the declarations and on the card", async () => {
    client.command({ hostile: true });
    const reg = (await client.next("the hostile registration", (l) => "registered" in l && !("ready" in l))).registered;
    const refused = reg.refused as Array<{ name: string; reason: string }>;
    expect(refused.map((r) => r.name).sort()).toEqual(["a.b", "evil\\u{202E}gnp.exe", "then"]);
    expect(JSON.stringify(reg)).not.toContain("\u202E");
    const paths = reg.tools.map((t: { path: string }) => t.path);
    expect(paths).toContain("client.odd_tool");
    expect(paths.filter((p: string) => !/^client\.[A-Za-z0-9_]+$/.test(p))).toEqual([]);

    e.h.api.script([
      toolUseTurn({ id: "toolu_odd", name: "execute", input: { code: "return await tools.client.odd_tool({})" } }),
      textTurn("ok"),
    ]);
    const before = e.h.api.requests.length;
    client.command({ ask: "what can you do" });
    // The approval card shows the description escaped: the operator sees the override character.
    const card = await eventually(() => findCard(e.fake, approverDm, "client.odd_tool"), "the odd_tool card");
    expect(card.embeds[0].description).toContain("Reads \\u{202E}txt.exe");
    expect(JSON.stringify(card)).not.toContain("\u202E");
    await e.fake
      .clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice })
      .callback();
    await client.next("the answer", (l) => l.answer?.text === "ok");
    const system = systemText(e.h.api.requests[before]!);
    expect(system).toContain("odd_tool");
    expect(system).not.toContain("\u202E");
    expect(system).toContain("\\\\u{202E}");
    expect(system).not.toContain("*/ declare const pwned");
  });

  test("a client that disconnects mid-call: the call fails naming the disconnect once the grace period ends", async () => {
    e.h.api.script([
      toolUseTurn({
        id: "toolu_hang",
        name: "execute",
        input: { code: `return await tools.client.read_file({ path: "/hang" })` },
      }),
      textTurn("after the disconnect"),
    ]);
    client.command({ ask: "read /hang" });
    const card = await eventually(
      () =>
        e.fake
          .messages(approverDm)
          .findLast(
            (m) =>
              m.embeds?.[0]?.title === "Approval needed: client.read_file" &&
              JSON.stringify(m.components ?? []).includes("oa:approve:"),
          ),
      "the read_file card",
    );
    const callId = cardCallId(card);
    await e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.alice }).callback();
    // The client runs the call (it never ends there) and is killed meanwhile.
    await client.next("the call running on the client", (l) => l.ran === "read_file:/hang");
    client.proc.kill("SIGKILL");
    const failed = await eventually(
      async () => (await trailOf(e, callId)).find((r) => r.phase === "failed"),
      "the call's failure",
    );
    expect(JSON.stringify(failed)).toContain("the client disconnected and did not come back within 1 s");
  });
});

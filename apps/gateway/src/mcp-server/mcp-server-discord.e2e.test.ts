/**
 * An MCP client's call to a tool that needs approval is decided on Discord like any other: the
 * real discord.js surface on the fake Discord posts the card to the approvers (the call belongs to
 * no Discord conversation, so it goes to their DMs), a click approves, and the client gets the result.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  cardCallId,
  type DiscordE2E,
  decisionField,
  eventually,
  findCard,
  startDiscordE2E,
} from "../../test/discord-e2e.ts";
import { openMcpTokens } from "./tokens.ts";

setDefaultTimeout(30_000);

let e: DiscordE2E;
let client: Client;

beforeAll(async () => {
  e = await startDiscordE2E({
    settings: {
      mcpServer: { port: 0, host: "127.0.0.1", tools: ["notes.*"], maxRequestBytes: 65_536, maxSessions: 4 },
    },
  });
  const token = openMcpTokens(join(e.h.dir, ".openassistant", "data")).create("desktop");
  client = new Client({ name: "desktop-assistant", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(e.h.gateway.mcpServer!.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await e?.close();
});

test("a required tool called over MCP waits for a click on the Discord card, then the client gets its result", async () => {
  const call = client.callTool({ name: "notes.write", arguments: { text: "from the editor" } });
  const dm = e.fake.dmChannelId(e.ids.alice);
  const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the approval card in the approver's DM");
  expect(JSON.stringify(card.embeds)).toContain("mcp:desktop");
  expect(e.ran).toEqual([]); // nothing runs before the click
  await e.fake
    .clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice })
    .callback();
  const result = await call;
  expect(result.isError).toBeFalsy();
  expect((result.content as Array<{ text: string }>)[0]!.text).toBe('{"saved":"from the editor"}');
  expect(e.ran.map((r) => r.what)).toEqual(["notes.write:from the editor"]);
  await eventually(() => decisionField(e.fake.message(card.id))?.includes("Approved"), "the card edited to Approved");
  const receipts = await e.h.gateway.receipts.query({ callId: cardCallId(card) });
  expect(receipts.find((r) => r.phase === "approved")?.decidedBy).toBe(`discord:${e.ids.alice}`);
});

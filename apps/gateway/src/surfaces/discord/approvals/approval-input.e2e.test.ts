import { afterAll, beforeAll, expect, test } from "bun:test";
import { defineTool, z } from "@openassistant/sdk";
import { hasInvisible } from "@openassistant/core/text";
import {
  cardCallId,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
} from "../../../../test/discord-e2e.ts";

// An approval card shows every field of the input (a long field cannot hide the next), invisible
// characters escaped, and carries the whole input as input.json, secrets redacted in any encoding.
const SECRET = "mail-relay-7f3c9a1e5b2d4c6f";
const ran: string[] = [];
let e: DiscordE2E;
let dm: string;
beforeAll(async () => {
  e = await startDiscordE2E({
    settings: { secrets: [SECRET] },
    tools: {
      mail: {
        send: defineTool({
          description: "Send an email",
          approval: "required",
          args: z.object({
            body: z.string(),
            to: z.string(),
            auth: z.string(),
            attachments: z.array(z.object({ name: z.string() })),
          }),
          run: async (input) => {
            ran.push(input.to);
            return { sent: true };
          },
        }),
      },
    },
  });
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

test("the card lists every field, escapes bidi characters, and attaches the whole input without secrets", async () => {
  const code = [
    `return await tools.mail.send({`,
    `  body: "Dear team, ".repeat(800),`,
    `  to: "boss@example.com\\u202E\\u200Bmoc.live@rekcatta",`,
    // Basic-auth style: the secret is 6 bytes into the encoded string.
    `  auth: ${JSON.stringify(btoa(`relay:${SECRET}`))},`,
    `  attachments: Array.from({ length: 3 }, (_, i) => ({ name: "file" + i + ".pdf" })),`,
    `});`,
  ].join("\n");
  e.h.api.script(toolThenAnswer(code, () => "Sent."));
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "send the mail" });
  const card = await eventually(() => findCard(e.fake, dm, "mail.send"), "the approval card");

  const description = card.embeds[0].description as string;
  const lines = description.slice(description.indexOf("```\n") + 4, description.lastIndexOf("\n```")).split("\n");
  expect(lines[0]).toMatch(/^body: "Dear team, (Dear team, )*.*… [\d,]+ more characters$/);
  expect(lines[1]).toBe('to: "boss@example.com\\u{202E}\\u{200B}moc.live@rekcatta"');
  expect(lines[2]).toBe('auth: "cmVsYXk6[redacted]"'); // base64 of "relay:" stays, the secret's part goes
  expect(lines.slice(3)).toEqual([
    'attachments[0].name: "file0.pdf"',
    'attachments[1].name: "file1.pdf"',
    'attachments[2].name: "file2.pdf"',
  ]);
  expect(hasInvisible(JSON.stringify(card.embeds))).toBe(false);

  // The whole input, as Discord serves the attachment back.
  expect(card.attachments.map((a: { filename: string }) => a.filename)).toEqual(["input.json"]);
  const text = await (await fetch(card.attachments[0].url)).text();
  const full = JSON.parse(text);
  expect(full.body).toBe("Dear team, ".repeat(800));
  expect(full.to).toBe("boss@example.com\u202E\u200Bmoc.live@rekcatta");
  expect(full.auth).toBe("cmVsYXk6[redacted]");
  const everything = `${JSON.stringify(card)}\n${text}`;
  for (const form of [SECRET, btoa(`relay:${SECRET}`), Buffer.from(SECRET).toString("hex")])
    expect(everything).not.toContain(form);

  // Approving edits the card; the file and the input shown stay.
  const callId = cardCallId(card);
  await e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.alice }).callback();
  await eventually(() => ran.length === 1, "the tool run");
  const edited = await eventually(() => {
    const m = e.fake.message(card.id);
    return m && (m.components ?? []).length === 0 ? m : undefined;
  }, "the edited card");
  expect(edited.attachments.map((a: { filename: string }) => a.filename)).toEqual(["input.json"]);
  expect(edited.embeds[0].description).toBe(description);
}, 20_000);

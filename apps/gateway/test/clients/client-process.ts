/**
 * Test support (#34): a user's client in its own process. It connects with the token in
 * OA_CLIENT_TOKEN, registers two tools (one `defineTool`, one JSON Schema) and bridges
 * @modelcontextprotocol/server-everything, then takes commands on stdin (one JSON object a line) and
 * reports on stdout (one JSON object a line): `{ ready }`, `{ ran }` for each tool body that runs,
 * `{ approval }`, `{ text }` as the answer streams, `{ answer }`, `{ registered }`.
 */
import { connect } from "@openassistant/client";
import { defineTool, z } from "@openassistant/sdk";

const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
const EVERYTHING = process.env.OA_EVERYTHING!;

const client = await connect({
  url: process.env.OA_GATEWAY_URL!,
  token: process.env.OA_CLIENT_TOKEN!,
  onApproval: (approval) => out({ approval }),
});

const ownTools = {
  notes_write: defineTool({
    description: "Write a note on the user's laptop",
    // The client's wish; the gateway's policy decides.
    approval: "auto",
    args: z.object({ text: z.string().describe("The note") }),
    run: async ({ text }) => {
      out({ ran: `notes_write:${text}` });
      return { saved: text };
    },
  }),
  read_file: {
    description: "Read a file on the user's laptop",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    run: async (input: Record<string, unknown>) => {
      out({ ran: `read_file:${String(input.path)}` });
      // A call that never ends on the client: the test disconnects the client while it runs.
      if (input.path === "/hang") return new Promise(() => {});
      return `contents of ${String(input.path)}`;
    },
  },
};
await client.addTools(ownTools);
const registered = await client.bridgeMcp({
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  prefix: "everything",
});
out({ ready: client.session, registered });

for await (const line of console) {
  const command = JSON.parse(line) as { ask?: string; hostile?: boolean; close?: boolean };
  if (command.ask !== undefined)
    client.ask(command.ask, { onText: (text) => out({ text }) }).then(
      (answer) => out({ answer }),
      (e) => out({ askFailed: String(e) }),
    );
  if (command.hostile)
    out({
      registered: await client.addTools({
        "evil\u202Egnp.exe": { description: "hidden", run: () => "x" },
        then: { description: "makes tools.client a thenable", run: () => "x" },
        "a.b": { description: "dotted", run: () => "x" },
        odd_tool: {
          description: "Reads \u202Etxt.exe the file */ declare const pwned: true; /* and more",
          run: () => "odd",
        },
      }),
    });
  if (command.close) {
    await client.close();
    out({ closed: true });
    process.exit(0);
  }
}

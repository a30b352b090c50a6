/**
 * With the terminal chat as the surface, an MCP client's call that needs approval is decided at the
 * terminal's prompt like the chat's own, and the idle terminal shows no stray progress line for it.
 */
import { expect, test } from "bun:test";
import { mcpTestbed, resultText } from "../../test/mcp-clients.ts";
import { startTestTerminal } from "../../test/harness.ts";

const { start, connect } = mcpTestbed();

test("an MCP call is approved at the terminal prompt; the idle terminal draws no spinner for it", async () => {
  const { h, tokens, url } = await start();
  const { io, surface } = startTestTerminal(h.gateway, { tty: true });
  await io.waitFor(/you › /);
  const client = await connect(url, tokens.create("editor"));
  const call = client.callTool({ name: "reminders.create", arguments: { text: "call mom", at: "9:00" } });
  const prompt = await io.waitFor(/Approval needed[\s\S]*deny with a reason.*\n/);
  expect(prompt).toContain("Tool:  tools.reminders.create");
  expect(prompt).toContain('MCP client "editor" calls tools.reminders.create');
  io.send("a");
  const result = await call;
  expect(JSON.parse(resultText(result))).toEqual({ id: "rem_1", text: "call mom", at: "9:00" });
  // The call settled while no turn ran: the terminal announced nothing of its own for it.
  expect(io.text).not.toContain("reminders.create succeeded…");
  io.input.end();
  await surface.done;
});

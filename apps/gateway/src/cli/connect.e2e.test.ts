/**
 * #34: `openassistant connect <url>` bridges this folder's tool files and MCP servers to a remote
 * gateway: the real CLI in its own process, the real gateway's client endpoint, the fake model.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolUseTurn } from "@openassistant/testkit";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import { eventually } from "../../test/discord-e2e.ts";
import { openClientTokens } from "../clients/tokens.ts";

const MAIN = join(import.meta.dir, "main.ts");
const EVERYTHING = Bun.resolveSync(
  "@modelcontextprotocol/server-everything/dist/index.js",
  join(import.meta.dir, "../../../../packages/testkit/src"),
);

let h: Harness;
beforeAll(async () => {
  // The operator lets this folder's tools run without a card (no surface here to approve on).
  h = await startHarness({ settings: { http: { port: 0 }, policy: [{ match: "client.*", mode: "auto" }] } });
});
afterAll(() => h.close());

test("connect bridges the folder's tool file and MCP server; a turn calls both; Ctrl-D ends the session", async () => {
  const project = makeTempDir("oa-connect-");
  mkdirSync(join(project, ".openassistant", "tools"), { recursive: true });
  writeFileSync(
    join(project, ".openassistant", "tools", "hello.ts"),
    `import { defineTool, z } from "@openassistant/sdk";
export default defineTool({
  description: "Greet someone from the user's machine",
  approval: "auto",
  args: z.object({ name: z.string() }),
  run: async ({ name }) => ({ greeting: "hello " + name, pid: process.pid }),
});
`,
  );
  writeFileSync(
    join(project, ".openassistant", "config.jsonc"),
    JSON.stringify({
      mcp: { servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], allowProcess: true } } },
    }),
  );
  const token = openClientTokens(h.gateway.settings.dataDir).create("cli").token;
  const proc = Bun.spawn([process.execPath, MAIN, "connect", h.gateway.http!.url, "--project", project], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, OPENASSISTANT_CLIENT_TOKEN: token },
  });
  let out = "";
  let err = "";
  void (async () => {
    for await (const c of proc.stdout as ReadableStream<Uint8Array>) out += new TextDecoder().decode(c);
  })();
  void (async () => {
    for await (const c of proc.stderr as ReadableStream<Uint8Array>) err += new TextDecoder().decode(c);
  })();
  await eventually(() => err.includes("Connected"), "the CLI's session");
  expect(err).toMatch(/Connected \(session cs_[\w-]+\): \d+ tool\(s\)/);

  h.api.script([
    toolUseTurn({
      id: "toolu_connect",
      name: "execute",
      input: {
        code: `const a = await tools.client.hello({ name: "Ada" });
const b = await tools.client.everything_echo({ message: "from afar" });
return { a, b };`,
      },
    }),
    (req) => textTurn(`Result: ${JSON.stringify(req.body.messages.at(-1).content[0].content).slice(0, 300)}`),
  ]);
  const sink = proc.stdin as import("bun").FileSink;
  sink.write("greet Ada and echo\n");
  sink.flush();
  // The answer and its activity block (which names the client's tool) may arrive in separate chunks.
  await eventually(() => out.includes("Result:") && out.includes("client.hello"), "the answer and its activity");
  expect(out).toContain("hello Ada");
  expect(out).toContain("from afar");
  // The tool ran in the CLI's process, not the gateway's.
  const pid = Number(/\\"pid\\":(\d+)/.exec(out)?.[1] ?? /"pid":(\d+)/.exec(out)?.[1]);
  expect(pid).toBe(proc.pid);
  expect(out).toContain("client.hello");
  sink.end();
  expect(await proc.exited).toBe(0);
});

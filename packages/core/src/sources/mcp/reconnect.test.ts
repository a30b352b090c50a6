import { afterAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { McpConnection } from "./connection.ts";

const dir = makeTempDir("mcp-reconnect");
const starts = join(dir, "starts.log");
const script = join(dir, "dies.ts");
// A stdio server that dies at once, noting each start.
writeFileSync(
  script,
  `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(starts)}, "started\\n");\nprocess.exit(3);\n`,
);
writeFileSync(starts, "");
const c = new McpConnection("dies", { command: process.execPath, args: [script], allowProcess: true });
afterAll(() => c.close());

const started = () => readFileSync(starts, "utf8").split("\n").filter(Boolean).length;
const failure = async () => ((await c.listTools().catch((e) => e)) as Error).message;

test("a server that cannot be reached is not started again before its backoff is over, which grows with each failure", async () => {
  expect(await failure()).toContain('could not connect to MCP server "dies"');
  expect(started()).toBe(1);
  // Within the first backoff (1 s): refused at once, nothing started.
  expect(await failure()).toBe('MCP server "dies" is unreachable; retrying in 1 s');
  expect(started()).toBe(1);
  await Bun.sleep(1_100);
  // After it: tried again, and the next backoff is longer (2 s).
  expect(await failure()).toContain('could not connect to MCP server "dies"');
  expect(started()).toBe(2);
  expect(await failure()).toBe('MCP server "dies" is unreachable; retrying in 2 s');
  expect(started()).toBe(2);
}, 30_000);

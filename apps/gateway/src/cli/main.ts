#!/usr/bin/env -S bun --no-install
import { defineCommand, runCommand } from "citty";
import { commandTable, unknownGroupFlag } from "./flags.ts";
import { lazyCommand, renderHelp, resolveCommandPath, useColor, type HelpNode } from "./help.ts";

const NAME = "openassistant";
const VERSION = "0.1.0";

/**
 * The `openassistant` CLI. Each command lives in ./commands/<name>.ts and is imported only when it
 * runs (or its own --help is asked for); the descriptions here are what `--help` shows without
 * importing anything (bench/cli.bench.ts keeps `--help` fast).
 */
export const main = defineCommand({
  meta: {
    name: NAME,
    version: VERSION,
    description: "A self-hosted assistant gateway: grounded, approval-gated, receipted tool calls",
  },
  subCommands: commandTable({
    start: lazyCommand(
      "Run the gateway: load config and tools, open the database, start Discord or the terminal chat",
      () => import("./commands/start.ts").then((m) => m.startCommand),
    ),
    chat: lazyCommand("Chat with the assistant in this terminal (approvals are answered here)", () =>
      import("./commands/chat.ts").then((m) => m.chatCommand),
    ),
    auth: lazyCommand("Manage model credentials (auth profiles)", () =>
      import("./commands/auth.ts").then((m) => m.authCommand),
    ),
    receipts: lazyCommand("List tool-call receipts (filter by run, tool, status, time)", () =>
      import("./commands/receipts.ts").then((m) => m.receiptsCommand),
    ),
    runs: lazyCommand("Runs left pending by a stopped gateway: `runs list --pending`, `runs cancel <run id>`", () =>
      import("./commands/runs.ts").then((m) => m.runsCommand),
    ),
    schedules: lazyCommand(
      "Schedules: `schedules list`, `schedules add --name … --cron …`, `schedules pause|resume|remove <id>`",
      () => import("./commands/schedules.ts").then((m) => m.schedulesCommand),
    ),
    db: lazyCommand("The PostgreSQL database of storage.url: schema `status`, `migrate`", () =>
      import("./commands/db.ts").then((m) => m.dbCommand),
    ),
    doctor: lazyCommand("Check config, credentials, Discord access, database, receipts and tools", () =>
      import("./commands/doctor.ts").then((m) => m.doctorCommand),
    ),
    init: lazyCommand(
      "Create .openassistant/ with a commented config.jsonc, an example tool and a tsconfig.json for editors",
      () => import("./commands/init.ts").then((m) => m.initCommand),
    ),
    tools: lazyCommand("Work with tools in .openassistant/tools/", () =>
      import("./commands/tools.ts").then((m) => m.toolsCommand),
    ),
    mcp: lazyCommand("MCP servers: log in to servers that use OAuth (authorization code + PKCE)", () =>
      import("./commands/mcp.ts").then((m) => m.mcpCommand),
    ),
    console: lazyCommand("Sign in to the operator console: `console login <operator-id>` prints a login link", () =>
      import("./commands/console.ts").then((m) => m.consoleCommand),
    ),
    clients: lazyCommand("Client tokens: `clients create <name>`, `clients list`, `clients revoke <name>`", () =>
      import("./commands/clients.ts").then((m) => m.clientsCommand),
    ),
    connect: lazyCommand("Bridge this folder's tools and MCP servers to a remote gateway and chat there", () =>
      import("./commands/connect.ts").then((m) => m.connectCommand),
    ),
    "mcp-server": lazyCommand("The gateway as an MCP server (mcpServer): `mcp-server token create|list|revoke`", () =>
      import("./commands/mcp-server.ts").then((m) => m.mcpServerCommand),
    ),
    plugins: lazyCommand("List tools and plugins; install what they import and the npm plugins in config.plugins", () =>
      import("./commands/plugins.ts").then((m) => m.pluginsCommand),
    ),
  }),
});

async function printHelp(rawArgs: readonly string[]): Promise<void> {
  const { node, path } = await resolveCommandPath(main as HelpNode, rawArgs);
  // console.log and isatty(1): touching process.stdout would build a Node stream (~10 ms of CPU).
  // node:tty is loaded here only: importing it costs ~13 ms that the other commands do not need.
  const { isatty } = require("node:tty") as typeof import("node:tty");
  console.log((await renderHelp(node, NAME, path, useColor({ isTTY: isatty(1) }), VERSION)).trimEnd());
}

if (import.meta.main) {
  const rawArgs = process.argv.slice(2);
  const beforeDashes = rawArgs.includes("--") ? rawArgs.slice(0, rawArgs.indexOf("--")) : rawArgs;
  if (rawArgs.length === 0 || beforeDashes.includes("--help") || beforeDashes.includes("-h")) {
    await printHelp(rawArgs);
    process.exit(0);
  }
  const flag = await unknownGroupFlag(main, rawArgs);
  if (flag) {
    console.error(`error: Unknown option "${flag}". Run with --help to see the commands and options.`);
    process.exit(1);
  }
  if (rawArgs.length === 1 && (rawArgs[0] === "--version" || rawArgs[0] === "-v")) {
    console.log(VERSION);
    process.exit(0);
  }
  try {
    await runCommand(main, { rawArgs });
  } catch (e) {
    // citty's usage errors (unknown command, missing argument): the usage, then one plain line.
    if ((e as { name?: string }).name === "CLIError") {
      await printHelp(rawArgs);
      console.error(`error: ${String((e as Error).message).replace(/\u001B\[\d+m/g, "")}`);
    } else console.error(e);
    process.exit(1);
  }
  // The command is done (`start` and `chat` exit on their own when the gateway stops): nothing it
  // left open, such as an MCP server's process or socket, keeps the CLI waiting.
  process.exit(process.exitCode ?? 0);
}

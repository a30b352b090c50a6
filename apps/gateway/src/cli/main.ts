#!/usr/bin/env -S bun --no-install
import { defineCommand, runMain } from "citty";
import { unknownGroupFlag } from "./flags.ts";

/** The `openassistant` CLI. Each command lives in ./commands/<name>.ts and is loaded only when used. */
export const main = defineCommand({
  meta: { name: "openassistant", version: "0.1.0", description: "A self-hosted assistant gateway: grounded, approval-gated, receipted tool calls" },
  subCommands: {
    start: () => import("./commands/start.ts").then((m) => m.startCommand),
    chat: () => import("./commands/chat.ts").then((m) => m.chatCommand),
    auth: () => import("./commands/auth.ts").then((m) => m.authCommand),
    receipts: () => import("./commands/receipts.ts").then((m) => m.receiptsCommand),
    doctor: () => import("./commands/doctor.ts").then((m) => m.doctorCommand),
    init: () => import("./commands/init.ts").then((m) => m.initCommand),
    tools: () => import("./commands/tools.ts").then((m) => m.toolsCommand),
    plugins: () => import("./commands/plugins.ts").then((m) => m.pluginsCommand),
  },
});

if (import.meta.main) {
  const flag = await unknownGroupFlag(main, process.argv.slice(2));
  if (flag) {
    console.error(`error: Unknown option "${flag}". Run with --help to see the commands and options.`);
    process.exit(1);
  }
  await runMain(main);
}

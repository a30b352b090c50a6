import { defineCommand } from "citty";
import { guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";
import { serve } from "../serve.ts";

const args = {
  project: PROJECT_ARG,
} as const;

/** `openassistant start` (= `bun start`): the gateway with Discord, or the terminal when no Discord token is configured. */
export const startCommand = defineCommand({
  meta: {
    name: "start",
    description: "Run the gateway: load config and tools, open the database, start Discord or the terminal chat",
  },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      await serve({
        cwd: resolveProject(a.project),
        env: process.env,
        surface: "auto",
        out: (l) => console.log(l),
        err: (l) => console.error(l),
      });
      // stdin can keep the event loop alive after the surface ended; everything is closed by now.
      if (!process.exitCode) process.exit(0);
      // A Discord start failure sets its documented exit code; stdin must not keep the process alive.
      if (typeof process.exitCode === "number" && process.exitCode !== 1) process.exit(process.exitCode);
    }),
});

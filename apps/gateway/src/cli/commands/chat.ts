import { defineCommand } from "citty";
import { guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";
import { serve } from "../serve.ts";

const args = {
  project: PROJECT_ARG,
} as const;

/** `openassistant chat`: the terminal surface, even when Discord is configured. */
export const chatCommand = defineCommand({
  meta: { name: "chat", description: "Chat with the assistant in this terminal (approvals are answered here)" },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      await serve({
        cwd: resolveProject(a.project),
        env: process.env,
        surface: "terminal",
        out: (l) => console.log(l),
        err: (l) => console.error(l),
      });
      // stdin can keep the event loop alive after the surface ended; everything is closed by now.
      if (!process.exitCode) process.exit(0);
    }),
});

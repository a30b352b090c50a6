import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import { displayPath } from "../display-path.ts";
import { CliError, guard, rejectUnknownFlags, commandTable } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";
import { toolTemplate } from "../templates.ts";

const createArgs = {
  name: {
    type: "positional",
    description: "Tool name: letters, digits, _ or - (file name; - becomes _ in the tool id)",
    required: true,
  },
  approval: {
    type: "enum",
    options: ["auto", "required"] as string[],
    description: "auto = runs at once; required = each call waits for approval",
    default: "auto",
  },
  project: PROJECT_ARG,
} as const;

const createCommand = defineCommand({
  meta: { name: "create", description: "Scaffold .openassistant/tools/<name>.ts" },
  args: createArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, createArgs);
      const name = String(a.name);
      if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name))
        throw new CliError(`"${name}" is not a valid tool name; use letters, digits, _ and -, starting with a letter`);
      if (a.approval !== "auto" && a.approval !== "required")
        throw new CliError(`--approval must be "auto" or "required" (got "${a.approval}")`);
      const root = resolveProject(a.project);
      const dir = join(root, ".openassistant", "tools");
      const file = join(dir, `${name}.ts`);
      if (existsSync(file))
        throw new CliError(`${displayPath(file)} already exists; pick another name or edit that file`);
      mkdirSync(dir, { recursive: true });
      const id = name.replace(/-/g, "_");
      writeFileSync(file, toolTemplate(id, a.approval as "auto" | "required"));
      console.log(
        `created ${displayPath(file)}\nIt is live at once as tools.${id}(...); until you fill in description, args and run, calls fail with "TODO: implement ${id}".`,
      );
    }),
});

/** `openassistant tools <subcommand>`. */
export const toolsCommand = defineCommand({
  meta: { name: "tools", description: "Work with tools in .openassistant/tools/" },
  subCommands: commandTable({ create: createCommand }),
});

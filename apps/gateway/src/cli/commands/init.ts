import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { defineCommand } from "citty";
import { displayPath } from "../display-path.ts";
import { loadGatewayConfig } from "../../config-schema.ts";
import { homedir } from "node:os";
import { configuredPluginDirs, writeEditorTsconfig } from "../editor-tsconfig.ts";
import { guard, rejectUnknownFlags } from "../flags.ts";
import { CONFIG_TEMPLATE, EXAMPLE_TOOL, WORKSPACE_GITIGNORE } from "../templates.ts";

const args = {
  project: {
    type: "string",
    description: "Directory to initialise (default: the current directory)",
    valueHint: "dir",
  },
  force: { type: "boolean", description: "Overwrite an existing config.jsonc", default: false },
} as const;

/** `openassistant init`: scaffolds `.openassistant/` with a commented config and an example tool. */
export const initCommand = defineCommand({
  meta: { name: "init", description: "Create .openassistant/ with a commented config.jsonc and an example tool" },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      const root = a.project ? resolve(process.cwd(), a.project) : process.cwd();
      const ws = join(root, ".openassistant");
      const written: string[] = [];
      const skipped: string[] = [];
      const put = (file: string, text: string, overwrite = false) => {
        if (existsSync(file) && !overwrite) return skipped.push(file);
        writeFileSync(file, text);
        written.push(file);
      };
      mkdirSync(join(ws, "tools"), { recursive: true });
      const hasConfig = existsSync(join(ws, "config.json"));
      if (hasConfig) skipped.push(join(ws, "config.json"));
      else put(join(ws, "config.jsonc"), CONFIG_TEMPLATE, a.force);
      put(join(ws, ".gitignore"), WORKSPACE_GITIGNORE);
      const hasTools = (await Array.fromAsync(new Bun.Glob("*.{ts,js}").scan(join(ws, "tools")))).length > 0;
      if (!hasTools) put(join(ws, "tools", "clock.ts"), EXAMPLE_TOOL);
      const tsconfig = writeEditorTsconfig(ws, await pluginDirsOf(root));
      if (tsconfig) written.push(tsconfig);
      const rel = (f: string) => displayPath(f);
      for (const f of written) console.log(`created ${rel(f)}`);
      for (const f of skipped)
        console.log(`kept    ${rel(f)} (already exists${f.endsWith("config.jsonc") ? "; --force overwrites" : ""})`);
      console.log(
        `\nNext: edit ${rel(join(ws, "config.jsonc"))}, add tools with \`openassistant tools create <name>\`, check them with \`openassistant plugins list\`.\nEditors type-check the tools through ${rel(join(ws, "tsconfig.json"))} (npm imports are installed by \`start\` or \`openassistant plugins install\`).`,
      );
    }),
});

/** The config's plugin folders, for the editor tsconfig; none while the config does not load. */
async function pluginDirsOf(root: string): Promise<string[]> {
  try {
    const { config, projectRoot } = await loadGatewayConfig({ cwd: root, env: process.env, unsetVars: "report" });
    return configuredPluginDirs(config.plugins, projectRoot, process.env.HOME ?? homedir());
  } catch {
    return [];
  }
}

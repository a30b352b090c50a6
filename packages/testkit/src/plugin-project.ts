import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition } from "@openassistant/sdk";
import { makeTempDir } from "./temp.ts";

/**
 * A temp project whose config loads one plugin folder with `config.<id>`, and the options core's
 * `loadTools` needs to load it in isolation (its own HOME and config dir, plus `env`).
 */
export function pluginProject(pluginDir: string, id: string, config: unknown, env: Record<string, string> = {}) {
  const root = makeTempDir(`oa-${id}-`);
  mkdirSync(join(root, ".openassistant"), { recursive: true });
  writeFileSync(
    join(root, ".openassistant/config.jsonc"),
    JSON.stringify({ plugins: [pluginDir], config: { [id]: config } }),
  );
  return {
    cwd: root,
    homeDir: root,
    env: { PATH: process.env.PATH ?? "", HOME: root, OPENASSISTANT_CONFIG_DIR: join(root, "global"), ...env },
  };
}

/** Runs a loaded tool as the invoker would: input parsed by its schema, a fresh context. */
export async function runLoadedTool(tool: ToolDefinition | undefined, path: string, input: unknown): Promise<unknown> {
  if (!tool) throw new Error(`no tool ${path} was loaded`);
  return tool.run(tool.args.parse(input), { signal: new AbortController().signal, callId: "call_test", log: console });
}

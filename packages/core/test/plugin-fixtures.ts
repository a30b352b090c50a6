/** Helpers for this folder's tests: real temp projects with files written from a map. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { LoadToolsOptions } from "../src/plugins/types.ts";

export interface TempProject {
  readonly root: string;
  readonly ws: string;
  readonly globalDir: string;
  readonly home: string;
  readonly opts: LoadToolsOptions;
  write(rel: string, text: string): string;
}

/** `files` keys are relative to the project root; `~/` prefixes go to the (temp) global config dir. */
export function tempProject(files: Record<string, string> = {}, env: Record<string, string> = {}): TempProject {
  const base = makeTempDir("oa-plugins-");
  const root = join(base, "proj");
  const home = join(base, "home");
  const globalDir = join(home, ".config", "openassistant");
  mkdirSync(join(root, ".openassistant"), { recursive: true });
  mkdirSync(globalDir, { recursive: true });
  const write = (rel: string, text: string) => {
    const p = rel.startsWith("~/") ? join(globalDir, rel.slice(2)) : join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
    return p;
  };
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  return {
    root,
    ws: join(root, ".openassistant"),
    globalDir,
    home,
    write,
    opts: { cwd: root, homeDir: home, env: { PATH: process.env.PATH ?? "", HOME: home, ...env }, log: () => {} },
  };
}

export const SDK_IMPORT = `import { defineTool, z } from "@openassistant/sdk";`;

/** Source of a tool file with one default-export tool. */
export function toolSource(
  description: string,
  approval: "auto" | "required" = "auto",
  result = `"${description}"`,
): string {
  return `${SDK_IMPORT}
export default defineTool({
  description: ${JSON.stringify(description)},
  approval: "${approval}",
  args: z.object({ q: z.string().optional() }),
  run: async () => ${result},
});
`;
}

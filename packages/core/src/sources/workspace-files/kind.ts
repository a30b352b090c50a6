import { join } from "node:path";
import { workspaceDir } from "../../config/paths.ts";
import { normalizeId } from "../../tools/plugin-id.ts";
import { type FileEntry, LAYER, type Origin, type SourceKind, type SourceKindContext } from "../kind.ts";
import { pluginEntry, pluginLookup } from "../plugin-packages/entries.ts";
import { listPluginDirs, listToolFiles, nonFileToolEntries } from "./files.ts";

/** The project's workspace (`.openassistant/`), then the global one unless it is the same folder. */
function workspaces(ctx: SourceKindContext): { root: string; origin: Origin; layer: number }[] {
  const project = workspaceDir(ctx.projectRoot);
  const out: { root: string; origin: Origin; layer: number }[] = [
    { root: project, origin: "project", layer: LAYER.project },
  ];
  if (ctx.globalDir !== project) out.push({ root: ctx.globalDir, origin: "global", layer: LAYER.global });
  return out;
}

/**
 * The workspaces' own files, project before global: tool modules (`tools/*.ts`, each at
 * `tools.<file name>`) and folder plugins (`plugins/<dir>`, each at `tools.<its id>`). No config key.
 */
export const workspaceFilesKind: SourceKind<"workspace files"> = {
  key: "workspace files",
  label: "workspace file",
  entries(_section, ctx) {
    const { validatorCache } = pluginLookup(ctx);
    const out: FileEntry[] = [];
    for (const { root, origin, layer } of workspaces(ctx)) {
      for (const d of nonFileToolEntries(join(root, "tools"), origin)) ctx.report(d);
      for (const file of listToolFiles(join(root, "tools"))) {
        const base = file.slice(file.lastIndexOf("/") + 1).replace(/\.[^.]+$/, "");
        out.push({ kind: "tool", id: normalizeId(base), origin, layer, source: file, file });
      }
      for (const dir of listPluginDirs(join(root, "plugins")))
        out.push(pluginEntry(dir, origin, layer, validatorCache));
    }
    return out;
  },
  watchDirs(_section, ctx) {
    const project = workspaceDir(ctx.projectRoot);
    return [
      join(project, "tools"),
      join(project, "plugins"),
      join(ctx.globalDir, "tools"),
      join(ctx.globalDir, "plugins"),
    ];
  },
};

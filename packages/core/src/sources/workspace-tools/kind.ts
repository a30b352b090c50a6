import { join } from "node:path";
import { workspaceDir } from "../../config/paths.ts";
import { defineSourceKind, LAYER, type SourceEntry, type SourceHost } from "../kind.ts";
import { workspaceConfigSchema } from "./config-schema.ts";

/** One set of workspace tools per host, made on the first pass: `config.workspace` is read once, at start. */
const madeFor = new WeakMap<SourceHost, readonly SourceEntry[]>();

/**
 * The gateway's own tools (`tools.workspace.*`: the assistant reads and writes its tool files), for
 * the gateway and for `plugins list`, so both count the same tools. A write reloads the tools and
 * reports what the file provides; without `host.reload` (listing) nothing is ever written.
 */
export const workspaceToolsKind = defineSourceKind({
  key: "workspace",
  label: "built-in tools",
  schema: workspaceConfigSchema,
  readOnce: true,
  layer: LAYER.builtin,
  async entries(section, ctx) {
    const host = ctx.host;
    if (!host) return [];
    const made = madeFor.get(host);
    if (made) return made;
    const entries = section.enabled ? [await workspaceToolsEntry(workspaceDir(ctx.projectRoot), host)] : [];
    madeFor.set(host, entries);
    return entries;
  },
});

async function workspaceToolsEntry(ws: string, host: SourceHost): Promise<SourceEntry> {
  const [{ toolHistory }, { workspaceTools }] = await Promise.all([
    import("../../workspace/index.ts"),
    import("../../workspace/workspace-tools.ts"),
  ]);
  const reload = host.reload ?? (() => Promise.reject(new Error("listing never writes tools")));
  return {
    id: "workspace",
    tools: workspaceTools({
      toolsDir: join(ws, "tools"),
      history: toolHistory(join(ws, "history")),
      // A file named like another source's namespace is refused before its card.
      owners: () => host.entries?.() ?? [],
      // Reloading installs what the new file imports (undeclared imports are added and installed).
      install: async () => {},
      reload: async (file: string) => {
        const s = await reload();
        const entry = s.entries.find((e) => e.source === file);
        const problems = s.diagnostics.filter((d) => d.source === file && d.level === "error").map((d) => d.message);
        return {
          problems,
          tools: entry?.status === "loaded" && !entry.stale ? entry.tools.map((t) => t.path) : [],
        };
      },
    }),
  };
}

import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { OpenAssistantConfig } from "../../config/schema.ts";
import type { SourceEntry as BundledPlugin } from "../kind.ts";
import type { SkippedTool } from "../source-budget.ts";
import { loadOpenApiSource } from "./load.ts";

/**
 * Time a spec's first parse may take: Microsoft Graph's 20 MB took 5-11 s on a busy 2-core
 * machine, past the 10 s a plugin factory gets. The work runs in slices (the gateway keeps
 * answering), and a restart reads the parse cache (about a second).
 */
export const OPENAPI_LOAD_TIMEOUT_MS = 120_000;

/** `config.openapi.<name>` entries as tool sources the loader mounts at `tools.<name>`. */
export function openApiBundles(
  entries: OpenAssistantConfig["openapi"],
  o: { projectRoot: string; cacheDir?: string },
): BundledPlugin[] {
  return Object.entries(entries ?? {})
    .filter(([, e]) => e.enabled)
    .map(([name, e]) => {
      const spec = /^https?:\/\//.test(e.spec) || isAbsolute(e.spec) ? e.spec : resolve(o.projectRoot, e.spec);
      let stamp = "";
      try {
        if (!/^https?:\/\//.test(spec)) stamp = String(statSync(spec).mtimeMs);
      } catch {}
      let skipped: readonly SkippedTool[] = [];
      let notices: readonly SkippedTool[] = [];
      return {
        id: name,
        source: spec,
        configPath: ["openapi", name],
        fingerprint: `${JSON.stringify(e)}|${stamp}`,
        timeoutMs: OPENAPI_LOAD_TIMEOUT_MS,
        tools: async () => {
          const source = await loadOpenApiSource({
            name,
            spec,
            ...(e.baseUrl ? { baseUrl: e.baseUrl } : {}),
            ...(e.auth ? { auth: e.auth } : {}),
            ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
          });
          skipped = source.skipped;
          notices = source.notices;
          return source.tree;
        },
        skippedTools: () => skipped,
        toolNotices: () => notices,
      };
    });
}

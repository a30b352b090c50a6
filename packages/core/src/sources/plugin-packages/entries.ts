import { statSync } from "node:fs";
import { basename, join } from "node:path";
import { workspaceDir } from "../../config/paths.ts";
import { normalizeId } from "../../tools/plugin-id.ts";
import type { BrokenEntry, FileEntry, Origin, SourceKindContext } from "../kind.ts";
import { LAYER } from "../kind.ts";
import type { ValidatorCache } from "./config-validator.ts";
import { PluginManifestError, readPluginPackage } from "./manifest.ts";
import { findInstalledPackage, installedNameOf, parseSpecifier, versionSatisfies } from "./specifier.ts";

/** Where the loader looks for installed plugins and keeps their compiled config validators. */
export interface PluginLookup {
  readonly projectWorkspace: string;
  readonly projectRoot: string;
  readonly homeDir: string;
  /** Where plugins' compiled config validators are kept (config-validator.ts). */
  readonly validatorCache?: ValidatorCache;
}

/** Where plugins are looked up in a load pass; list mode reads compiled validators but writes none. */
export function pluginLookup(ctx: SourceKindContext): PluginLookup {
  const projectWorkspace = workspaceDir(ctx.projectRoot);
  return {
    projectWorkspace,
    projectRoot: ctx.projectRoot,
    homeDir: ctx.homeDir,
    validatorCache: { dir: join(projectWorkspace, "data", "cache"), write: !ctx.readOnly },
  };
}

/** The plugin package in `dir`, or a broken entry saying why it cannot be read. */
export function pluginEntry(
  dir: string,
  origin: Origin,
  layer: number,
  validatorCache: ValidatorCache | undefined,
  specifier?: string,
): FileEntry {
  try {
    const pkg = readPluginPackage(dir, { validatorCache });
    return { kind: "plugin", id: pkg.id, origin, layer, source: dir, pkg, specifier };
  } catch (caught) {
    // Anything else (an unreadable file, a bug on odd input) must not stop the other plugins.
    const err =
      caught instanceof PluginManifestError
        ? caught
        : new PluginManifestError(
            `cannot read plugin: ${caught instanceof Error ? caught.message : String(caught)}`,
            join(dir, "package.json"),
            `Check ${dir} (its package.json and openassistant.json must be readable JSON objects).`,
            normalizeId(dir.split("/").filter(Boolean).pop() ?? "plugin"),
          );
    return {
      kind: "broken",
      entryKind: "plugin",
      id: err.id,
      origin,
      layer,
      source: dir,
      specifier,
      diagnostic: { level: "error", id: err.id, source: err.file, message: err.message, hint: err.hint },
    };
  }
}

/** The plugin one `config.plugins` specifier names: a path, an installed package, or why it is missing. */
export function specifierEntry(spec: string, input: PluginLookup): FileEntry {
  const parsed = parseSpecifier(spec, input.projectRoot, input.homeDir);
  if (parsed.kind === "path") {
    if (!isDir(parsed.dir)) {
      const id = normalizeId(parsed.dir.split("/").filter(Boolean).pop() ?? spec);
      return broken(
        id,
        "path",
        parsed.dir,
        spec,
        `plugin path "${spec}" does not exist (${parsed.dir})`,
        "Fix the path in config.plugins; relative paths are resolved from the project root.",
      );
    }
    return pluginEntry(parsed.dir, "path", LAYER.config, input.validatorCache, spec);
  }
  if (parsed.kind === "package") {
    const name = installedNameOf(parsed.target, input.projectWorkspace);
    const dir = name ? findInstalledPackage(name, input.projectWorkspace) : undefined;
    if (!dir)
      return broken(
        normalizeId(basename(parsed.target).replace(/\.(tgz|tar\.gz|git)$/, "")),
        "npm",
        input.projectRoot,
        spec,
        `plugin "${spec}" is not installed in ${input.projectWorkspace}`,
        `Run \`openassistant plugins install\` (it installs config.plugins into ${input.projectWorkspace}), then reload.`,
      );
    return pluginEntry(dir, "npm", 2, input.validatorCache, spec);
  }
  // `openassistant plugins install` installs config.plugins into .openassistant/; the project's own node_modules also count.
  const dir = findInstalledPackage(parsed.name, input.projectWorkspace);
  if (!dir)
    return broken(
      normalizeId(parsed.name),
      "npm",
      input.projectRoot,
      spec,
      `plugin package "${parsed.name}" is not installed in ${input.projectWorkspace} or ${input.projectRoot}`,
      `Run \`openassistant plugins install\` (it installs config.plugins into ${input.projectWorkspace}), then reload.`,
    );
  const entry = pluginEntry(dir, "npm", LAYER.config, input.validatorCache, spec);
  if (
    entry.kind === "plugin" &&
    parsed.range &&
    entry.pkg.version &&
    !versionSatisfies(entry.pkg.version, parsed.range)
  )
    return broken(
      entry.id,
      "npm",
      join(dir, "package.json"),
      spec,
      `installed ${parsed.name}@${entry.pkg.version} does not satisfy "${parsed.range}"`,
      `Run \`openassistant plugins install\`, or change the range in config.plugins.`,
    );
  return entry;
}

function broken(
  id: string,
  origin: Origin,
  source: string,
  specifier: string,
  message: string,
  hint: string,
): BrokenEntry {
  return {
    kind: "broken",
    entryKind: "plugin",
    id,
    origin,
    layer: LAYER.config,
    source,
    specifier,
    diagnostic: { level: "error", id, source, message, hint },
  };
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

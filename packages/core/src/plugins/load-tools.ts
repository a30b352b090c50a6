import { mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import {
  isToolDefinition,
  type PluginContext,
  type PluginHooks,
  type ToolDefinition,
  type ToolTree,
} from "@openassistant/sdk";
import type { Diagnostic } from "../config/diagnostic.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { workspaceDir } from "../config/paths.ts";
import { filterToolTree, flattenToolTree } from "../tools/flatten.ts";
import { WHOLE_DECLARATIONS_TOOLS } from "../codemode/whole-declarations.ts";
import { ensureWorkspaceDependencies, FIX_COMMAND, type ToolInstallFailure } from "./auto-install.ts";
import { discover, kindWatchDirs, type Candidate } from "./discovery.ts";
import { hasWorkspaceContent } from "../sources/workspace-files/files.ts";
import { disableRuntimeAutoInstall } from "./no-auto-install.ts";
import { isEntryDisabled, isToolEnabled } from "../tools/enablement.ts";
import { hasNodeModulesAbove, packageImports, packageNameOf } from "./bare-imports.ts";
import { findInstalledPackage } from "../sources/plugin-packages/specifier.ts";
import { isDeclared } from "./undeclared-imports.ts";
import { describeLoadError, isConfigError, stripCacheQuery } from "./errors.ts";
import { locateConfigKey } from "../config/locate.ts";
import {
  configSecretValues,
  secretValuesByKeyName,
  secretValuesBySchema,
  zodJsonSchema,
} from "../config/secret-fields.ts";
import { previewJson } from "../receipts/redact.ts";
import { SOURCE_KINDS } from "../sources/kinds.ts";
import { candidateKey, claimNamespaces } from "./namespaces.ts";
import { checkScopePeers } from "./peer-deps.ts";
import { findUnmatchedKeys } from "./unknown-keys.ts";
import { interpretPluginModule, interpretToolModule, type ModuleShape } from "./exports.ts";
import { dirStamp, fileStamp } from "./fingerprint.ts";
import { importFresh, nextGeneration } from "./import-module.ts";
import { validatePluginConfig } from "../sources/plugin-packages/manifest.ts";
import { registerSdkModule } from "./sdk-module.ts";
import { DEFAULT_LOAD_TIMEOUT_MS, formatSeconds, LoadTimeoutError, withTimeLimit } from "./time-limit.ts";
import { checkTreeShape } from "../tools/tree-shape.ts";
import { ownValue } from "../tools/own-keys.ts";
import type { BundledPlugin, LoadEntry, LoadResult, LoadToolsOptions, ToolInfo } from "./types.ts";
import { buildPluginHooks, criticalDiagnostics, type Hooked, hookSummary } from "./plugin-hooks.ts";

/** What a load pass remembers for the next one (reload): per entry its unfiltered subtree and fingerprint. */
export interface LoadState {
  readonly entries: ReadonlyMap<
    string,
    { readonly entry: LoadEntry; readonly subtree?: ToolTree; readonly fingerprint: string } & Hooked
  >;
}

interface Loaded extends Hooked {
  entry: LoadEntry;
  subtree?: ToolTree;
  fingerprint: string;
  diagnostics: Diagnostic[];
}

/** Discovers, installs, imports and merges every tool and plugin of the project found from `cwd`. */
export async function loadTools(opts: LoadToolsOptions = {}): Promise<LoadResult> {
  return (await loadToolsIncremental(opts)).result;
}

/** The config read here (a reload): its credentials reach the redactor before any tool loads. */
async function loadAndRegister(
  opts: LoadToolsOptions,
  env: NonNullable<LoadToolsOptions["env"]>,
): Promise<LoadedConfig> {
  const loaded = await loadConfig({
    cwd: opts.cwd ?? process.cwd(),
    env,
    homeDir: opts.homeDir,
    ...(opts.configSchema ? { schema: opts.configSchema } : {}),
  });
  opts.secrets?.add("config-var", loaded.secrets);
  opts.secrets?.add("config-field", configSecretValues(loaded.config, loaded.schema));
  opts.secrets?.add("plugin-secret", secretValuesByKeyName(loaded.config.config));
  return loaded;
}

/**
 * One load pass. With `previous`, entries whose files and config did not change are reused without
 * importing, and an entry that now fails keeps its previous version live (marked `stale`).
 * Throws ConfigError when the config itself is invalid.
 */
export async function loadToolsIncremental(
  opts: LoadToolsOptions,
  previous?: LoadState,
): Promise<{ result: LoadResult; state: LoadState; config: LoadedConfig }> {
  registerSdkModule();
  const env = opts.env ?? process.env;
  const loadedConfig = opts.config ?? (await loadAndRegister(opts, env));
  const { config, projectRoot, globalDir } = loadedConfig;
  const homeDir = opts.homeDir ?? env.HOME ?? homedir();
  const projectWorkspace = workspaceDir(projectRoot);
  const diagnostics: Diagnostic[] = [...loadedConfig.warnings];

  const readOnly = opts.readOnly === true;
  const log = redactedLog(opts.log ?? defaultLog, opts.secrets?.redact);
  const installFailures = new Map<string, ToolInstallFailure>();
  if (opts.autoInstall !== false && !readOnly) {
    const progress = opts.installProgress ?? ((line: string) => log("info", line, []));
    for (const ws of projectWorkspace === globalDir ? [projectWorkspace] : [projectWorkspace, globalDir]) {
      const r = await ensureWorkspaceDependencies(ws, { env, timeoutMs: opts.installTimeoutMs, progress });
      diagnostics.push(...r.diagnostics);
      for (const [file, failure] of r.toolFailures) installFailures.set(file, failure);
    }
  }

  const kinds = opts.kinds ?? SOURCE_KINDS;
  const kindCtx = {
    projectRoot,
    globalDir,
    homeDir,
    readOnly,
    builtins: opts.bundled ?? [],
    ...(readOnly ? {} : { cacheDir: join(projectWorkspace, "cache") }),
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
    ...(opts.onSourceChanged ? { onToolsChanged: opts.onSourceChanged } : {}),
    ...(opts.host ? { host: opts.host } : {}),
  };
  const candidates = await discover(kinds, config, kindCtx, diagnostics);
  const kept = claimNamespaces(candidates, previousOwners(previous), diagnostics);
  if (!readOnly) {
    for (const ws of [projectWorkspace, globalDir]) if (hasWorkspaceContent(ws)) disableRuntimeAutoInstall(ws);
    for (const c of kept) if (c.kind === "plugin" && c.origin === "path") disableRuntimeAutoInstall(c.pkg.dir);
  }
  for (const c of kept)
    if (c.kind === "plugin" && (c.origin === "npm" || c.origin === "path"))
      diagnostics.push(...checkScopePeers(c.id, c.pkg.dir));
  const gen = nextGeneration();
  const helperStamps = new Map<string, string>();

  const results = await Promise.all(
    kept.map((c) =>
      loadCandidate(c, {
        loadedConfig,
        projectWorkspace,
        gen,
        log,
        secrets: opts.secrets,
        helperStamps,
        readOnly,
        installFailures,
        timeoutMs: opts.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS,
        previous: previousOf(c, previous),
      }),
    ),
  );

  const tree: Record<string, ToolTree | ToolDefinition> = {};
  const entries: LoadEntry[] = [];
  const state = new Map<string, { entry: LoadEntry; subtree?: ToolTree; fingerprint: string } & Hooked>();
  const hooks: LoadResult["hooks"][number][] = [];
  const watchDirs = new Set<string>(kindWatchDirs(kinds, config, kindCtx));
  kept.forEach((c, i) => {
    const r = results[i]!;
    diagnostics.push(...r.diagnostics);
    if (c.kind === "plugin" && c.origin === "path") watchDirs.add(c.pkg.dir);
    let entry = r.entry;
    if (r.subtree && entry.status === "loaded") {
      const { filtered, tools } = applyEnablement(entry.id, r.subtree, config.tools);
      if (filtered !== undefined) tree[entry.id] = filtered;
      entry = { ...entry, tools, status: tools.some((t) => t.enabled) || r.hooks ? "loaded" : "disabled" };
    }
    if (ownValue(config.config, entry.id)?.critical === true) entry = { ...entry, critical: true };
    if (r.hooks && entry.status === "loaded") hooks.push({ pluginId: entry.id, hooks: r.hooks });
    entries.push(entry);
    state.set(candidateKey(c), { entry: r.entry, subtree: r.subtree, fingerprint: r.fingerprint, hooks: r.hooks });
  });

  diagnostics.push(
    ...findUnmatchedKeys(
      loadedConfig,
      candidates.map((c) => c.id),
      entries,
    ),
  );
  diagnostics.push(...criticalDiagnostics(loadedConfig, entries));

  let declarations: LoadResult["declarations"];
  // Past the bound, each snippet is checked against the declarations it reaches (the gateway's snapshot).
  if (opts.declarations !== false && declaredWhole(tree as ToolTree)) {
    try {
      // Imported here: declarations pull in TypeScript, which `plugins list` does not need.
      const { generateDeclarationsSliced, prerenderDeclarations } = await import("../codemode/declarations.ts");
      // Tool by tool, yielding between them: a large or hostile source does not hold the event loop.
      await prerenderDeclarations(tree as ToolTree, { cache: opts.declarationCache });
      const d = await generateDeclarationsSliced(tree as ToolTree, { cache: opts.declarationCache });
      declarations = { text: d.text, hash: d.hash };
      for (const w of d.warnings)
        diagnostics.push({
          level: "warning",
          id: w.split(":")[0]!.split(" ")[0]!,
          source: "declarations",
          message: w,
          hint:
            "The tool still loads, with a looser input type. In a tool file, use plain zod types (no transforms) in " +
            "args; for an MCP or OpenAPI tool, fix the schema in the server or the spec (until then only the server " +
            "checks the input).",
        });
    } catch (err) {
      diagnostics.push({
        level: "error",
        id: "declarations",
        source: "declarations",
        message: `cannot generate tool declarations: ${(err as Error).message}`,
        hint: "Report this with the tool's args schema.",
      });
    }
  }

  const clean = diagnostics.map((d) => ({
    ...d,
    source: stripCacheQuery(d.source),
    message: stripCacheQuery(d.message),
    hint: stripCacheQuery(d.hint),
  }));
  const result: LoadResult = {
    tree: tree as ToolTree,
    entries,
    hooks,
    diagnostics: clean,
    declarations,
    watchDirs: [...watchDirs],
  };
  return { result, state: { entries: state }, config: loadedConfig };
}

/** Whether the tree's declarations are rendered whole at load; a tree that cannot be flattened is, to report why. */
function declaredWhole(tree: ToolTree): boolean {
  try {
    return flattenToolTree(tree).length <= WHOLE_DECLARATIONS_TOOLS;
  } catch {
    return true;
  }
}

/**
 * The previous pass's state of the same entry. A plugin whose package.json/manifest is unreadable
 * right now (e.g. saved half-way) may get a fallback id, so it is also matched by its directory.
 */
function previousOf(c: Candidate, previous: LoadState | undefined): LoadContext["previous"] {
  if (!previous) return undefined;
  const exact = previous.entries.get(candidateKey(c));
  if (exact || c.kind !== "broken") return exact;
  for (const v of previous.entries.values())
    if (v.entry.kind === c.entryKind && v.entry.source === c.source && v.entry.status === "loaded") return v;
  return undefined;
}

/** Who owned each `tools.<id>` in the previous pass (the key of its candidate). */
function previousOwners(previous: LoadState | undefined): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [key, v] of previous?.entries ?? []) owners.set(v.entry.id, key);
  return owners;
}

interface LoadContext {
  loadedConfig: LoadedConfig;
  projectWorkspace: string;
  gen: number;
  log: NonNullable<LoadToolsOptions["log"]>;
  secrets: LoadToolsOptions["secrets"];
  previous?: { entry: LoadEntry; subtree?: ToolTree; fingerprint: string } & Hooked;
  /** Per load pass: stamp of the helper files (non-tool files) of each tools dir. */
  helperStamps: Map<string, string>;
  /** List mode: write nothing (no install, no node_modules, no data dirs). */
  readOnly: boolean;
  /** Tool files whose imported packages could not be installed. */
  installFailures: ReadonlyMap<string, ToolInstallFailure>;
  /** Time limit for importing the file and, separately, for running the factory. */
  timeoutMs: number;
}

const DEPS_HINT = `Run \`${FIX_COMMAND}\` (listing never installs anything; \`start\` installs too).`;
/** A plugin folder outside `.openassistant/`: only `plugins install` installs there, not `start`. */
const FOLDER_DEPS_HINT = `Run \`${FIX_COMMAND}\` (it runs \`bun install\` in the plugin folder; \`start\` and listing do not).`;

/**
 * Packages a plugin folder's entry imports that its package.json does not declare and that do not
 * resolve from the folder: `plugins install` installs only what is declared, so say so.
 */
function undeclaredPluginImports(entry: string, dir: string): string[] {
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return [];
  }
  const names = [...new Set(packageImports(entry).map(packageNameOf))];
  return names.filter((n) => !isDeclared(pkg, n) && !findInstalledPackage(n, dir)).sort();
}

/** Read-only mode: importing a package with no node_modules above it would let Bun fetch it from npm. */
function uninstalledImports(file: string, dir: string): string[] {
  return hasNodeModulesAbove(dir) ? [] : packageImports(file);
}

async function loadCandidate(c: Candidate, lc: LoadContext): Promise<Loaded> {
  const { config } = lc.loadedConfig;
  const kind = c.kind === "tool" ? "tool" : c.kind === "broken" ? c.entryKind : "plugin";
  const base = {
    id: c.id,
    kind,
    source: c.source,
    origin: c.origin,
    ...(c.kind === "plugin" ? { name: c.pkg.name, description: c.pkg.description, specifier: c.specifier } : {}),
    ...(c.kind === "broken" && c.specifier ? { specifier: c.specifier } : {}),
    ...(c.kind === "bundled" && c.bundled.configPath ? { configPath: c.bundled.configPath } : {}),
  } as const;
  const pluginConfig = ownValue(config.config, c.id);
  const fingerprint = fingerprintOf(c, lc.helperStamps) + JSON.stringify(pluginConfig ?? null);

  const prevLoaded = lc.previous?.subtree && lc.previous.entry.status === "loaded" ? lc.previous : undefined;
  if (c.kind === "broken") {
    // E.g. a package.json or manifest saved half-way: keep the working version until it is fixed.
    if (prevLoaded)
      return {
        entry: { ...prevLoaded.entry, stale: true },
        subtree: prevLoaded.subtree,
        hooks: prevLoaded.hooks,
        fingerprint,
        diagnostics: [
          {
            ...c.diagnostic,
            message: `${c.diagnostic.message} (the previous version stays active until this is fixed)`,
          },
        ],
      };
    return { entry: { ...base, status: "error", tools: [] }, fingerprint, diagnostics: [c.diagnostic] };
  }
  if (pluginConfig?.enabled === false || isEntryDisabled(c.id, config.tools)) {
    const why = pluginConfig?.enabled === false ? `config.${c.id}.enabled is false` : `config.tools.${c.id} is false`;
    return {
      entry: { ...base, status: "disabled", tools: [] },
      fingerprint,
      diagnostics: [
        {
          level: "info",
          id: c.id,
          source: c.source,
          message: `disabled (${why})`,
          hint: `Remove or flip ${why.split(" ")[0]} to enable it.`,
        },
      ],
    };
  }
  const unset = lc.loadedConfig.unset?.find((u) => u.path[0] === "config" && u.path[1] === c.id);
  if (unset)
    return {
      entry: { ...base, status: "error", tools: [] },
      fingerprint,
      diagnostics: [
        {
          level: "error",
          id: c.id,
          source: unset.file,
          line: unset.line,
          column: unset.column,
          message: `config.${unset.path.slice(1).join(".")} uses \${${unset.name}}, which is not set, so "${c.id}" is not loaded`,
          hint: `Set ${unset.name} in the environment (\`start\` fails without it); the other tools and plugins are not affected.`,
        },
      ],
    };
  const prev = lc.previous;
  if (prev && prev.fingerprint === fingerprint && prev.subtree && prev.entry.status === "loaded" && !prev.entry.stale)
    return { entry: prev.entry, subtree: prev.subtree, hooks: prev.hooks, fingerprint, diagnostics: [] };

  const diagnostics: Diagnostic[] = [];
  const fail = (d: Omit<Diagnostic, "id" | "level"> & { level?: Diagnostic["level"] }): Loaded => {
    const diag: Diagnostic = { level: "error", id: c.id, ...d };
    if (prev?.subtree && prev.entry.status === "loaded")
      return {
        entry: { ...prev.entry, stale: true },
        subtree: prev.subtree,
        hooks: prev.hooks,
        fingerprint: prev.fingerprint,
        diagnostics: [
          ...diagnostics,
          { ...diag, message: `${diag.message} (the previous version stays active until this is fixed)` },
        ],
      };
    return { entry: { ...base, status: "error", tools: [] }, fingerprint, diagnostics: [...diagnostics, diag] };
  };

  let ctxConfig: Record<string, unknown> = {};
  let shape: ModuleShape;
  let file: string;
  try {
    if (c.kind === "bundled") {
      file = c.source;
      const t = c.bundled.tools;
      shape =
        typeof t === "function"
          ? { kind: "factory", factory: t, warnings: [] }
          : { kind: "tree", tree: t, warnings: [] };
      ctxConfig = { ...(pluginConfig ?? {}) };
      delete ctxConfig.enabled;
      delete ctxConfig.critical;
      delete ctxConfig.hookTimeoutMs;
    } else if (c.kind === "tool") {
      file = c.file;
      const installFailure = lc.installFailures.get(c.file);
      if (installFailure) return fail({ source: c.file, ...installFailure });
      const pending = lc.readOnly ? uninstalledImports(c.file, dirname(c.file)) : [];
      if (pending.length)
        return fail({
          source: c.file,
          message: `imports ${pending.join(", ")}, which is not installed`,
          hint: DEPS_HINT,
        });
      const mod = await withTimeLimit(() => importFresh(c.file, lc.gen, dirname(c.file)), lc.timeoutMs);
      shape = interpretToolModule(mod);
      ctxConfig = { ...(pluginConfig ?? {}) };
      delete ctxConfig.enabled;
      delete ctxConfig.critical;
      delete ctxConfig.hookTimeoutMs;
    } else {
      file = c.pkg.entry;
      const validated = validatePluginConfig(c.pkg, pluginConfig);
      if (!validated.ok) {
        const at = locateConfigKey(lc.loadedConfig.sources, validated.path ?? ["config", c.id]);
        const schemaFile = c.pkg.manifestFile ?? c.source;
        return fail({
          source: at?.file ?? configFileOf(lc),
          ...(at ? { line: at.line, column: at.column } : {}),
          message: `config for plugin "${c.id}" is invalid: ${validated.message} (configSchema: ${schemaFile})`,
          hint: `Fix config.${c.id} in ${at?.file ?? configFileOf(lc)} to match the configSchema in ${schemaFile}.`,
        });
      }
      ctxConfig = validated.config;
      lc.secrets?.add("plugin-secret", secretValuesBySchema(c.pkg.configSchema, ctxConfig));
      const undeclared = c.origin === "npm" ? [] : undeclaredPluginImports(c.pkg.entry, c.pkg.dir);
      if (undeclared.length)
        return fail({
          source: join(c.pkg.dir, "package.json"),
          message: `${c.pkg.entry} imports ${undeclared.join(", ")}, which ${join(c.pkg.dir, "package.json")} does not declare, so no install can add ${undeclared.length === 1 ? "it" : "them"}`,
          hint: `Run \`bun add ${undeclared.join(" ")}\` in ${c.pkg.dir} (it declares and installs ${undeclared.length === 1 ? "it" : "them"}).`,
        });
      const pending = lc.readOnly && c.origin !== "npm" ? uninstalledImports(c.pkg.entry, c.pkg.dir) : [];
      if (pending.length)
        return fail({
          source: c.pkg.entry,
          message: `imports ${pending.join(", ")}, which is not installed`,
          hint: c.origin === "path" ? FOLDER_DEPS_HINT : DEPS_HINT,
        });
      const entryFile = c.pkg.entry;
      const mod = await withTimeLimit(
        () => importFresh(entryFile, lc.gen, c.pkg.dir.includes("/node_modules/") ? dirname(entryFile) : c.pkg.dir),
        lc.timeoutMs,
      );
      shape = interpretPluginModule(mod);
    }
  } catch (err) {
    const at = c.kind === "plugin" ? c.pkg.entry : c.source;
    if (err instanceof LoadTimeoutError)
      return fail({
        source: at,
        message: `importing ${at} did not finish within ${formatSeconds(err.ms)} (a top-level await that never settles?)`,
        hint: `Make every top-level await in ${at} (and the files it imports) finish quickly; do slow setup inside run() or a plugin factory. The other tools and plugins still load.`,
      });
    const d = describeLoadError(err, at, lc.projectWorkspace);
    const notInstalled = lc.readOnly && /Cannot find (module|package)/.test(d.message);
    return fail({
      source: c.kind === "plugin" ? c.pkg.entry : c.source,
      ...d,
      ...(notInstalled ? { hint: c.kind === "plugin" && c.origin === "path" ? FOLDER_DEPS_HINT : DEPS_HINT } : {}),
    });
  }

  for (const w of shape.kind === "empty" ? [] : shape.warnings)
    diagnostics.push({
      level: "warning",
      id: c.id,
      source: file,
      message: w,
      hint: "Export either one default tool or named tools.",
    });
  if (shape.kind === "empty")
    return fail({
      source: file,
      message: `exports no tool (exports: ${shape.exportNames.join(", ") || "none"})`,
      hint:
        kind === "tool"
          ? `Export a tool: \`export default defineTool({ ... })\` or named exports \`export const list = defineTool({ ... })\` in ${file}.`
          : `The entry must \`export default (ctx) => ({ ...tools })\` or export a tool tree as default or \`tools\` (${file}).`,
    });

  let subtree: ToolTree;
  let hooks: PluginHooks | undefined;
  if (shape.kind === "factory") {
    const dataDir = join(lc.projectWorkspace, "data", c.id);
    try {
      if (!lc.readOnly) mkdirSync(dataDir, { recursive: true });
      if (shape.configSchema) {
        const parsed = shape.configSchema.safeParse(ctxConfig);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const path = ["config", c.id, ...(issue?.path ?? []).map(String)];
          const at =
            locateConfigKey(lc.loadedConfig.sources, path) ??
            locateConfigKey(lc.loadedConfig.sources, ["config", c.id]);
          const configFile = at?.file ?? configFileOf(lc);
          return fail({
            source: configFile,
            ...(at ? { line: at.line, column: at.column } : {}),
            message: `config for plugin "${c.id}" is invalid: ${path.join(".")}: ${issue?.message ?? "invalid"} (schema: definePlugin in ${file})`,
            hint: `Fix ${path.join(".")} in ${configFile} to match the config schema in ${file}.`,
          });
        }
        ctxConfig = parsed.data as Record<string, unknown>;
        lc.secrets?.add("plugin-secret", secretValuesBySchema(zodJsonSchema(shape.configSchema), ctxConfig));
      }
      const ctx: PluginContext = Object.freeze({
        id: c.id,
        config: Object.freeze(ctxConfig),
        dataDir,
        logger: makeLogger(c.id, lc.log),
      });
      const factory = shape.factory;
      const limit = (c.kind === "bundled" ? c.bundled.timeoutMs : undefined) ?? lc.timeoutMs;
      subtree = await withTimeLimit(() => factory(ctx), limit);
      const built = await buildPluginHooks(shape.hooks, ctx, limit, file, pluginConfig?.hookTimeoutMs);
      if ("problem" in built) return fail(built.problem);
      hooks = built.hooks;
      if (c.kind === "bundled") diagnostics.push(...skippedToolDiagnostics(c.id, c.bundled, lc));
    } catch (err) {
      if (err instanceof LoadTimeoutError)
        return fail({
          source: file,
          message: `plugin factory did not return within ${formatSeconds(err.ms)} (a promise that never settles, or slow setup)`,
          hint: `Make the factory in ${file} return its tools quickly; connect lazily inside run() instead of awaiting the connection in the factory. The other tools and plugins still load.`,
        });
      // A config source (MCP server, OpenAPI spec) has no factory to fix: its own message says what is wrong.
      const configPath = c.kind === "bundled" ? c.bundled.configPath : undefined;
      if (configPath) {
        const at = locateConfigKey(lc.loadedConfig.sources, [...configPath]);
        const hint = (err as { hint?: unknown }).hint;
        return fail({
          source: at?.file ?? configFileOf(lc),
          ...(at ? { line: at.line, column: at.column } : {}),
          message: err instanceof Error ? err.message : String(err),
          hint:
            typeof hint === "string"
              ? hint
              : `Check ${configPath.join(".")} in the config; the other tools still load.`,
        });
      }
      const d = describeLoadError(err, file, lc.projectWorkspace);
      const at = locateConfigKey(lc.loadedConfig.sources, ["config", c.id]);
      const configFile = at?.file ?? configFileOf(lc);
      if (isConfigError(err, { id: c.id, keys: Object.keys(pluginConfig ?? {}), file: configFile }))
        return fail({
          source: configFile,
          ...(at ? { line: at.line, column: at.column } : {}),
          message: `plugin factory rejected its config: ${d.message} (thrown in ${file})`,
          hint: `Check config.${c.id} in ${configFile}; the other tools and plugins still load.`,
        });
      return fail({
        source: file,
        ...d,
        message: `plugin factory threw: ${d.message}`,
        hint: `Fix the factory in ${file}; the other tools and plugins still load.`,
      });
    }
    if (!isToolDefinition(subtree) && (typeof subtree !== "object" || subtree === null))
      return fail({
        source: file,
        message: `the factory returned ${subtree === null ? "null" : typeof subtree}, not a tool tree`,
        hint: `Return an object of tools, e.g. { create: defineTool({ ... }) }, from ${file}.`,
      });
  } else subtree = shape.tree;

  const shapeProblem = checkTreeShape(subtree, c.id);
  if (shapeProblem)
    return fail({
      source: file,
      message: shapeProblem,
      hint: `Make the tools exported/returned by ${file} a plain tree of groups and defineTool(...) leaves.`,
    });

  let tools: ToolInfo[];
  try {
    tools = flattenToolTree({ [c.id]: subtree } as ToolTree).map((t) => ({
      path: t.path,
      approval: t.definition.approval,
      description: t.definition.description,
      enabled: true,
    }));
  } catch (err) {
    return fail({ source: file, message: (err as Error).message, hint: `Rename the export/key in ${file}.` });
  }
  if (tools.length === 0 && !hooks)
    return fail({
      source: file,
      message: "provides no tools",
      hint: `Return at least one defineTool(...) from ${file}.`,
    });
  return {
    entry: { ...base, status: "loaded", tools, ...(hooks ? { hooks: hookSummary(hooks) } : {}) },
    subtree,
    hooks,
    fingerprint,
    diagnostics,
  };
}

/** One error per tool a source left out (at most 20, then a count), at the source's config key. */
function skippedToolDiagnostics(id: string, bundled: BundledPlugin, lc: LoadContext): Diagnostic[] {
  const skipped = bundled.skippedTools?.() ?? [];
  const notices = bundled.toolNotices?.() ?? [];
  if (skipped.length === 0 && notices.length === 0) return [];
  const at = bundled.configPath ? locateConfigKey(lc.loadedConfig.sources, [...bundled.configPath]) : undefined;
  const where = {
    source: at?.file ?? bundled.source ?? configFileOf(lc),
    ...(at ? { line: at.line, column: at.column } : {}),
  };
  const hint = `Fix the tool's input schema in the ${bundled.source ?? id} source; the source's other tools still load.`;
  const out: Diagnostic[] = notices.slice(0, 20).map((s) => ({
    level: "warning",
    id: `tools.${id}.${s.tool}`,
    ...where,
    message: `tool "${s.tool}" of source "${id}": ${s.reason}`,
    hint: `Fix the names in the ${bundled.source ?? id} source; until then call the tool by the name given here.`,
  }));
  for (const s of skipped.slice(0, 20))
    out.push({
      level: "error",
      id,
      ...where,
      message: `tool "${s.tool}" of source "${id}" is not loaded: ${s.reason}`,
      hint,
    });
  if (skipped.length > 20)
    out.push({
      level: "error",
      id,
      ...where,
      message: `${skipped.length - 20} more tools of source "${id}" are not loaded`,
      hint,
    });
  return out;
}

function configFileOf(lc: LoadContext): string {
  return lc.loadedConfig.sources.at(-1) ?? join(lc.projectWorkspace, "config.jsonc");
}

function fingerprintOf(c: Candidate, helperStamps: Map<string, string>): string {
  switch (c.kind) {
    case "tool": {
      const dir = dirname(c.file);
      let helpers = helperStamps.get(dir);
      if (helpers === undefined) helperStamps.set(dir, (helpers = dirStamp(dir, { skipTopLevelFiles: true })));
      return `${fileStamp(c.file)}|${helpers}`;
    }
    case "plugin":
      return c.pkg.dir.includes("/node_modules/")
        ? `${fileStamp(join(c.pkg.dir, "package.json"))}|${fileStamp(c.pkg.entry)}`
        : `${dirStamp(c.pkg.dir)}`;
    case "bundled":
      return `bundled:${c.bundled.fingerprint ?? ""}`;
    case "broken":
      return `broken:${c.diagnostic.message}`;
  }
}

/** Applies `config.tools` to an entry's subtree: the filtered subtree (undefined if empty) and per-tool info. */
function applyEnablement(
  id: string,
  subtree: ToolTree,
  rules: Readonly<Record<string, boolean>>,
): { filtered?: ToolTree | ToolDefinition; tools: ToolInfo[] } {
  const tools: ToolInfo[] = [];
  const filtered = filterToolTree(subtree, id, (path, tool) => {
    const enabled = isToolEnabled(path, rules);
    tools.push({ path, approval: tool.approval, description: tool.description, enabled });
    return enabled;
  });
  return { filtered, tools: tools.sort((a, b) => (a.path < b.path ? -1 : 1)) };
}

function makeLogger(id: string, log: NonNullable<LoadToolsOptions["log"]>): PluginContext["logger"] {
  const at =
    (level: "debug" | "info" | "warn" | "error") =>
    (message: string, ...details: unknown[]) =>
      log(level, `[${id}] ${message}`, details);
  return Object.freeze({ debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") });
}

/** Plugin log lines pass the redactor (message and details) before reaching `log`. */
function redactedLog(
  log: NonNullable<LoadToolsOptions["log"]>,
  redact: ((text: string) => string) | undefined,
): NonNullable<LoadToolsOptions["log"]> {
  if (!redact) return log;
  return (level, message, details) =>
    log(
      level,
      redact(message),
      details.map((d) =>
        typeof d === "string" || d instanceof Error
          ? redact(typeof d === "string" ? d : (d.stack ?? d.message))
          : previewJson(d, 4000, redact),
      ),
    );
}

function defaultLog(level: "debug" | "info" | "warn" | "error", message: string, details: unknown[]): void {
  if (level === "debug") return;
  console[level](message, ...details);
}

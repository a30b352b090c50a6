import { isAbsolute, join, resolve } from "node:path";
import {
  configSecretValues,
  secretValuesByKeyName,
  workspaceDir,
  type Diagnostic,
  type LoadedConfig,
} from "@openassistant/core/config";
import { createSecretRegistry, type SecretRegistry } from "@openassistant/core/receipts";
import { createToolRegistry, type LoadedSnapshot } from "@openassistant/core/plugins";
import { createHookSet } from "@openassistant/core/hooks";
import { scheduleToolBinding, scheduleToolsEntry, type ScheduleToolBinding } from "./schedules/tools.ts";
import { abilityToolsWhenDefined, type AbilityToolBinding } from "./abilities/tools.ts";
import type { BuiltInToolsEntry } from "./built-in/late-bound.ts";
import { flattenToolTree } from "@openassistant/core/tools";
import { WORKSPACE_WRITE_TOOLS } from "@openassistant/core/workspace";
import type { EnvLike } from "./auth/types.ts";
import { loadGatewayConfig, type GatewayConfig } from "./config-schema.ts";
import { configuredSections } from "./surfaces/registry.ts";
import { turnSettingsFromConfig } from "./agent/settings.ts";
import { claudeBaseUrl, modelsFromConfig } from "./model/targets.ts";
import type { GatewaySettings } from "./settings.ts";
import { declarationWarning } from "./diagnostics.ts";
import type { ToolSnapshot, ToolSource } from "./tools-source.ts";

export interface LoadedGatewayConfig {
  readonly settings: GatewaySettings;
  readonly tools: ToolSource;
  /** Config warnings (level, file, line, message, fix); the CLI formats them. */
  readonly diagnostics: readonly Diagnostic[];
  readonly config: LoadedConfig<GatewayConfig>;
  /** Every credential read so far (config, plugin configs, MCP logins); the gateway adds its own. */
  readonly secrets: SecretRegistry;
  /** #33: `tools.schedules.*` in the loaded tree, bound by the gateway once its stores are open. */
  readonly scheduleTools?: ScheduleToolBinding;
  /** #32: `tools.abilities.*`, in the tree only when an ability is defined (abilities/tools.ts). */
  readonly abilityTools?: AbilityToolBinding;
}

/**
 * Our own override of the Anthropic endpoint (proxies, the fake API in tests); the standard
 * ANTHROPIC_BASE_URL is honoured when it is not set. Both are read here, explicitly (the SDK is
 * never left to read process.env).
 */
const BASE_URL_ENV = "OPENASSISTANT_ANTHROPIC_BASE_URL";

/** The Anthropic endpoint in effect and what set it (there is no config key for it). */
export function anthropicEndpoint(env: EnvLike): {
  readonly baseURL?: string;
  readonly setBy: "OPENASSISTANT_ANTHROPIC_BASE_URL" | "ANTHROPIC_BASE_URL" | "default";
} {
  const own = env[BASE_URL_ENV]?.trim();
  if (own) return { baseURL: own, setBy: BASE_URL_ENV };
  const standard = env.ANTHROPIC_BASE_URL?.trim();
  return standard ? { baseURL: standard, setBy: "ANTHROPIC_BASE_URL" } : { setBy: "default" };
}

/** Where the gateway keeps rendered tool input types between starts (see core's declarations-cache.ts). */
export function declarationCacheFile(dataDir: string): string {
  return join(dataDir, "cache", "declarations.json");
}

/**
 * Loads config (core loadConfig: project/global/OPENASSISTANT_CONFIG, ${VAR}, validation) and the
 * tool registry (workspace tools + plugins), and maps them to what the gateway needs.
 * Throws ConfigError for an invalid config (the message names file, line, column and the fix).
 */
export async function loadGatewaySettings(
  cwd: string,
  env: EnvLike,
  opts: {
    watch?: boolean;
    tools?: boolean;
    unsetVars?: "error" | "report";
    /** Where plugin log lines go (redacted first); default: the console. */
    log?: (line: string) => void;
    /** The registry to fill (the gateway's); default: a new one. */
    secrets?: SecretRegistry;
  } = {},
): Promise<LoadedGatewayConfig> {
  // Without tools nothing runs (receipts): an unset ${VAR} is reported, not fatal.
  const loaded = await loadGatewayConfig({
    cwd,
    env,
    unsetVars: opts.unsetVars ?? (opts.tools === false ? "report" : "error"),
  });
  const c = loaded.config;
  const secrets = opts.secrets ?? createSecretRegistry();
  // As the README promises: every `${VAR}` value is a secret, whatever it looks like.
  secrets.add("config-var", loaded.secrets);
  secrets.add("config-field", configSecretValues(c, loaded.schema));
  secrets.add("plugin-secret", secretValuesByKeyName(c.config));
  const projectRoot = loaded.projectRoot;
  const dataDir = join(workspaceDir(projectRoot), "data");
  const dbPath = c.database.path
    ? isAbsolute(c.database.path)
      ? c.database.path
      : resolve(projectRoot, c.database.path)
    : join(dataDir, "openassistant.sqlite");
  const { baseURL } = anthropicEndpoint(env);

  const settings: GatewaySettings = {
    projectRoot,
    dataDir,
    databasePath: dbPath,
    ...(c.storage.url ? { storageUrl: c.storage.url } : {}),
    turn: turnSettingsFromConfig(c.model),
    // #35: `model.baseUrl` of a Claude model is its endpoint unless the environment overrides it.
    anthropic: {
      baseURL: baseURL ?? claudeBaseUrl(c.model),
      profileOrder: c.auth.anthropic?.profileOrder,
      pinned: c.auth.anthropic?.pinned,
    },
    ...modelsFromConfig(c.model),
    policy: c.policy.rules,
    approvalTimeoutMs: c.approvals.timeoutSeconds * 1000,
    surfaces: configuredSections(c),
    // config: port 0 = disabled.
    http:
      c.http.port > 0
        ? {
            port: c.http.port,
            ...(c.http.token ? { token: c.http.token } : {}),
            host: c.http.host,
            ...(c.http.publicUrl ? { publicUrl: c.http.publicUrl } : {}),
            ...(c.http.approvers ? { approvers: c.http.approvers } : {}),
          }
        : undefined,
    clients: { graceMs: c.clients.graceSeconds * 1000 },
    // #34: off unless enabled (docs/mcp-server.md).
    ...(c.mcpServer.enabled
      ? {
          mcpServer: {
            port: c.mcpServer.port,
            host: c.mcpServer.host,
            tools: c.mcpServer.tools,
            maxRequestBytes: c.mcpServer.maxRequestBytes,
            maxSessions: c.mcpServer.maxSessions,
          },
        }
      : {}),
    secrets: [],
    alwaysAsk: c.workspace.allowAutoWrite ? [] : [...WORKSPACE_WRITE_TOOLS],
  };

  if (opts.tools === false)
    return { settings, tools: noTools(), diagnostics: loaded.warnings, config: loaded, secrets };
  // Imported here: commands without tools (receipts) never need it. It imports TypeScript only for
  // tools whose input types are not in the cache yet.
  const { approxTokens, generateDeclarations, openDeclarationCache, withDiscovery } = await import(
    "@openassistant/core/codemode"
  );
  const { declaredPerSnippet } = await import("./tools-source.ts");
  const declarationCache = openDeclarationCache(declarationCacheFile(dataDir));
  const log = opts.log;
  const scheduleTools = scheduleToolBinding();
  // #33: the gateway's own `tools.schedules.*` (schedules/tools.ts); #32: `tools.abilities.*` when an ability is defined.
  const bundled: BuiltInToolsEntry[] = [scheduleToolsEntry(scheduleTools)];
  const abilities = abilityToolsWhenDefined(projectRoot, bundled);
  const registry = createToolRegistry({
    config: loaded,
    bundled,
    // The gateway re-reads the config on every reload: tool keys apply, the others are named as needing a restart.
    reloadConfig: opts.watch === true,
    env,
    cwd: projectRoot,
    // The gateway's own tools (`tools.workspace.*`): a write reloads the registry and reads who owns each name.
    host: { reload: () => registry.reload(), entries: () => registry.current().entries },
    declarationCache,
    secrets,
    ...(log ? { log: (level, message, details) => log([`${level}: ${message}`, ...details].join(" ")) } : {}),
  });
  await registry.ready;
  const abilityTools = await abilities.afterLoad(registry);
  const stopWatching = opts.watch ? registry.watch() : () => {};
  const hookLog = log ? (line: string) => log(`warn: ${line}`) : undefined;
  const toSnapshot = memoize((s: LoadedSnapshot): ToolSnapshot => {
    const hooks = createHookSet(s.hooks, hookLog ? { log: hookLog } : {});
    // Too many tools to declare whole: the loader left them undeclared, each snippet gets its own.
    const perSnippet = s.declarations ? undefined : declaredPerSnippet(s.tree, declarationCache);
    if (perSnippet)
      return {
        ...perSnippet,
        diagnostics: s.diagnostics,
        errors: s.diagnostics.filter((d) => d.level === "error").length,
        count: flattenToolTree(perSnippet.tree).length,
        entries: s.entries,
        hooks,
      };
    let tree = s.tree;
    let declarations = s.declarations
      ? { ...s.declarations, warnings: [] }
      : generateDeclarations(s.tree, { cache: declarationCache });
    // More declarations than the prompt budget: the model searches them from its code instead.
    if (approxTokens(declarations.text) > c.model.toolPromptTokens) {
      tree = withDiscovery(s.tree);
      const all = generateDeclarations(tree, { cache: declarationCache });
      // The loader already reported the tools' warnings (s.diagnostics): listing them again doubled each.
      declarations = s.declarations ? { ...all, warnings: [] } : all;
    }
    return {
      tree,
      declarations,
      diagnostics: [...s.diagnostics, ...declarations.warnings.map(declarationWarning)],
      errors: s.diagnostics.filter((d) => d.level === "error").length,
      // The tools themselves, as `plugins list` counts them (not the $search/$describe discovery adds).
      count: flattenToolTree(s.tree).length,
      entries: s.entries,
      hooks,
    };
  });
  const tools: ToolSource = {
    current: () => toSnapshot(registry.current()),
    reload: async () => toSnapshot(await registry.reload()),
    subscribe: (fn) => registry.subscribe((s) => fn(toSnapshot(s))),
    close: stopWatching,
  };
  return {
    settings,
    tools,
    diagnostics: loaded.warnings,
    config: loaded,
    secrets,
    scheduleTools,
    ...(abilityTools ? { abilityTools } : {}),
  };
}

/** For commands that use no tools (receipts): the empty tree, without importing TypeScript to declare it. */
function noTools(): ToolSource {
  const text = "declare const tools: {\n};\n";
  const snapshot: ToolSnapshot = {
    tree: {},
    declarations: { text, hash: new Bun.CryptoHasher("sha256").update(text).digest("hex"), warnings: [] },
    diagnostics: [],
    errors: 0,
    count: 0,
  };
  return { current: () => snapshot, reload: async () => snapshot, subscribe: () => () => {}, close() {} };
}

function memoize<A extends object, R>(fn: (a: A) => R): (a: A) => R {
  const cache = new WeakMap<A, R>();
  return (a) => {
    let r = cache.get(a);
    if (r === undefined) cache.set(a, (r = fn(a)));
    return r;
  };
}

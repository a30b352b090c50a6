import { existsSync, watch, type FSWatcher } from "node:fs";
import type { ToolTree } from "@openassistant/sdk";
import { ConfigError } from "../config/errors.ts";
import type { LoadedConfig } from "../config/load.ts";
import { locateConfigKey } from "../config/locate.ts";
import { keysNeedingRestart } from "../config/restart-keys.ts";
import { loadToolsIncremental, type LoadState } from "./load-tools.ts";
import { keepCriticalHooks } from "./plugin-hooks.ts";
import type { PluginHookEntry } from "../hooks/set.ts";
import type { Diagnostic, LoadEntry, LoadResult, LoadToolsOptions } from "./types.ts";

/** An immutable view of the loaded tools. A run keeps the snapshot it started with. */
export interface LoadedSnapshot {
  /** Increases by one on every successful reload. */
  readonly version: number;
  readonly tree: ToolTree;
  readonly declarations?: { readonly text: string; readonly hash: string };
  readonly entries: readonly LoadEntry[];
  /** The loaded plugins' hooks in load order: a run keeps the hooks of its snapshot, like its tools. */
  readonly hooks: readonly PluginHookEntry[];
  readonly diagnostics: readonly Diagnostic[];
  readonly loadedAt: number;
}

export interface ToolRegistry {
  /** The latest snapshot (throws before the first load finished; use `ready`). */
  current(): LoadedSnapshot;
  /** Resolves with the first snapshot. */
  readonly ready: Promise<LoadedSnapshot>;
  /** Loads again (changed entries only) and swaps the snapshot; concurrent calls are coalesced. */
  reload(): Promise<LoadedSnapshot>;
  /** Watches tool and plugin folders (and config files) and reloads on change; returns a stop function. */
  watch(opts?: { debounceMs?: number }): () => void;
  /** Called with every new snapshot; returns an unsubscribe function. */
  subscribe(fn: (snapshot: LoadedSnapshot) => void): () => void;
}

export interface ToolRegistryOptions extends LoadToolsOptions {
  /** Re-read config files on every reload (default true unless `config` is given). */
  reloadConfig?: boolean;
}

/**
 * Owns the current tool snapshot. Reload errors never take tools away: a broken file keeps its
 * previous version (reported as a diagnostic), and an invalid config keeps the whole previous
 * snapshot plus an error diagnostic.
 */
export function createToolRegistry(opts: ToolRegistryOptions = {}): ToolRegistry {
  let snapshot: LoadedSnapshot | undefined;
  let state: LoadState | undefined;
  let version = 0;
  let inFlight: Promise<LoadedSnapshot> | undefined;
  let again = false;
  let watchDirs: string[] = [];
  let configFiles: string[] = [];
  const listeners = new Set<(s: LoadedSnapshot) => void>();
  const reloadConfig = opts.reloadConfig ?? opts.config === undefined;
  /** The config of the first load: what the process started with. */
  let started: LoadedConfig | undefined;

  const publish = (s: LoadedSnapshot) => {
    snapshot = s;
    for (const fn of listeners) {
      try {
        fn(s);
      } catch {
        /* a listener's failure must not break reloads */
      }
    }
    return s;
  };

  const freeze = (r: LoadResult, extra: Diagnostic[] = []): LoadedSnapshot =>
    Object.freeze({
      version: ++version,
      tree: r.tree,
      declarations: r.declarations,
      entries: Object.freeze([...r.entries]),
      hooks: Object.freeze([...r.hooks]),
      diagnostics: Object.freeze([...r.diagnostics, ...extra]),
      loadedAt: Date.now(),
    });

  const loadOnce = async (): Promise<LoadedSnapshot> => {
    try {
      const configSchema = opts.configSchema ?? opts.config?.schema;
      const base = { ...opts, onSourceChanged: sourceChanged, ...(configSchema ? { configSchema } : {}) };
      const {
        result: loaded,
        state: next,
        config,
      } = await loadToolsIncremental(
        reloadConfig && (started || !opts.config) ? { ...base, config: undefined } : base,
        state,
      );
      // #29: a critical plugin gone after a reload keeps the hooks it had.
      const result = keepCriticalHooks(snapshot?.hooks, loaded);
      state = next;
      watchDirs = [...result.watchDirs];
      configFiles = [...config.sources];
      started ??= config;
      return publish(freeze(result, restartWarnings(started, config)));
    } catch (err) {
      if (!(err instanceof ConfigError) || !snapshot) throw err;
      const d: Diagnostic = {
        level: "error",
        id: "config",
        source: err.file,
        line: err.line,
        column: err.column,
        message: `${err.keyPath}: ${err.problem} (the previous configuration stays active)`,
        hint: err.hint,
      };
      return publish(
        Object.freeze({
          ...snapshot,
          version: ++version,
          diagnostics: Object.freeze([
            ...snapshot.diagnostics.filter((x) => x.id !== "config" || x.level !== "error"),
            d,
          ]),
          loadedAt: Date.now(),
        }),
      );
    }
  };

  const reload = (): Promise<LoadedSnapshot> => {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      try {
        let s = await loadOnce();
        while (again) {
          again = false;
          s = await loadOnce();
        }
        return s;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  // One function for every load, so a source keeps a single listener across reloads.
  function sourceChanged(): void {
    reload().catch(() => {});
  }

  const ready = reload();
  ready.catch(() => {});

  return {
    ready,
    current() {
      if (!snapshot) throw new Error("tool registry is still loading; await registry.ready first");
      return snapshot;
    },
    reload,
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    watch({ debounceMs = 60 } = {}) {
      const watchers = new Map<string, FSWatcher>();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let stopped = false;
      const schedule = (name?: string | null) => {
        if (stopped || (name && /(^|\/)(node_modules|data|\.git)(\/|$)|\.install\.lock$/.test(name))) return;
        clearTimeout(timer);
        timer = setTimeout(() => {
          void reload().then(sync, () => {});
        }, debounceMs);
      };
      const sync = () => {
        if (stopped) return;
        const wanted = new Set<string>(watchDirs.filter((d) => existsSync(d)));
        for (const f of configFiles) wanted.add(f);
        // Parents of missing tool/plugin dirs, so creating `tools/` is noticed too.
        for (const d of watchDirs)
          if (!existsSync(d)) {
            const parent = d.slice(0, d.lastIndexOf("/"));
            if (existsSync(parent)) wanted.add(parent);
          }
        for (const [p, w] of watchers) if (!wanted.has(p)) w.close(), watchers.delete(p);
        for (const p of wanted) {
          if (watchers.has(p)) continue;
          try {
            const isFile = configFiles.includes(p);
            watchers.set(
              p,
              watch(p, { recursive: !isFile }, (_e, name) => schedule(name ? String(name) : null)),
            );
          } catch {
            /* vanished between check and watch */
          }
        }
      };
      void ready.then(sync, () => {});
      return () => {
        stopped = true;
        clearTimeout(timer);
        for (const w of watchers.values()) w.close();
        watchers.clear();
      };
    },
  };
}

/**
 * A changed setting that only a restart applies, as a warning at its key: the gateway says so
 * instead of silently keeping the old value.
 */
function restartWarnings(started: LoadedConfig, now: LoadedConfig): Diagnostic[] {
  if (started === now) return [];
  return keysNeedingRestart(started.config, now.config).map((key) => {
    const at = locateConfigKey(now.sources, key.split(".")) ?? locateConfigKey(started.sources, key.split("."));
    return {
      level: "warning",
      id: "config",
      source: at?.file ?? now.sources.at(-1) ?? "config",
      ...(at ? { line: at.line, column: at.column } : {}),
      message: `${key} changed: it applies after a restart; the running gateway keeps the value it started with`,
      hint: "Restart the gateway (stop it, then `openassistant start`). A reload applies plugins, config.<id>, tools, mcp and openapi only.",
    };
  });
}

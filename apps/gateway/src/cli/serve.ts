import { existsSync } from "node:fs";
import { join } from "node:path";
import { createRedactor } from "@openassistant/core/receipts";
import type { EnvLike } from "../auth/types.ts";
import { loadGatewaySettings } from "../config-adapter.ts";
import { createGateway, startGatewayProcesses, type Gateway, type GatewayProcesses } from "../gateway.ts";
import { storageFor } from "../storage/index.ts";
import { startLeasedSurface } from "../surfaces/leased.ts";
import { surfaceToRun } from "../surfaces/registry.ts";
import { installCrashGuard } from "./crash-guard.ts";
import { homedir } from "node:os";
import { configuredPluginDirs, writeEditorTsconfig } from "./editor-tsconfig.ts";
import { checkCredentials } from "./credentials.ts";
import { modelLine } from "./model-line.ts";
import { configuredTargets } from "../model/targets.ts";
import { CliError } from "./flags.ts";
import { describeReload, summarizeReload } from "./reload-report.ts";
import { formatDiagnostic } from "../diagnostics.ts";
import { formatDiagnostics, formatToolTable, toolCountLine } from "./tool-table.ts";

export interface ServeOptions {
  readonly cwd: string;
  readonly env: EnvLike;
  /** "auto": Discord when a token is configured, else the terminal. */
  readonly surface: "auto" | "terminal";
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
}

/**
 * `start` / `chat`: load config and tools (print the table and diagnostics), check credentials,
 * open the database, start a surface, and shut down gracefully on SIGINT/SIGTERM or end of input.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const { err } = options;
  const t0 = performance.now();
  // The guard goes in before any tool or plugin is imported: one that throws from a timer or an
  // unawaited promise while loading must be reported, not kill the process. Its redactor grows as
  // the secrets become known (token shapes → config secrets → every credential).
  let redact: (text: string) => string = createRedactor([]);
  let fatal: string | undefined;
  let onFatal: (why: string) => void = (why) => void (fatal ??= why);
  const removeCrashGuard = installCrashGuard({
    log: err,
    redact: (text) => redact(text),
    onFatal: (why) => {
      process.exitCode = 1;
      onFatal(why);
    },
  });
  try {
    await serveGuarded(options, t0, {
      setRedact: (r) => void (redact = r),
      fatal: () => fatal,
      onFatal: (handler) => void (onFatal = handler),
    });
  } finally {
    removeCrashGuard();
  }
}

interface GuardHooks {
  /** Upgrades the crash guard's redactor once more secrets are known. */
  setRedact(redact: (text: string) => string): void;
  /** A crash loop seen so far (while loading), if any. */
  fatal(): string | undefined;
  /** Where a crash loop goes once the surface can be stopped. */
  onFatal(handler: (why: string) => void): void;
}

async function serveGuarded(options: ServeOptions, t0: number, guard: GuardHooks): Promise<void> {
  // The sandbox and checker processes start first: they come up on other cores while config and
  // tools load. Once createGateway has them, its shutdown closes them; until then, this does.
  const processes = startGatewayProcesses();
  const handedOver = { done: false };
  try {
    await serveWith(processes, handedOver, options, t0, guard);
  } finally {
    if (!handedOver.done) await processes.close();
  }
}

async function serveWith(
  processes: GatewayProcesses,
  handedOver: { done: boolean },
  options: ServeOptions,
  t0: number,
  guard: GuardHooks,
): Promise<void> {
  const { out, err } = options;
  const loaded = await loadGatewaySettings(options.cwd, options.env, { watch: true });
  guard.setRedact(loaded.secrets.redact);
  const workspace = join(loaded.settings.projectRoot, ".openassistant");
  if (existsSync(workspace)) {
    try {
      const { projectRoot } = loaded.settings;
      writeEditorTsconfig(
        workspace,
        configuredPluginDirs(loaded.config.config.plugins, projectRoot, options.env.HOME ?? homedir()),
      );
    } catch (e) {
      err(
        `note: could not write ${join(workspace, "tsconfig.json")} for editors: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  for (const d of loaded.diagnostics) err(`config: ${formatDiagnostic(d)}`);
  const snapshot = loaded.tools.current();
  out(formatToolTable(snapshot, loaded.settings.policy));
  out(toolCountLine(snapshot.count));
  if (snapshot.diagnostics.length) err(`Tool problems:\n${formatDiagnostics(snapshot.diagnostics)}`);
  // Reloads (file watching, /reload) are reported to the operator: added/removed tools, new problems.
  let lastSeen = snapshot;
  const unsubscribeReloads = loaded.tools.subscribe((next) => {
    const lines = describeReload(lastSeen, next);
    lastSeen = next;
    if (lines.length) err(`Tools reloaded:\n${lines.map((l) => `  ${l}`).join("\n")}`);
  });

  // #35: Claude's credentials are needed when the configured model is Claude's; for a Claude fallback, their lack is told.
  const targets = configuredTargets(loaded.settings);
  const creds = targets.some((t) => t.provider === "anthropic")
    ? checkCredentials(options.env, loaded.settings.anthropic.profileOrder)
    : { ok: true as const, ids: [] };
  if (!creds.ok && targets[0]!.provider === "anthropic") {
    loaded.tools.close();
    throw new CliError(creds.message);
  }
  if (!creds.ok) err(`The Claude fallback cannot answer until it has a credential:\n${creds.message}`);

  const gateway = await createGateway({ cwd: options.cwd, env: options.env, loaded, processes, log: (l) => err(l) });
  handedOver.done = true;
  guard.setRedact(gateway.redact);
  // With storage.url, the PostgreSQL database (never its password), not the unused SQLite path.
  out(
    `Database: ${gateway.settings.storageUrl ? storageFor(gateway.settings).described : gateway.settings.databasePath}`,
  );
  out(modelLine(gateway.settings, targets, creds.ok ? creds.ids : []));
  if (gateway.http) {
    out(`HTTP API: ${gateway.http.url} (bearer token in ${gateway.http.tokenPath ?? "config http.token"})`);
    if (gateway.http.tokenCreated) out(`HTTP API token (shown once): ${gateway.http.token}`);
    if (gateway.console)
      out(
        `Console: ${gateway.console.baseUrl()}/console (sign in: openassistant console login <operator-id>; docs/console.md)`,
      );
  }
  if (gateway.mcpServer)
    out(
      `MCP server: ${gateway.mcpServer.url} (client tokens: openassistant mcp-server token create <name>; docs/mcp-server.md)`,
    );
  out(`Ready in ${Math.round(performance.now() - t0)} ms.`);

  const early = guard.fatal();
  if (early !== undefined) {
    unsubscribeReloads();
    await gateway.shutdown();
    throw new CliError(`${early} while starting: fix the tool or plugin named in the errors above.`);
  }

  let stopSurface: () => Promise<void> | void = () => {};
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = async (why: string) => {
      if (stopping) return;
      stopping = true;
      // /exit or Ctrl-D is the normal way out: a goodbye on stdout, nothing on stderr.
      if (why !== "input closed") err(`\n${why}: shutting down…`);
      await stopSurface();
      resolve();
    };
    process.once("SIGINT", () => void stop("interrupted"));
    process.once("SIGTERM", () => void stop("terminated"));
    guard.onFatal((why) => void stop(why));
    void startSurface(gateway, options, (fn) => (stopSurface = fn)).then(
      () => stop("input closed"),
      (e) => {
        err(`surface failed: ${e instanceof Error ? e.message : String(e)}`);
        // Discord start failures carry their own documented exit code (docs/discord.md).
        process.exitCode =
          typeof (e as { exitCode?: unknown })?.exitCode === "number" ? (e as { exitCode: number }).exitCode : 1;
        void stop("surface failed");
      },
    );
  });
  await stopped;
  unsubscribeReloads();
  await gateway.shutdown();
  out("Bye.");
}

/** Starts the first registered surface whose config asks for it and resolves when it ends on its own. */
async function startSurface(
  gateway: Gateway,
  options: ServeOptions,
  onStop: (fn: () => Promise<void> | void) => void,
): Promise<void> {
  const sections = gateway.settings.surfaces ?? {};
  const surface = surfaceToRun(sections, options.surface);
  const start = () =>
    surface.start({
      gateway,
      section: sections[surface.id],
      env: options.env,
      out: options.out,
      input: options.input ?? process.stdin,
      output: options.output ?? process.stdout,
      reload: async () => {
        const before = gateway.tools();
        return summarizeReload(before, await gateway.reloadTools());
      },
    });
  // #31: on a shared database, only the lease holder runs a one-connection surface (Discord).
  const url = gateway.settings.storageUrl;
  const leased =
    url && surface.oneAcrossGateways
      ? startLeasedSurface({ url, name: surface.id, start, out: options.out })
      : undefined;
  const running = leased ?? (await start());
  onStop(() => running.stop());
  // #30: the surface is up (it shows the resumed runs' cards and answers): runs a previous process left pending resume now.
  // #31: a dead gateway's runs are taken over by the gateway holding the surface that answers them.
  void gateway.resumeInterrupted(leased ? { takeOverWhile: leased.holding } : {});
  await running.done;
}

import { abilityToolBinding, abilityToolsEntry, workspaceDefinesAbilities } from "../../abilities/tools.ts";
import { defineCommand } from "citty";
import { ConfigError } from "@openassistant/core/config";
import { loadGatewayConfig } from "../../config-schema.ts";
import { workspaceDir } from "@openassistant/core/config";
import { ensureWorkspaceDependencies } from "@openassistant/core/plugins";
import { loadTools } from "@openassistant/core/plugins";
import { scheduleToolBinding, scheduleToolsEntry } from "../../schedules/tools.ts";
import { closeSourceKinds, SOURCE_KINDS } from "@openassistant/core/sources";
import { installNpmPlugins } from "@openassistant/core/plugins";
import { resolvePolicy } from "@openassistant/core/policy";
import type { PolicyRule } from "@openassistant/core/policy";
import type { LoadResult } from "@openassistant/core/plugins";
import { homedir } from "node:os";
import { join } from "node:path";
import { displayPath } from "../display-path.ts";
import { toolCountLine } from "../tool-table.ts";
import { commandTable, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

const listArgs = {
  json: { type: "boolean", description: "Print entries and diagnostics as JSON", default: false },
  project: PROJECT_ARG,
} as const;

/** `auto`, or `auto → deny by policy` when an operator rule changes the tool's own mode. */
export function effectiveApproval(path: string, approval: "auto" | "required", rules: readonly PolicyRule[]): string {
  const mode = resolvePolicy(path, approval, rules).mode;
  return mode === approval ? approval : `${approval} → ${mode} by policy`;
}

/** A plugin's hooks in running order's terms (#29): `hooks (priority 7): tool.before, run.end · critical`. */
function hooksLine(e: LoadResult["entries"][number]): string {
  const hooks = e.hooks ? `hooks (priority ${e.hooks.priority}): ${e.hooks.events.join(", ") || "none"}` : "no hooks";
  return e.critical ? `${hooks} · critical (the gateway does not start without it)` : hooks;
}

/** Human-readable table of every discovered tool file and plugin, their tools and diagnostics. */
function formatPluginList(r: LoadResult, cwd: string, rules: readonly PolicyRule[] = [], projectRoot = cwd): string {
  const rel = (p: string) => displayPath(p, cwd);
  // The one command that fixes it, runnable from where the user is.
  const inProject = cwd === projectRoot || cwd.startsWith(`${projectRoot}/`);
  const here = (text: string) => text.replaceAll(`${cwd}/`, "");
  const fix = (hint: string) =>
    here(
      inProject
        ? hint
        : hint.replaceAll(
            "`openassistant plugins install`",
            `\`openassistant plugins install --project ${rel(projectRoot)}\``,
          ),
    );
  const rows = r.entries.map((e) => [e.id, e.kind, e.stale ? "loaded (stale)" : e.status, e.origin, rel(e.source)]);
  const head = ["ID", "KIND", "STATUS", "ORIGIN", "SOURCE"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  const out: string[] = [];
  if (r.entries.length === 0)
    out.push("No tools or plugins found. Create one with `openassistant tools create <name>`.");
  else out.push(line(head));
  for (const e of r.entries) {
    out.push(line([e.id, e.kind, e.stale ? "loaded (stale)" : e.status, e.origin, rel(e.source)]));
    if (e.hooks || e.critical) out.push(`    ${hooksLine(e)}`);
    for (const t of e.tools)
      out.push(
        `    tools.${t.path}  [${effectiveApproval(t.path, t.approval, rules)}]${t.enabled ? "" : " (disabled in config.tools)"}  ${t.description.split("\n")[0]!.slice(0, 70)}`,
      );
  }
  const counted = { error: 0, warning: 0, info: 0 };
  for (const d of r.diagnostics) counted[d.level]++;
  if (r.diagnostics.length) {
    out.push("", `Diagnostics (${counted.error} error, ${counted.warning} warning, ${counted.info} info):`);
    for (const d of r.diagnostics) {
      const where = `${rel(d.source)}${d.line ? `:${d.line}${d.column ? `:${d.column}` : ""}` : ""}`;
      out.push(`  ${d.level.toUpperCase()} ${d.id} (${where}): ${here(d.message)}`, `    fix: ${fix(d.hint)}`);
    }
  }
  const tools = r.entries.reduce((n, e) => n + e.tools.filter((t) => t.enabled).length, 0);
  out.push("", toolCountLine(tools));
  return out.join("\n");
}

const listCommand = defineCommand({
  meta: {
    name: "list",
    description: "Show every discovered tool and plugin with status, source, approval modes and diagnostics",
  },
  args: listArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, listArgs);
      const root = resolveProject(a.project);
      let result: LoadResult;
      let rules: readonly PolicyRule[] = [];
      try {
        const config = await loadGatewayConfig({ cwd: root, env: process.env, unsetVars: "report" });
        rules = config.config.policy.rules;
        // Listing is side-effect free: no install, no package.json, no node_modules, no data dirs.
        result = await loadTools({
          config,
          env: process.env,
          readOnly: true,
          declarations: a.json,
          log: () => {},
          // With the gateway's own tools (tools.workspace.*): the count is the one `start` prints. No reload: listing never writes.
          host: {},
          // #33: and the gateway's tools.schedules.* (listed, never run here).
          bundled: [
            scheduleToolsEntry(scheduleToolBinding()),
            // #32: and tools.abilities.* when the workspace defines an ability (a plugin's alone: not counted here).
            ...(workspaceDefinesAbilities(config.projectRoot) ? [abilityToolsEntry(abilityToolBinding())] : []),
          ],
        });
      } catch (err) {
        if (err instanceof ConfigError) throw new Error(`invalid config: ${err.message}`);
        throw err;
      } finally {
        // The listing connected to each MCP server: stop their processes and sockets, so the command ends.
        await closeSourceKinds(SOURCE_KINDS);
      }
      if (a.json) {
        const { tree: _tree, declarations, ...rest } = result;
        console.log(JSON.stringify({ ...rest, declarationsHash: declarations?.hash }, null, 2));
      } else console.log(formatPluginList(result, process.cwd(), rules, root));
      if (result.diagnostics.some((d) => d.level === "error")) process.exitCode = 1;
    }),
});

const installArgs = { project: listArgs.project } as const;

const installCommand = defineCommand({
  meta: {
    name: "install",
    description: "Install what tools import and the npm plugins in config.plugins (start installs tool imports too)",
  },
  args: installArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, installArgs);
      let config: Awaited<ReturnType<typeof loadGatewayConfig>>;
      try {
        config = await loadGatewayConfig({ cwd: resolveProject(a.project), env: process.env });
      } catch (err) {
        if (err instanceof ConfigError) throw new Error(`invalid config: ${err.message}`);
        throw err;
      }
      const cwd = process.cwd();
      const show = (p: string) => displayPath(p, cwd);
      const progress = (line: string) => console.log(line.replace(/(?<![\w.])\/[^\s,:)]+/g, (p) => show(p)));
      const project = workspaceDir(config.projectRoot);
      const problems: string[] = [];
      const installed: string[] = [];
      for (const ws of project === config.globalDir ? [project] : [project, config.globalDir]) {
        const r = await ensureWorkspaceDependencies(ws, { env: process.env, progress });
        installed.push(...r.installed, ...r.added);
        for (const d of r.diagnostics)
          problems.push(`${d.level.toUpperCase()} ${show(d.source)}: ${d.message}\n  fix: ${d.hint}`);
        for (const [file, f] of r.toolFailures) problems.push(`ERROR ${show(file)}: ${f.message}\n  fix: ${f.hint}`);
      }
      const plugins = await installNpmPlugins(project, config.config.plugins, {
        projectRoot: config.projectRoot,
        homeDir: process.env.HOME ?? homedir(),
        configFile: config.sources.at(-1) ?? join(project, "config.jsonc"),
        env: process.env,
        progress,
      });
      installed.push(...plugins.installed);
      for (const d of plugins.diagnostics) problems.push(`ERROR ${show(d.source)}: ${d.message}\n  fix: ${d.hint}`);
      for (const p of problems) console.error(p);
      if (problems.some((p) => p.startsWith("ERROR"))) process.exitCode = 1;
      if (installed.length) console.log(`Installed ${[...new Set(installed)].join(", ")}.`);
      else if (!problems.length) console.log("Dependencies are up to date.");
    }),
});

/** `openassistant plugins <subcommand>`. */
export const pluginsCommand = defineCommand({
  meta: { name: "plugins", description: "Inspect tools and plugins" },
  subCommands: commandTable({ list: listCommand, install: installCommand }),
});

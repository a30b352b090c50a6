import { defineCommand } from "citty";
import { loadProgramChecker } from "@openassistant/core/codemode";
import { storageFor } from "../../storage/index.ts";
import { closeSourceKinds, SOURCE_KINDS } from "@openassistant/core/sources";
import { ConfigError } from "@openassistant/core/config";
import { isCriticalDiagnostic } from "@openassistant/core/plugins";
import type { EnvLike } from "../../auth/types.ts";
import { loadGatewaySettings } from "../../config-adapter.ts";
import { DEFAULT_MODEL } from "../../model/config-schema.ts";
import { SURFACES } from "../../surfaces/registry.ts";
import { resolveConfigDir } from "../../auth/paths.ts";
import {
  checkCredentialShapes,
  checkEndpoint,
  checkReceipts,
  type CheckLevel,
  type DoctorCheck,
} from "../doctor-checks.ts";
import { guard, rejectUnknownFlags } from "../flags.ts";
import { checkModelEndpoints } from "../doctor-models.ts";
import { configuredTargets } from "../../model/targets.ts";
import { formatDiagnostic } from "../../diagnostics.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";
import { mcpServerChecks } from "../../mcp-server/doctor.ts";

const args = {
  project: PROJECT_ARG,
} as const;

export type { CheckLevel, DoctorCheck } from "../doctor-checks.ts";

/** Every config problem as lines: each error of the file, and each warning marked as one. */
function configCheck(e: unknown): DoctorCheck {
  if (!(e instanceof ConfigError))
    return { name: "config", level: "fail", detail: e instanceof Error ? e.message : String(e) };
  const all = [e, ...e.more];
  const lines = all.map(
    (c) =>
      `error ${c.file}:${c.line}:${c.column}: ${c.keyPath}: ${c.problem}. ${c.hint.replace(/ \(\d+ more problems? in this file after this one\.\)$/, "")}`,
  );
  return { name: "config", level: "fail", detail: `${all.length} error(s):\n${lines.join("\n")}` };
}

/** Every check `doctor` runs; failures say what to do. */
async function runDoctor(cwd: string, env: EnvLike): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  let loaded: Awaited<ReturnType<typeof loadGatewaySettings>>;
  try {
    loaded = await loadGatewaySettings(cwd, env, { unsetVars: "report" });
  } catch (e) {
    checks.push(configCheck(e));
    // What does not need the config is still checked; the rest waits for a valid one.
    checks.push(...checkCredentialShapes(env));
    checks.push(await checkEndpoint(env, { model: DEFAULT_MODEL }));
    checks.push({
      name: "the rest",
      level: "warn",
      detail: "database, receipts, tools and Discord are checked once the config is valid",
    });
    return checks;
  }
  const { settings, tools } = loaded;
  const errors = loaded.diagnostics.filter((d) => d.level === "error").length;
  checks.push(
    loaded.diagnostics.length
      ? {
          name: "config",
          level: errors ? "fail" : "warn",
          detail: `${errors} error(s), ${loaded.diagnostics.length - errors} warning(s):\n${loaded.diagnostics.map(formatDiagnostic).join("\n")}`,
        }
      : { name: "config", level: "ok", detail: `valid (project ${settings.projectRoot})` },
  );

  // #35: Claude's credentials and endpoint when a configured model is Claude's; every other endpoint too.
  const targets = configuredTargets(settings);
  const claude = targets.find((t) => t.provider === "anthropic");
  if (claude) {
    checks.push(...checkCredentialShapes(env, settings.anthropic.profileOrder));
    checks.push(await checkEndpoint(env, { model: claude.name, profileOrder: settings.anthropic.profileOrder }));
  }
  checks.push(...(await checkModelEndpoints(targets)));

  const storage = storageFor(settings);
  if (storage.backend.health) {
    // A server (storage.url): its connection, schema and triggers; the receipts once it answers.
    const health = await storage.backend.health(storage.location);
    checks.push(...health);
    if (health[0]?.level !== "fail") checks.push(await checkReceipts(storage, resolveConfigDir(process.env)));
  } else
    try {
      await storage.backend.probeWritable(storage.location);
      checks.push({ name: "database", level: "ok", detail: `writable: ${storage.described}` });
      checks.push(await checkReceipts(storage, resolveConfigDir(process.env)));
    } catch (e) {
      checks.push({
        name: "database",
        level: "fail",
        detail: `${settings.databasePath} is not writable (${e instanceof Error ? e.message : String(e)}); fix its permissions or set database.path in the config.`,
      });
    }

  const snapshot = tools.current();
  tools.close();
  // Loading connected to each MCP server (and whatever else a kind keeps open): close them, so the command ends.
  await closeSourceKinds(SOURCE_KINDS);
  checks.push(
    snapshot.diagnostics.length
      ? {
          name: "tools",
          level: snapshot.errors ? "fail" : "warn",
          detail: `${snapshot.count} loaded, ${snapshot.diagnostics.length} problem(s):\n${snapshot.diagnostics.map((d) => `  - ${formatDiagnostic(d)}`).join("\n")}`,
        }
      : {
          name: "tools",
          level: snapshot.count ? "ok" : "warn",
          detail: snapshot.count
            ? `${snapshot.count} loaded`
            : "none loaded: add one with `openassistant tools create <name>`",
        },
  );

  const critical = snapshot.diagnostics.filter(isCriticalDiagnostic);
  if (critical.length)
    checks.push({
      name: "critical plugins",
      level: "fail",
      detail: `\`start\` refuses to start:\n${critical.map((d) => `  - ${formatDiagnostic(d)}`).join("\n")}`,
    });

  checks.push(typecheckDeclarations(await loadProgramChecker(), snapshot.declarations.text));

  // Each registered surface checks its own section (Discord: the token's shape, who can talk and approve).
  for (const surface of SURFACES) checks.push(...(surface.doctor?.(settings.surfaces?.[surface.id]) ?? []));
  checks.push(...mcpServerChecks(settings));
  return checks;
}

/** The declarations compile on their own, and a snippet that uses them compiles against them. */
function typecheckDeclarations(
  checker: Awaited<ReturnType<typeof loadProgramChecker>>,
  declarations: string,
): DoctorCheck {
  const own = checker.checkDeclarations(declarations);
  const use = checker.check("return tools;", declarations);
  const problems = [...own, ...(use.ok ? [] : [use.text])];
  if (problems.length === 0) return { name: "typecheck", level: "ok", detail: "the tool declarations compile" };
  const shown = problems.slice(0, 20);
  const more = problems.length > shown.length ? `\n(${problems.length - shown.length} more)` : "";
  return {
    name: "typecheck",
    level: "fail",
    detail: `the tool declarations do not compile (${problems.length} error(s), each with its line of the declarations):\n${shown.join("\n")}${more}`,
  };
}

const ICON: Record<CheckLevel, string> = { ok: "✓", warn: "⚠", fail: "✗" };

/** `openassistant doctor`: exit code 1 when any check fails. */
export const doctorCommand = defineCommand({
  meta: { name: "doctor", description: "Check config, credentials, Discord access, database, receipts and tools" },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      const checks = await runDoctor(resolveProject(a.project), process.env);
      for (const c of checks) console.log(`${ICON[c.level]} ${c.name}: ${c.detail.replace(/\n/g, "\n    ")}`);
      const failed = checks.filter((c) => c.level === "fail").length;
      const warned = checks.filter((c) => c.level === "warn").length;
      const warnings = warned ? `${warned} warning(s) (⚠: worth a look, nothing is broken).` : "";
      console.log(failed ? `\n${failed} problem(s) found. ${warnings}`.trimEnd() : `\nAll good. ${warnings}`.trimEnd());
      if (failed) process.exitCode = 1;
    }),
});

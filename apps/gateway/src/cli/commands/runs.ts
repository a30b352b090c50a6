import { existsSync } from "node:fs";
import { defineCommand } from "citty";
import { receiptKeyPath } from "@openassistant/core/receipts";
import { escapeInvisible } from "@openassistant/core/text";
import { resolveConfigDir } from "../../auth/paths.ts";
import { loadGatewaySettings } from "../../config-adapter.ts";
import { openGatewayRunJournal } from "../../runs/journal.ts";
import { cancelRun, pendingRuns, type PendingRun } from "../../runs/pending.ts";
import { storageBackend, type ReceiptsOnly } from "../../storage/index.ts";
import { CliError, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

const args = {
  action: {
    type: "positional",
    description: "list: runs with a call that has no outcome (--pending); cancel <run id>: close a pending run's calls",
    required: false,
    valueHint: "list | cancel",
  },
  id: { type: "positional", description: "The run id (for cancel)", required: false, valueHint: "run id" },
  pending: { type: "boolean", description: "Only runs with a call waiting for a decision or cut off running" },
  json: { type: "boolean", description: "Print JSON instead of lines" },
  project: PROJECT_ARG,
} as const;

/** `openassistant runs`: the runs a stopped or killed gateway left pending, and cancelling one. */
export const runsCommand = defineCommand({
  meta: {
    name: "runs",
    description: "Runs left pending by a stopped gateway: `runs list --pending`, `runs cancel <run id>`",
  },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      const action = a.action ?? "list";
      if (action !== "list" && action !== "cancel")
        throw new CliError(`Unknown action "${action}": use "runs list --pending" or "runs cancel <run id>"`);
      if (action === "list" && a.pending !== true)
        throw new CliError(
          "Only pending runs are listed here: openassistant runs list --pending (all runs: openassistant receipts)",
        );
      if (action === "cancel" && !a.id)
        throw new CliError("Name the run: openassistant runs cancel <run id> (ids: openassistant runs list --pending)");
      const cwd = resolveProject(a.project);
      const { settings } = await loadGatewaySettings(cwd, process.env, { tools: false });
      const opened = await openKeyed(settings.databasePath);
      try {
        if (action === "cancel") return await cancel(opened, a.id!, a.json === true);
        const runs = await pendingRuns(opened.receipts, openGatewayRunJournal(settings.dataDir));
        if (a.json) return console.log(JSON.stringify({ count: runs.length, runs }, null, 2));
        if (runs.length === 0) return console.log("No pending runs.");
        for (const run of runs) console.log(formatRun(run));
      } finally {
        await opened.close();
      }
    }),
});

async function cancel(opened: ReceiptsOnly, runId: string, json: boolean): Promise<void> {
  const closed = await cancelRun(opened.receipts, runId);
  if (json) return console.log(JSON.stringify({ runId, closed }, null, 2));
  if (closed.length === 0)
    throw new CliError(
      `Run ${escapeInvisible(runId)} has no pending call (finished, or not a run id: openassistant runs list --pending).`,
    );
  console.log(`Cancelled ${escapeInvisible(runId)}:`);
  for (const c of closed)
    console.log(
      `  ${c.callId}  tools.${escapeInvisible(c.toolPath)}  ${c.phase === "started" ? "failed (outcome unknown)" : "denied"}`,
    );
}

function formatRun(run: PendingRun): string {
  const when = new Date(run.started).toISOString().replace("T", " ").slice(0, 19);
  const where = run.conversation ? `  ${escapeInvisible(run.conversation)}` : "";
  const journal = run.journaled ? `journaled${run.resumes ? `, resumed ${run.resumes}×` : ""}` : "not journaled";
  const calls = run.calls.map(
    (c) =>
      `    ${c.callId}  tools.${escapeInvisible(c.toolPath)}  ${c.phase === "started" ? "cut off while running" : `waiting for a decision (${c.phase})`}`,
  );
  return [`${escapeInvisible(run.runId)}  ${when}${where}  (${journal})`, ...calls].join("\n");
}

/** Cancelling appends receipts: the store must be keyed with the gateway's key from the config dir. */
async function openKeyed(databasePath: string): Promise<ReceiptsOnly> {
  const backend = storageBackend();
  if (!backend.exists(databasePath))
    throw new CliError(`No database at ${databasePath} yet: start the gateway (bun start) to create it.`);
  const configDir = resolveConfigDir(process.env);
  if (!existsSync(receiptKeyPath(configDir)))
    throw new CliError(
      `No receipt key at ${receiptKeyPath(configDir)}: run this with the same OPENASSISTANT_CONFIG_DIR as the gateway.`,
    );
  return backend.openReceipts(databasePath, configDir);
}

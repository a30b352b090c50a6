import { existsSync } from "node:fs";
import { defineCommand } from "citty";
import { cutText } from "@openassistant/core/text";
import {
  callStatus,
  formatSummaryForModel,
  receiptKeyPath,
  summarizeRun,
  type CallStatus,
} from "@openassistant/core/receipts";
import type { Receipt } from "@openassistant/core/receipts";
import { previewInputJson } from "@openassistant/core/approvals";
import { escapeInvisible, hasInvisible } from "@openassistant/core/text";
import { resolveConfigDir } from "../../auth/paths.ts";
import { loadGatewaySettings } from "../../config-adapter.ts";
import { type ChosenStorage, type ReceiptsOnly, storageFor } from "../../storage/index.ts";
import { CliError, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

const args = {
  action: {
    type: "positional",
    description: "verify: check every receipt in the database against the keyed chain and its head",
    required: false,
    valueHint: "verify",
  },
  run: {
    type: "string",
    description: "Only this run id (also prints its activity summary and integrity)",
    valueHint: "id",
  },
  tool: {
    type: "string",
    description: "Tool path or pattern: calendar.*, *.delete, calendar.**",
    valueHint: "pattern",
  },
  status: {
    type: "string",
    description: "Calls whose current status is succeeded | failed | denied | pending",
    valueHint: "status",
  },
  since: {
    type: "string",
    description: "Only receipts at or after this time (ISO date or epoch ms)",
    valueHint: "time",
  },
  limit: { type: "string", description: "Most recent N receipts (default 100)", valueHint: "n" },
  json: { type: "boolean", description: "Print JSON instead of a table" },
  project: PROJECT_ARG,
} as const;

const STATUSES: readonly CallStatus[] = ["succeeded", "failed", "denied", "pending"];

/** `openassistant receipts`: query the append-only receipt log. */
export const receiptsCommand = defineCommand({
  meta: {
    name: "receipts",
    description: "List tool-call receipts (filter by run, tool, status, time); `receipts verify` checks them all",
  },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      if (a.action !== undefined && a.action !== "verify")
        throw new CliError(`Unknown action "${a.action}": the only action is "verify" (openassistant receipts verify)`);
      if (a.action === "verify") return verify(a.project, a.json === true);
      if (a.status && !STATUSES.includes(a.status as CallStatus))
        throw new CliError(`--status must be one of ${STATUSES.join(", ")} (got "${a.status}")`);
      const limit = a.limit === undefined ? 100 : Number(a.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new CliError(`--limit must be a positive integer (got "${a.limit}")`);
      let since: number | undefined;
      if (a.since) {
        since = /^\d+$/.test(a.since) ? Number(a.since) : Date.parse(a.since);
        if (!Number.isFinite(since))
          throw new CliError(`--since must be an ISO date or epoch milliseconds (got "${a.since}")`);
      }
      const cwd = resolveProject(a.project);
      const { settings } = await loadGatewaySettings(cwd, process.env, { tools: false });
      const opened = await openStore(storageFor(settings), false);
      try {
        const store = opened.receipts;
        let rows: Receipt[] = await store.query({
          ...(a.run ? { runId: a.run } : {}),
          ...(a.tool ? { tool: a.tool } : {}),
          ...(since !== undefined ? { since } : {}),
        });
        if (a.status) {
          const status = callStatus(rows);
          rows = rows.filter((r) => status.get(r.callId) === a.status);
        }
        rows = rows.slice(-limit);
        if (a.json) {
          const payload: Record<string, unknown> = { count: rows.length, receipts: rows };
          if (a.run) {
            payload.summary = summarizeRun(await store.byRun(a.run));
            payload.integrity = await store.verifyRun(a.run);
          }
          console.log(visibleJson(JSON.stringify(payload, null, 2)));
          return;
        }
        if (rows.length === 0) {
          console.log("No receipts match.");
          return;
        }
        for (const r of rows) console.log(a.run ? formatRowWithInput(r) : formatRow(r));
        if (a.run) {
          const integrity = await store.verifyRun(a.run);
          const activity = formatSummaryForModel(summarizeRun(await store.byRun(a.run)));
          console.log(`\nRelevant activity of ${a.run}:\n${activity}`);
          console.log(
            integrity.ok ? "Hash chain: intact" : `Hash chain: BROKEN at ${integrity.brokenAt} (${integrity.reason})`,
          );
        }
      } finally {
        await opened.close();
      }
    }),
});

/**
 * The store, keyed with the gateway's key from the config dir. Listing works without it (a run's
 * integrity line then says the key is missing); `verify` requires it.
 */
async function openStore(storage: ChosenStorage, requireKey: boolean): Promise<ReceiptsOnly> {
  const { backend, location } = storage;
  if (!(await backend.exists(location)))
    throw new CliError(`No database at ${storage.described} yet: start the gateway (bun start) to create it.`);
  const configDir = resolveConfigDir(process.env);
  const keyFile = receiptKeyPath(configDir);
  if (existsSync(keyFile)) return backend.openReceipts(location, configDir);
  if (requireKey)
    throw new CliError(
      `No receipt key at ${keyFile}. The gateway creates it on its first start and signs every receipt with it; run this with the same OPENASSISTANT_CONFIG_DIR as the gateway, or restore the key file.`,
    );
  return backend.openReceipts(location);
}

async function verify(project: string | undefined, json: boolean): Promise<void> {
  const cwd = resolveProject(project);
  const { settings } = await loadGatewaySettings(cwd, process.env, { tools: false });
  const storage = storageFor(settings);
  const opened = await openStore(storage, true);
  try {
    const store = opened.receipts;
    const result = await store.verify();
    const info = await store.info();
    if (json)
      console.log(
        JSON.stringify({ database: storage.described, key: info.keyPath, head: info.headPath, ...result }, null, 2),
      );
    else if (result.ok) {
      console.log(`Receipts in ${storage.described}: intact.`);
      console.log(`  ${result.keyed} keyed (HMAC-SHA256, one chain, key ${info.keyPath})`);
      if (result.legacy > 0)
        console.log(
          `  ${result.legacy} legacy (written before the keyed chain: unkeyed SHA-256 per run, anchored when the keyed chain began)`,
        );
      console.log(
        result.head === "checked"
          ? `  tail checked against the head ${info.headPath}`
          : `  no head record for this database: a removed tail cannot be detected`,
      );
    } else console.log(`Receipts in ${storage.described}: BROKEN at ${result.brokenAt}: ${result.reason}`);
    if (!result.ok) process.exitCode = 1;
  } finally {
    await opened.close();
  }
}

/** One line per receipt. Text a model could have written shows invisible and bidi characters escaped. */
function formatRow(r: Receipt): string {
  const when = new Date(r.at).toISOString().replace("T", " ").slice(0, 19);
  // The decider belongs to the decision rows; later phases carry it only for the record.
  const who =
    r.decidedBy && (r.phase === "approved" || r.phase === "denied") ? ` by ${escapeInvisible(r.decidedBy)}` : "";
  // #35: each call's first row says which model wrote the code (every row of the run records it).
  const writer = r.model && r.phase === "requested" ? ` (code by ${escapeInvisible(r.model)})` : "";
  const detail = escapeInvisible(r.error ?? r.reason ?? r.outputPreview ?? r.inputPreview ?? "").replace(/\s+/g, " ");
  return `${r.id}  ${when}  ${escapeInvisible(r.runId)}  ${r.callId}  ${escapeInvisible(r.toolPath)}  ${r.phase}${who}${writer}${detail ? `  ${cutText(detail, 120)}` : ""}${r.legacy ? "  (legacy hash)" : ""}`;
}

/** With --run: the row, then the call's input one field per line (each cut on its own). */
function formatRowWithInput(r: Receipt): string {
  const row = formatRow(r);
  if (r.phase !== "requested" || !r.inputPreview) return row;
  return `${row}\n${previewInputJson(r.inputPreview, { maxChars: 2000 })
    .split("\n")
    .map((line) => `      ${line}`)
    .join("\n")}`;
}

/** JSON with invisible and bidi characters written as \u escapes: the same data, shown safely. */
function visibleJson(json: string): string {
  return json.replace(/[\u{7f}-\u{10ffff}]/gu, (c) =>
    hasInvisible(c)
      ? [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")
      : c,
  );
}

import { createModelCatalog } from "../model/catalog.ts";
import { configuredTargets } from "../model/targets.ts";
import { chatProvidersOf } from "../services/models.ts";
import { join } from "node:path";
import { workspaceDir, type Diagnostic } from "@openassistant/core/config";
import { toolHistory } from "@openassistant/core/workspace";
import { resolvePolicy } from "@openassistant/core/policy";
import { flattenToolTree } from "@openassistant/core/tools";
import type { Gateway } from "../gateway.ts";
import type { ToolSnapshot } from "../tools-source.ts";
import type { SurfacePort, ToolReport, ToolVersionInfo } from "./port.ts";

/** How many assistant-written file changes `/tools` shows. */
const VERSIONS_SHOWN = 10;

/** The newest changes to assistant-written tool files; who approved each comes from its receipts. */
async function versionsOf(g: Gateway): Promise<ToolVersionInfo[]> {
  const versions = toolHistory(join(workspaceDir(g.settings.projectRoot), "history"))
    .list()
    .slice(-VERSIONS_SHOWN)
    .reverse();
  return Promise.all(
    versions.map(async (v) => {
      const approved = v.callId ? await g.receipts.query({ callId: v.callId, phase: "approved" }) : [];
      const approvedBy = approved[0]?.decidedBy;
      return {
        name: v.name,
        action: v.action,
        ...(v.sha256 ? { sha256: v.sha256 } : {}),
        at: v.at,
        ...(approvedBy ? { approvedBy } : {}),
        ...(v.reason ? { reason: v.reason } : {}),
      };
    }),
  );
}

function reportOf(
  snapshot: ToolSnapshot,
  policy: Gateway["settings"]["policy"],
  versions: ToolVersionInfo[] = [],
): ToolReport {
  let tools: ToolReport["tools"] = [];
  const diagnostics: Diagnostic[] = [...snapshot.diagnostics];
  try {
    tools = flattenToolTree(snapshot.tree).map((t) => {
      const effective = resolvePolicy(t.path, t.definition.approval, policy).mode;
      return {
        path: t.path,
        approval: effective,
        description:
          effective === t.definition.approval
            ? t.definition.description
            : `${t.definition.description} (operator policy: ${effective})`,
      };
    });
  } catch (e) {
    diagnostics.push({
      level: "error",
      id: "tools",
      source: "tools",
      message: e instanceof Error ? e.message : String(e),
      hint: "Rename or remove one of the clashing tools, then /reload.",
    });
  }
  return { tools, diagnostics, ...(versions.length ? { versions } : {}) };
}

/** The names of the abilities defined now (loaded afresh, like `/ability list`). */
function abilityNamesOf(service: NonNullable<Gateway["abilities"]>): () => Promise<string[]> {
  return async () => [...(await service.list()).abilities.keys()];
}

function isPort(g: unknown): g is SurfacePort {
  return typeof (g as SurfacePort).listTools === "function" && "broker" in (g as object);
}

/** Adapts the gateway (apps/gateway/src/gateway.ts) to what every surface uses. */
export function surfacePort(gateway: Gateway | SurfacePort): SurfacePort {
  if (isPort(gateway)) return gateway;
  const g = gateway;
  const chatProviders = chatProvidersOf(g.settings);
  return {
    handleMessage: (input) => g.handleMessage(input),
    broker: g.approvals,
    receipts: g.receipts,
    openStore: (backends) => g.openSurfaceStore(backends),
    redact: g.redact,
    secrets: g.secrets,
    ...(g.console ? { receiptLink: g.console.callLink } : {}),
    listTools: async () => reportOf(g.tools(), g.settings.policy, await versionsOf(g)),
    reload: async () => reportOf(await g.reloadTools(), g.settings.policy, await versionsOf(g)),
    events: g.events,
    sessions: g.sessions,
    defaultModel: g.settings.turn.model,
    models: createModelCatalog(configuredTargets(g.settings), (t, signal) => chatProviders(t).listModels(signal)),
    ...(g.abilities ? { abilityNames: abilityNamesOf(g.abilities) } : {}),
  };
}

import { resolvePolicy } from "@openassistant/core/policy/resolve.ts";
import { flattenToolTree } from "@openassistant/core/tools/flatten.ts";
import type { Gateway } from "../gateway.ts";
import type { ToolSnapshot } from "../tools-source.ts";
import type { DiscordGatewayPort, ToolReport } from "./port.ts";

function reportOf(snapshot: ToolSnapshot, policy: Gateway["settings"]["policy"]): ToolReport {
  let tools: ToolReport["tools"] = [];
  const diagnostics = snapshot.diagnostics.map((message) => ({ message, level: "error" as const }));
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
    diagnostics.push({ message: e instanceof Error ? e.message : String(e), level: "error" });
  }
  return { tools, diagnostics };
}

function isPort(g: unknown): g is DiscordGatewayPort {
  return typeof (g as DiscordGatewayPort).listTools === "function" && "broker" in (g as object);
}

/** Adapts the gateway (apps/gateway/src/gateway.ts) to what the Discord surface uses. */
export function portFromGateway(gateway: Gateway | DiscordGatewayPort): DiscordGatewayPort {
  if (isPort(gateway)) return gateway;
  const g = gateway;
  return {
    handleMessage: (input) => g.handleMessage(input),
    broker: g.approvals,
    receipts: g.receipts,
    db: g.db,
    redact: g.redact,
    listTools: () => reportOf(g.tools(), g.settings.policy),
    reload: async () => reportOf(await g.reloadTools(), g.settings.policy),
  };
}

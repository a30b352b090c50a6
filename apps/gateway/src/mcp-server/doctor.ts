import type { DoctorCheck } from "../cli/doctor-checks.ts";
import type { GatewaySettings } from "../settings.ts";
import { openMcpTokens } from "./tokens.ts";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** `doctor`'s lines for the MCP server: none when it is off; its tokens and address when on. */
export function mcpServerChecks(settings: Pick<GatewaySettings, "mcpServer" | "dataDir">): DoctorCheck[] {
  const on = settings.mcpServer;
  if (!on) return [];
  const checks: DoctorCheck[] = [];
  const name = "mcp server";
  let clients: ReturnType<ReturnType<typeof openMcpTokens>["list"]>;
  try {
    clients = openMcpTokens(settings.dataDir).list();
  } catch (e) {
    return [{ name, level: "fail", detail: e instanceof Error ? e.message : String(e) }];
  }
  checks.push(
    clients.length === 0
      ? {
          name,
          level: "warn",
          detail:
            "enabled, but no MCP client has a token, so none can connect: openassistant mcp-server token create <name>",
        }
      : {
          name,
          level: "ok",
          detail: `enabled on ${on.host}:${on.port === 0 ? "(a free port)" : on.port}; clients: ${clients.map((c) => c.name).join(", ")}`,
        },
  );
  if (!LOOPBACK.has(on.host))
    checks.push({
      name,
      level: "warn",
      detail: `mcpServer.host is ${on.host}: other machines can reach the MCP endpoint (a client token still guards it); use 127.0.0.1 unless a proxy or tunnel you trust is in front`,
    });
  return checks;
}

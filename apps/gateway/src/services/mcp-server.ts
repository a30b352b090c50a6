import { createCodeModeRunner } from "@openassistant/core/codemode";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import type { McpServer } from "../mcp-server/server.ts";
import type { EventBus } from "../events/bus.ts";
import type { GatewaySettings } from "../settings.ts";
import type { ToolSource } from "../tools-source.ts";
import { resource } from "./resource.ts";
import type { SecretRegistry } from "@openassistant/core/receipts";

/**
 * #34: the gateway's tools served to MCP clients, when `mcpServer.enabled` (docs/mcp-server.md).
 * Its calls run on a runner of their own, made from the model's runner's options without the run
 * journal: a call cut off by a restart is not resumed, since the client that asked is gone (its
 * approval is closed at start like any orphan's).
 */
export function mcpServerService(o: {
  readonly settings: GatewaySettings;
  /** The model's runner's options (the redactor given: descriptions pass it too). */
  readonly runnerOptions: Parameters<typeof createCodeModeRunner>[0] & { readonly redact: (text: string) => string };
  readonly toolSource: ToolSource;
  /** The gateway's secret registry: a token a client presents is redacted everywhere from then on. */
  readonly secrets: Pick<SecretRegistry, "add">;
  readonly events: Pick<EventBus, "emit">;
  readonly closing: () => string;
  readonly log: (line: string) => void;
}): Effect.Effect<McpServer | undefined, unknown, Scope.Scope> {
  return Effect.gen(function* () {
    const settings = o.settings.mcpServer;
    if (!settings) return undefined;
    const runner = yield* resource(
      "MCP server runner",
      () => createCodeModeRunner(o.runnerOptions),
      (r) => r.close({ reason: o.closing() }),
      o.log,
    );
    // Imported only now: a gateway without the MCP server never loads the MCP SDK's server side.
    const { startMcpServer } = yield* Effect.promise(() => import("../mcp-server/server.ts"));
    const { bearerToken, openMcpTokens } = yield* Effect.promise(() => import("../mcp-server/tokens.ts"));
    const stored = openMcpTokens(o.settings.dataDir);
    const tokens: typeof stored = {
      ...stored,
      clientFor(header) {
        const client = stored.clientFor(header);
        const token = bearerToken(header);
        if (client && token) o.secrets.add("http-token", [token]);
        return client;
      },
    };
    const server = yield* resource(
      "MCP server",
      () =>
        startMcpServer({
          settings,
          tokens,
          tools: () => o.toolSource.current().tree,
          runner,
          redact: o.runnerOptions.redact,
          onCall: (runId, outcome) => o.events.emit({ type: "call.settled", runId, outcome }),
          log: o.log,
        }),
      (s) => s.close(),
      o.log,
    );
    yield* resource(
      "MCP server tool list",
      () => o.toolSource.subscribe(() => server.toolsChanged()),
      (unsubscribe) => unsubscribe(),
      o.log,
    );
    return server;
  });
}

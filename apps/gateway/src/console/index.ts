import type { ApprovalBroker } from "@openassistant/core/approvals";
import type { ReceiptLog, ReceiptReader } from "@openassistant/core/receipts";
import type { EventBus } from "../events/bus.ts";
import type { OtherGatewaysEvents } from "../events/other-gateways.ts";
import type { GatewaySettings } from "../settings.ts";
import type { ToolSnapshot } from "../tools-source.ts";
import { consoleApproverCheck } from "./approvers.ts";
import { createConsoleRoutes, type ConsoleDeps as ConsoleRoutesDeps, type ConsoleRoutes } from "./routes.ts";
import type { RunCodeStore } from "./run-code.ts";
import type { RunControl } from "../runs/operator-control.ts";
import { createSigner, loadConsoleKey } from "./signing.ts";
import type { SecretSink } from "@openassistant/core/receipts";

export type { ConsoleRoutes } from "./routes.ts";

export interface ConsoleOptions {
  readonly settings: Pick<GatewaySettings, "dataDir" | "http" | "surfaces" | "policy">;
  readonly receipts: Pick<
    ReceiptReader,
    "byRun" | "runs" | "conversations" | "conversationOf" | "conversationKeys" | "turnOfRun" | "overview"
  > &
    Pick<ReceiptLog, "verifyRun">;
  /** Where the code of each run is kept for its page (`createRunCodeStore` on the gateway's database). */
  readonly runCode: RunCodeStore;
  /** Pending runs and cancelling the ones this gateway does not run (`createRunControl`). */
  readonly runs: RunControl;
  /** #33: the schedules the console lists. */
  readonly schedules?: ConsoleRoutesDeps["schedules"];
  readonly approvals: Pick<ApprovalBroker, "pending" | "get" | "decide" | "rules">;
  readonly events: Pick<EventBus, "subscribe">;
  /** The live events of the other gateways on a shared database (PostgreSQL), streamed with this one's. */
  readonly otherGateways?: OtherGatewaysEvents;
  readonly tools: () => ToolSnapshot;
  readonly redact: (text: string) => string;
  /** Where the console key is registered for redaction. */
  readonly secrets: SecretSink;
  /** The server's own address, used for links when `http.publicUrl` is not set (known once it listens). */
  readonly localUrl: () => string;
  /** #32: ability runs, for `/console/abilities`. */
  readonly abilities?: ConsoleRoutesDeps["abilities"];
}

export interface GatewayConsole extends ConsoleRoutes {
  /** Where links point (`http.publicUrl` or the local address). */
  readonly baseUrl: () => string;
}

/**
 * The operator console (served by the HTTP server under /console when `http.port` is set). Keeps
 * the code of each run for its page; signs links with `<data dir>/console-key`.
 */
export function createConsole(o: ConsoleOptions): GatewayConsole {
  const runCode = o.runCode;
  const unsubscribe = o.events.subscribe((e) => {
    if (e.type === "run.started") runCode.record(e.runId, e.turnId, e.code);
  });
  const publicUrl = o.settings.http?.publicUrl?.replace(/\/+$/, "");
  const baseUrl = () => publicUrl ?? o.localUrl();
  const routes = createConsoleRoutes({
    ...(o.abilities ? { abilities: o.abilities } : {}),
    receipts: o.receipts,
    approvals: o.approvals,
    events: o.events,
    ...(o.otherGateways ? { otherGateways: o.otherGateways } : {}),
    tools: o.tools,
    policy: o.settings.policy,
    redact: o.redact,
    signer: createSigner(loadConsoleKey(o.settings.dataDir, o.secrets)),
    isApprover: consoleApproverCheck(o.settings),
    baseUrl,
    runCode,
    runs: o.runs,
    ...(o.schedules ? { schedules: o.schedules } : {}),
  });
  return {
    ...routes,
    baseUrl,
    close() {
      unsubscribe();
      routes.close();
    },
  };
}

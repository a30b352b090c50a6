/**
 * #34: what a client tool call costs on top of the transport: the hub's call (a frame out, the
 * client package runs the tool, a frame back) over a real WebSocket on 127.0.0.1, against the same
 * WebSocket's bare echo round trip (baseline, same run). The approval, the sandbox crossing and
 * receipts around a call are the same for every tool (tool-calls.bench.ts).
 */
import type { ToolDefinition } from "../packages/sdk/src/index.ts";
import { createSecretRegistry } from "../packages/core/src/receipts/secret-registry.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { connect } from "../packages/client/src/index.ts";
import { createEventBus } from "../apps/gateway/src/events/bus.ts";
import { createClientHub } from "../apps/gateway/src/clients/hub.ts";
import { openClientTokens } from "../apps/gateway/src/clients/tokens.ts";
import { clientEndpoint } from "../apps/gateway/src/clients/websocket.ts";
import { bench, fmtMs, printTable } from "./lib.ts";

const tokens = openClientTokens(makeTempDir("oa-bench-clients-"));
const { token } = tokens.create("bench");
const hub = createClientHub({
  tokens,
  policy: [],
  handleMessage: () => Promise.reject(new Error("no turns in this bench")),
  events: createEventBus(),
  secrets: createSecretRegistry(),
  namespaceTaken: () => false,
  log: () => {},
});
const endpoint = clientEndpoint(hub);
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (req, s) => endpoint.upgrade(req, s as never),
  websocket: endpoint.websocket,
});
const echo = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (req, s) => (s.upgrade(req) ? undefined : new Response("no", { status: 400 })),
  websocket: { message: (ws, m) => void ws.send(m) },
});

const client = await connect({ url: `http://127.0.0.1:${server.port}`, token });
await client.addTools({
  sum: {
    description: "Adds two numbers",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    run: (input: Record<string, unknown>) => Number(input.a) + Number(input.b),
  },
});
const key = `client:bench:${client.session}`;
const sum = (hub.toolsFor(key)!.tree as Record<string, ToolDefinition>).sum!;
let n = 0;
const call = () => sum.run({ a: 2, b: 3 }, { callId: `c${++n}`, signal: new AbortController().signal, log: console });

// Bun's own WebSocket client for the baseline (the client package uses the ws package, which Bun implements natively).
const raw = new WebSocket(`ws://127.0.0.1:${echo.port}`);
await new Promise((r) => raw.addEventListener("open", r, { once: true }));
const roundTrip = () =>
  new Promise<void>((r) => {
    raw.addEventListener("message", () => r(), { once: true });
    raw.send(JSON.stringify({ type: "call", call: "c", tool: "sum", input: { a: 2, b: 3 } }));
  });

const base = await bench("WebSocket echo round trip (baseline)", roundTrip, { iterations: 500, warmup: 50 });
const hubCall = await bench("client tool call (hub → client package → hub)", call, { iterations: 500, warmup: 50 });
printTable("Client tool call over the WebSocket (#34)", [
  { what: base.name, median: fmtMs(base.medianMs), p95: fmtMs(base.p95Ms), "× baseline": "1.00" },
  {
    what: hubCall.name,
    median: fmtMs(hubCall.medianMs),
    p95: fmtMs(hubCall.p95Ms),
    "× baseline": (hubCall.medianMs / base.medianMs).toFixed(2),
  },
]);
raw.close();
await client.close();
hub.close("bench done");
await Promise.all([server.stop(true), echo.stop(true)]);

/**
 * Child process for the "no hanging process" shutdown test: a turn waits for approval, the gateway
 * shuts down, and the process must then exit on its own (no process.exit), printing what it saw.
 */
import { toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness } from "./harness.ts";

const h = await startHarness({ dir: process.argv[2], settings: { http: { port: 0 } } });
h.api.script([
  toolUseTurn({
    id: "toolu_1",
    name: "execute",
    input: { code: 'return await tools.reminders.create({ text: "x", at: "9" });' },
  }),
]);
const requested = new Promise<void>((resolve) =>
  h.gateway.events.subscribe((e) => e.type === "approval.requested" && resolve()),
);
const turn = h.gateway.handleMessage({ sessionKey: "child", surface: "terminal", text: "remind me" });
await requested;
await h.close();
const outcome = await turn;
console.log(JSON.stringify({ stopReason: outcome.stopReason, summaryText: outcome.summaryText }));

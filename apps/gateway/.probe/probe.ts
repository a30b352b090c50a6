import { startFakeDiscord } from "@openassistant/testkit";
import { createDiscordClient } from "/work/wt/h10/apps/gateway/src/discord/client.ts";
const mode = process.argv[2];
const fake = await startFakeDiscord({ heartbeatIntervalMs: 250, privilegedIntents: mode === "intent" ? 0 : undefined });
const api = mode === "dns" ? "http://no-such-host.invalid/api" : mode === "refused" ? "http://127.0.0.1:1/api" : fake.apiUrl;
const client = createDiscordClient({ restApi: api });
const t0 = Date.now();
client.on("error", (e) => console.log("error ev", Date.now() - t0, e.message));
client.on("shardError", (e) => console.log("shardError", Date.now() - t0, e.message));
client.on("shardDisconnect", (e) => console.log("shardDisconnect", Date.now() - t0, e.code));
client.on("shardReconnecting", () => console.log("shardReconnecting", Date.now() - t0));
client.on("shardResume", () => console.log("shardResume", Date.now() - t0));
client.on("shardReady", () => console.log("shardReady", Date.now() - t0));
client.on("invalidated", () => console.log("invalidated", Date.now() - t0));
try {
  await client.login(mode === "token" ? "bad.token.x" : fake.token);
  console.log("login resolved", Date.now() - t0);
} catch (e: any) { console.log("login rejected", Date.now() - t0, e.constructor.name, e.code, e.status, e.message); }
if (mode === "outage") {
  await Bun.sleep(500);
  fake.setOutage(true);
  await Bun.sleep(3000);
  fake.setOutage(false);
  await Bun.sleep(4000);
  console.log("connected", fake.connectedSessions);
}
await Bun.sleep(1500);
await client.destroy(); await fake.close(); process.exit(0);

import { afterAll, beforeAll, expect, test } from "bun:test";
import { startFakeAnthropic, textTurn, type FakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { startFakeDiscord, type FakeDiscord } from "@openassistant/testkit";
import { cli } from "../../test/cli.ts";
import { identifies, replicaProjects, type ReplicaProcess, startReplica } from "../../test/replicas.ts";
import { botTexts, eventually } from "../../test/discord-e2e.ts";

/** The bound on a takeover of the Discord connection after its holder dies. */
const TAKEOVER_BOUND_MS = 15_000;

const pg = usePostgres();
let fake: FakeDiscord;
let api: FakeAnthropic;
const gateways: ReplicaProcess[] = [];
beforeAll(async () => {
  fake = await startFakeDiscord({ heartbeatIntervalMs: 250 });
  api = await startFakeAnthropic();
});
afterAll(async () => {
  for (const g of gateways) g.proc.kill("SIGKILL");
  await fake.close();
  await api.close();
});

function startGateway(dir: string, url: string) {
  const g = startReplica(dir, { url, apiUrl: api.url, discord: fake });
  gateways.push(g);
  return g;
}

test("two gateways on one database: one holds the Discord connection; kill -9 it, the other connects within 15 s; each DM answered once; receipts verify", async () => {
  const url = await pg.freshDatabase();
  const alice = fake.defaults!.userId;
  const dm = fake.dmChannelId(alice);
  const [dirA, dirB] = replicaProjects(2, {
    config: { discord: { token: "${DISCORD_TOKEN}", allowedUsers: [alice] } },
  });
  const a = startGateway(dirA!, url);
  await a.out.waitFor(/Discord: connected as/, 15_000);
  // The database it uses, not the SQLite path it does not (and never the password).
  expect(a.out.text).toContain(
    `Database: the PostgreSQL database ${new URL(url).host}${new URL(url).pathname} (storage.url)`,
  );
  const b = startGateway(dirB!, url);
  await b.out.waitFor(/taking the lease "discord"/, 15_000);
  // B has tried the lease (its lease connection's last query) while A holds it: A's and B's.
  await eventually(
    async () =>
      (await pg.server()).psql(
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_try_advisory_lock%' AND query NOT LIKE '%pg_stat_activity%'",
        url.split("/").pop(),
      ) === "2",
    "the second gateway to have tried the lease",
  );
  expect(identifies(fake)).toHaveLength(1);
  expect(fake.connectedSessions).toBe(1);
  expect(b.out.text).not.toContain("Discord: connected as");

  api.script([textTurn("First answer.")]);
  fake.sendUserMessage({ dmFrom: alice, content: "hello before the takeover" });
  await eventually(() => botTexts(fake, dm).some((t) => t.startsWith("First answer.")), "A's answer");

  const killedAt = Date.now();
  a.proc.kill("SIGKILL");
  await a.proc.exited;
  await b.out.waitFor(/Discord: connected as/, 15_000);
  const second = identifies(fake)[1];
  expect(second).toBeDefined();
  const takeoverMs = second!.time - killedAt;
  console.log(`takeover: B identified ${takeoverMs} ms after A was killed (bound ${TAKEOVER_BOUND_MS} ms)`);
  expect(takeoverMs).toBeLessThan(TAKEOVER_BOUND_MS);
  expect(identifies(fake)).toHaveLength(2);
  await eventually(() => fake.connectedSessions === 1, "only B's connection to be open");

  api.script([textTurn("Second answer.")]);
  fake.sendUserMessage({ dmFrom: alice, content: "hello after the takeover" });
  await eventually(() => botTexts(fake, dm).some((t) => t.startsWith("Second answer.")), "B's answer");
  expect(botTexts(fake, dm).filter((t) => t.startsWith("First answer."))).toHaveLength(1);
  expect(botTexts(fake, dm).filter((t) => t.startsWith("Second answer."))).toHaveLength(1);
  expect(api.messageRequests()).toHaveLength(2);

  b.proc.kill("SIGTERM");
  expect(await b.proc.exited).toBe(0);
  const verify = await cli(["receipts", "verify"], { cwd: dirB!, env: { DATABASE_URL: url } });
  expect(verify.stderr).toBe("");
  expect(verify.code).toBe(0);
}, 30_000);

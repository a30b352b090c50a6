/**
 * #34: the client package's own promises, against the real gateway: a connection that drops in
 * the middle of a call comes back and resumes its session (the call is answered once, on the new
 * connection); the package built for Node works in Node; tokens are scoped to their route.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "@openassistant/client";
import { textTurn, toolUseTurn } from "@openassistant/testkit";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import { eventually } from "../../test/discord-e2e.ts";
import { openClientTokens } from "./tokens.ts";

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness({
    settings: { http: { port: 0 }, clients: { graceMs: 20_000 }, policy: [{ match: "client.*", mode: "auto" }] },
  });
  token = openClientTokens(h.gateway.settings.dataDir).create("laptop").token;
});
afterAll(() => h.close());

/** A TCP relay between the client and the gateway whose connections the test can cut. */
function startRelay(port: number) {
  const pairs = new Set<{ a: import("bun").Socket<any>; b?: import("bun").Socket<any> }>();
  const server = Bun.listen<{
    pair: { a: import("bun").Socket<any>; b?: import("bun").Socket<any>; queue: Uint8Array[] };
  }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(a) {
        const pair = { a, queue: [] as Uint8Array[] } as {
          a: import("bun").Socket<any>;
          b?: import("bun").Socket<any>;
          queue: Uint8Array[];
        };
        a.data = { pair };
        pairs.add(pair);
        pair.b = await Bun.connect({
          hostname: "127.0.0.1",
          port,
          socket: {
            data: (_b, chunk) => void a.write(chunk),
            close: () => void a.end(),
          },
        });
        for (const chunk of pair.queue) pair.b.write(chunk);
      },
      data(a, chunk) {
        const pair = a.data.pair;
        if (pair.b) pair.b.write(chunk);
        else pair.queue.push(new Uint8Array(chunk));
      },
      close(a) {
        a.data.pair.b?.end();
        pairs.delete(a.data.pair);
      },
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    cut() {
      for (const p of pairs) {
        p.a.end();
        p.b?.end();
      }
    },
    stop: () => server.stop(true),
  };
}

test("a connection cut during a call comes back within the grace period: the session resumes and the call is answered once", async () => {
  const relay = startRelay(h.gateway.http!.port);
  const lines: string[] = [];
  let release!: (v: string) => void;
  let runs = 0;
  const started = Promise.withResolvers<void>();
  const client = await connect({ url: relay.url, token, log: (l) => lines.push(l) });
  await client.addTools({
    slow: {
      description: "Takes its time",
      run: () => {
        runs++;
        started.resolve();
        return new Promise<string>((r) => (release = r));
      },
    },
  });
  const session = client.session;
  h.api.script([
    toolUseTurn({ id: "toolu_slow", name: "execute", input: { code: "return await tools.client.slow({})" } }),
    (req) => textTurn(`slow said ${JSON.stringify(req.body.messages.at(-1).content[0].content).slice(0, 200)}`),
  ]);
  const answer = client.ask("go slow");
  await started.promise;
  relay.cut();
  await eventually(() => lines.includes("resumed the session"), "the client's resume");
  release("finally");
  const done = await answer;
  expect(done.text).toContain("finally");
  expect(done.stopReason).toBe("answered");
  expect(client.session).toBe(session);
  expect(runs).toBe(1);
  const receipts = await h.gateway.receipts.query({ tool: "client.slow" });
  expect(receipts.map((r) => r.phase)).toEqual(["requested", "started", "succeeded"]);
  await client.close();
  relay.stop();
});

test("the package built for Node runs in Node: it registers a tool and answers the gateway's call", async () => {
  const pkg = join(import.meta.dir, "../../../../packages/client");
  const dir = makeTempDir("oa-client-node-");
  const built = await Bun.build({
    entrypoints: [join(pkg, "src/index.ts")],
    target: "node",
    packages: "external",
    outdir: dir,
  });
  expect(built.success).toBe(true);
  symlinkSync(join(pkg, "node_modules"), join(dir, "node_modules"));
  mkdirSync(join(dir, "app"));
  writeFileSync(
    join(dir, "app", "main.mjs"),
    `import { connect } from "../index.js";
const client = await connect({ url: process.env.URL, token: process.env.TOKEN });
await client.addTools({ where: { description: "Where this runs", run: () => "node " + process.version } });
const answer = await client.ask("where are you?");
console.log(JSON.stringify(answer));
await client.close();
`,
  );
  h.api.script([
    toolUseTurn({ id: "toolu_node", name: "execute", input: { code: "return await tools.client.where({})" } }),
    (req) => textTurn(`ran in ${JSON.stringify(req.body.messages.at(-1).content[0].content).slice(0, 200)}`),
  ]);
  const proc = Bun.spawn(["node", join(dir, "app", "main.mjs")], {
    env: { ...process.env, URL: h.gateway.http!.url, TOKEN: token },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  const answer = JSON.parse(out) as { text: string };
  expect(answer.text).toContain(`node ${Bun.spawnSync(["node", "--version"]).stdout.toString().trim()}`);
});

test("tokens are scoped: the HTTP API's token does not open /client, a client token opens nothing else", async () => {
  const url = h.gateway.http!.url;
  const asClient = { authorization: `Bearer ${token}` };
  expect((await fetch(`${url}/health`, { headers: asClient })).status).toBe(401);
  expect((await fetch(`${url}/receipts`, { headers: asClient })).status).toBe(401);
  const withHttpToken = await fetch(`${url}/client`, { headers: { authorization: `Bearer ${h.gateway.http!.token}` } });
  expect(withHttpToken.status).toBe(401);
  expect(((await withHttpToken.json()) as { error: string }).error).toStartWith(
    "missing, wrong or revoked client token",
  );
  const notWebSocket = await fetch(`${url}/client`, { headers: asClient });
  expect(notWebSocket.status).toBe(426);
  await expect(connect({ url, token: "oac_00000000_" + "x".repeat(43) })).rejects.toThrow("HTTP 401");
});

test("a result over the frame limit fails the call with the size instead of breaking the connection", async () => {
  const client = await connect({ url: h.gateway.http!.url, token });
  await client.addTools({ huge: { description: "Returns too much", run: () => "x".repeat(5 * 1024 * 1024) } });
  h.api.script([
    toolUseTurn({ id: "toolu_huge", name: "execute", input: { code: "return await tools.client.huge({})" } }),
    (req) => textTurn(`huge: ${JSON.stringify(req.body.messages.at(-1).content[0].content).slice(0, 300)}`),
  ]);
  const answer = await client.ask("get it all");
  expect(answer.text).toMatch(
    /tools\.client\.huge failed on the client: the result of huge is 52429\d\d bytes; a gateway takes at most 4193280 bytes/,
  );
  const trail = await h.gateway.receipts.query({ tool: "client.huge" });
  expect(trail.map((r) => r.phase)).toEqual(["requested", "started", "failed"]);
  // The same connection still works.
  h.api.script([textTurn("still here")]);
  expect((await client.ask("ping")).text).toBe("still here");
  await client.close();
});

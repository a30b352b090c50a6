import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { Gateway } from "../gateway.ts";
import { cli } from "../../test/cli.ts";
import { startProjectGateway } from "../../test/harness.ts";

let api: FakeAnthropic | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.shutdown();
  await api?.close();
  gateway = api = undefined;
});

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

describe("openassistant console login", () => {
  test("prints a login link the running gateway accepts; refuses non-approvers and a console that is off", async () => {
    const dir = makeTempDir("oa-console-cli-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    const port = freePort();
    writeFileSync(
      join(dir, ".openassistant", "config.jsonc"),
      JSON.stringify({ http: { port, approvers: ["ops-1"] } }),
    );
    const ok = await cli(["console", "login", "ops-1"], { cwd: dir });
    expect(ok.stderr).toContain("Open it within 15 minutes");
    expect(ok.code).toBe(0);
    const link = ok.stdout.trim();
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/console/login\\?t=[\\w-]+\\.[\\w-]{43}$`));

    const refused = await cli(["console", "login", "mallory"], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('"mallory" is not an approver: add it to http.approvers');

    api = await startFakeAnthropic();
    gateway = await startProjectGateway(dir, api.url);
    const res = await fetch(link, { redirect: "manual" });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<meta http-equiv="refresh" content="0;url=/console/runs">');
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^oa_console=[\w-]+\.[\w-]{43}; Path=\/console; HttpOnly; SameSite=Strict/);
    const runs = await fetch(`http://127.0.0.1:${port}/console/runs`, { headers: { cookie: cookie.split(";")[0]! } });
    expect(runs.status).toBe(200);
    expect(await runs.text()).toContain("signed in as <code>ops-1</code>");
    // The tools page lists what the registry loaded, as `plugins list` does (here the bundled workspace tools).
    const tools = await (
      await fetch(`http://127.0.0.1:${port}/console/tools`, { headers: { cookie: cookie.split(";")[0]! } })
    ).text();
    expect(tools).toMatch(
      /<table id="entries-table">[\s\S]*<code>workspace<\/code><\/td><td>plugin<\/td><td>loaded<\/td>/,
    );
    expect(tools).toContain("<code>tools.workspace.writeTool</code>");

    writeFileSync(join(dir, ".openassistant", "config.jsonc"), JSON.stringify({ workspace: { enabled: false } }));
    const off = await cli(["console", "login", "ops-1"], { cwd: dir });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain("The console is off: set http.port");
  }, 60_000);
});

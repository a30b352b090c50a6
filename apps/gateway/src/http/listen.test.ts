import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import { loadGatewaySettings } from "../config-adapter.ts";

// The HTTP API (and the console under it) is local unless the operator says otherwise: by default
// it listens on 127.0.0.1 only. Any other loopback address (127.0.0.2) reaches a server bound to
// 0.0.0.0 or :: but not one bound to 127.0.0.1, so it tells the two apart from outside.
setDefaultTimeout(30_000);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const refused = (url: string) =>
  fetch(url).then(
    (r) => `answered ${r.status}`,
    (e: Error & { code?: string }) => e.code ?? e.message,
  );

describe("the HTTP API listens on 127.0.0.1 unless configured otherwise", () => {
  test("a config that only turns the API on gets host 127.0.0.1", async () => {
    const root = makeTempDir("oa-listen-");
    const project = join(root, "proj");
    mkdirSync(join(project, ".openassistant"), { recursive: true });
    writeFileSync(join(project, "package.json"), "{}");
    writeFileSync(join(project, ".openassistant", "config.json"), JSON.stringify({ http: { port: 8787 } }));
    const { settings } = await loadGatewaySettings(project, { HOME: join(root, "home") }, { tools: false });
    expect(settings.http).toMatchObject({ port: 8787, host: "127.0.0.1" });
  });

  test("a gateway started without a host is reachable on 127.0.0.1 and on no other address", async () => {
    h = await startHarness({ settings: { http: { port: 0 } } });
    const { url, token, port } = h.gateway.http!;
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const health = await fetch(`${url}/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(health.status).toBe(200);
    expect(await refused(`http://127.0.0.2:${port}/health`)).toBe("ECONNREFUSED");
  });
});

describe("the bearer token", () => {
  test("only the exact token opens the API: same-length, prefixed, empty and other schemes are refused", async () => {
    h = await startHarness({ settings: { http: { port: 0 } } });
    const { url, token } = h.gateway.http!;
    const flip = (t: string, i: number) => `${t.slice(0, i)}${t[i] === "a" ? "b" : "a"}${t.slice(i + 1)}`;
    const wrong = [
      `Bearer ${flip(token, token.length - 1)}`,
      `Bearer ${flip(token, 3)}`,
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      "Bearer ",
      "Bearer",
      token,
      `Basic ${Buffer.from(`user:${token}`).toString("base64")}`,
      `Token ${token}`,
    ];
    for (const authorization of wrong) {
      const res = await fetch(`${url}/health`, { headers: { authorization } });
      expect({ authorization, status: res.status }).toEqual({ authorization, status: 401 });
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="openassistant"');
    }
    for (const authorization of [`Bearer ${token}`, `bearer ${token}`, `  Bearer   ${token}  `]) {
      const res = await fetch(`${url}/health`, { headers: { authorization } });
      expect({ authorization, status: res.status }).toEqual({ authorization, status: 200 });
    }
  });
});

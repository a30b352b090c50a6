import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ToolDefinition } from "@openassistant/sdk";
import { indexToolTree } from "../../tools/flatten.ts";
import { loadOpenApiSource, type OpenApiAuth } from "./index.ts";

/** What a recorder server on 127.0.0.1 received: method, path + query as sent, and the credential-bearing headers. */
interface Seen {
  readonly server: "api" | "other";
  readonly method: string;
  readonly target: string;
  readonly authorization: string | null;
  readonly apiKey: string | null;
  readonly body: string;
}
const seen: Seen[] = [];
/** Where the API server sends its next redirect (set by each test). */
let redirect: { status: number; location: (other: string, api: string) => string } | undefined;

function recorder(name: Seen["server"], answer: (req: Request) => Response | undefined) {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      seen.push({
        server: name,
        method: req.method,
        target: `${u.pathname}${u.search}`,
        authorization: req.headers.get("authorization"),
        apiKey: req.headers.get("x-api-key"),
        body: await req.text(),
      });
      return answer(req) ?? Response.json({ ok: true, server: name });
    },
  });
}
// A second port on 127.0.0.1 is another origin (RFC 6454 §4: scheme, host and port).
const other = recorder("other", (req) =>
  new URL(req.url).pathname === "/back"
    ? new Response(null, { status: 302, headers: { location: `${apiBase()}/pets/back-home` } })
    : undefined,
);
const api = recorder("api", (req) => {
  const path = new URL(req.url).pathname;
  if (redirect && path.includes("/pets/jump")) {
    const r = redirect;
    return new Response(null, {
      status: r.status,
      headers: { location: r.location(`http://127.0.0.1:${other.port}`, apiBase()) },
    });
  }
  return undefined;
});
afterAll(() => {
  api.stop(true);
  other.stop(true);
});
const apiBase = () => `http://127.0.0.1:${api.port}/v1`;
const SPEC = join(import.meta.dir, "fixtures/pets.json");
const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });

async function tools(auth?: OpenApiAuth) {
  const s = await loadOpenApiSource({ name: "pets", spec: SPEC, baseUrl: apiBase(), ...(auth ? { auth } : {}) });
  const index = indexToolTree({ pets: s.tree });
  return (path: string) => index.get(`pets.pets.${path}`) as ToolDefinition;
}

/** pets.rename: POST /pets/{petId} with a JSON body, bearer auth. */
async function renameTool(): Promise<ToolDefinition> {
  const { writeFileSync } = await import("node:fs");
  const { makeTempDir } = await import("@openassistant/testkit/temp.ts");
  const spec = JSON.parse(await Bun.file(SPEC).text());
  spec.paths["/pets/{petId}"].post = {
    operationId: "pets/rename",
    requestBody: { content: { "application/json": { schema: { type: "object" } } } },
    responses: { 200: { description: "ok" } },
  };
  const file = join(makeTempDir("oa-openapi-rename-"), "spec.json");
  writeFileSync(file, JSON.stringify(spec));
  const s = await loadOpenApiSource({
    name: "pets",
    spec: file,
    baseUrl: apiBase(),
    auth: { type: "bearer", token: "tok-bearer-123" },
  });
  return indexToolTree({ pets: s.tree }).get("pets.pets.rename") as ToolDefinition;
}

beforeEach(() => {
  seen.length = 0;
  redirect = undefined;
});

describe("a path parameter stays in its segment", () => {
  const refused = [
    "..",
    ".",
    "%2e%2e",
    "%2E%2e",
    ".%2e",
    "%252e%252e",
    "%25252e%25252e",
    "../admin",
    "..%2fadmin",
    "..%2Fadmin",
    "..%252fadmin",
    "..\\admin",
    "..%5cadmin",
    "a/../../admin",
    "a/./b",
    "",
  ];
  for (const value of refused)
    test(`${JSON.stringify(value)} is refused with the parameter's name; nothing is sent`, async () => {
      const get = (await tools())("get");
      const error = await get.run({ petId: value }, ctx()).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toStartWith('GET /pets/{petId}: path parameter "petId"');
      expect(seen).toEqual([]);
    });

  test("delimiters inside a value are encoded: the request reaches /v1/pets/<one segment>", async () => {
    const get = (await tools())("get");
    for (const value of ["a/b", "a?admin=1", "a#frag", "a\\b", "100%", "%2f", "..a", "a..", "...", "rex.json"])
      await get.run({ petId: value }, ctx());
    expect(seen.map((s) => s.target)).toEqual([
      "/v1/pets/a%2Fb",
      "/v1/pets/a%3Fadmin%3D1",
      "/v1/pets/a%23frag",
      "/v1/pets/a%5Cb",
      "/v1/pets/100%25",
      "/v1/pets/%252f",
      "/v1/pets/..a",
      "/v1/pets/a..",
      "/v1/pets/...",
      "/v1/pets/rex.json",
    ]);
    expect(seen.every((s) => s.server === "api")).toBe(true);
  });

  test("a spec path that climbs out of the base URL's path is refused", async () => {
    const { writeFileSync } = await import("node:fs");
    const { makeTempDir } = await import("@openassistant/testkit/temp.ts");
    const spec = JSON.parse(await Bun.file(SPEC).text());
    spec.paths["/../admin/{petId}"] = spec.paths["/pets/{petId}"];
    const file = join(makeTempDir("oa-openapi-climb-"), "spec.json");
    writeFileSync(file, JSON.stringify(spec));
    const s = await loadOpenApiSource({ name: "pets", spec: file, baseUrl: apiBase() });
    // The copied operations keep their ids (pets.get2, pets.delete2): find them by their path.
    const all = [...indexToolTree({ pets: s.tree }).values()] as ToolDefinition[];
    const errors: string[] = [];
    for (const t of all)
      if (t.description.includes("/../admin"))
        errors.push(
          await t.run({ petId: "x" }, ctx()).then(
            () => "sent",
            (e: Error) => e.message,
          ),
        );
    expect(errors.length).toBe(2);
    for (const e of errors) expect(e).toContain(`is outside the base URL http://127.0.0.1:${api.port}/v1`);
    expect(seen).toEqual([]);
  });
});

describe("credentials stay on their origin, across redirects too", () => {
  const auths: Array<[string, OpenApiAuth, (s: Seen) => boolean]> = [
    ["a bearer token", { type: "bearer", token: "tok-bearer-123" }, (s) => s.authorization !== null],
    ["an API key header", { type: "header", name: "X-Api-Key", value: "key-header-123" }, (s) => s.apiKey !== null],
    [
      "an API key in the query",
      { type: "query", name: "api_key", value: "key-query-123" },
      (s) => s.target.includes("key-query-123"),
    ],
  ];
  for (const [what, auth, carries] of auths) {
    test(`${what}: sent to the API; a redirect to another origin is followed without it`, async () => {
      // A Location that echoes the query credential: it is dropped from the other origin's URL too.
      const echoed = auth.type === "query" ? "?api_key=key-query-123" : "";
      redirect = { status: 302, location: (o) => `${o}/landing${echoed}` };
      const get = (await tools(auth))("get");
      expect(await get.run({ petId: "jump" }, ctx())).toEqual({ ok: true, server: "other" });
      expect(seen.map((s) => [s.server, carries(s)])).toEqual([
        ["api", true],
        ["other", false],
      ]);
      expect(JSON.stringify(seen[1])).not.toMatch(/tok-bearer-123|key-header-123|key-query-123/);
    });
  }

  test("once dropped, a credential does not come back when the chain returns to the API's origin", async () => {
    redirect = { status: 307, location: (o) => `${o}/back` };
    const get = (await tools({ type: "bearer", token: "tok-bearer-123" }))("get");
    await get.run({ petId: "jump" }, ctx());
    expect(seen.map((s) => [s.server, s.target, s.authorization])).toEqual([
      ["api", "/v1/pets/jump", "Bearer tok-bearer-123"],
      ["other", "/back", null],
      ["api", "/v1/pets/back-home", null],
    ]);
  });

  test("a redirect within the API's origin keeps the credential", async () => {
    redirect = { status: 301, location: (_o, a) => `${a}/pets/moved` };
    const get = (await tools({ type: "bearer", token: "tok-bearer-123" }))("get");
    await get.run({ petId: "jump" }, ctx());
    expect(seen.map((s) => [s.server, s.target, s.authorization])).toEqual([
      ["api", "/v1/pets/jump", "Bearer tok-bearer-123"],
      ["api", "/v1/pets/moved", "Bearer tok-bearer-123"],
    ]);
  });

  test("a POST answered 303 becomes a GET without the body at the other origin", async () => {
    redirect = { status: 303, location: (o) => `${o}/done` };
    const rename = await renameTool();
    await rename.run({ petId: "jump", body: { name: "Rex" } }, ctx());
    expect(seen.map((s) => [s.server, s.method, s.authorization, s.body])).toEqual([
      ["api", "POST", "Bearer tok-bearer-123", '{"name":"Rex"}'],
      ["other", "GET", null, ""],
    ]);
  });

  test("a request with a body redirected to another origin (307) is refused: the input stays with the API", async () => {
    redirect = { status: 307, location: (o) => `${o}/elsewhere` };
    const rename = await renameTool();
    const error = await rename.run({ petId: "jump", body: { name: "Rex" } }, ctx()).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `the request to http://127.0.0.1:${api.port}/v1/pets/jump was redirected to another origin (http://127.0.0.1:${other.port}) with its body; not followed (the input stays with http://127.0.0.1:${api.port})`,
    );
    expect(seen.map((s) => [s.server, s.method])).toEqual([["api", "POST"]]);
  });

  test("a redirect loop stops with an error naming the request", async () => {
    redirect = { status: 302, location: (_o, a) => `${a}/pets/jump` };
    const get = (await tools())("get");
    const error = await get.run({ petId: "jump" }, ctx()).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `the request to http://127.0.0.1:${api.port}/v1/pets/jump was redirected more than 5 times; not followed further`,
    );
    expect(seen.length).toBe(6);
  });
});

import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineTool, type ToolDefinition, type ToolTree } from "@openassistant/sdk";
import { GITHUB_QUERIES } from "@openassistant/testkit/discovery-queries.ts";
import { startFakeGitHub } from "@openassistant/testkit/github/fake-github.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { generateDeclarations, openDeclarationCache } from "../../codemode/declarations.ts";
import { discoveryTools } from "../../codemode/tool-discovery.ts";
import { flattenToolTree, indexToolTree } from "../../tools/flatten.ts";
import { callableName as toolName } from "../../tools/names.ts";
import { convertInputSchema } from "../input-schema.ts";
import { jsonInputOf, jsonSchemaKey } from "../json-schema-tool.ts";
import { loadOpenApiSource, type OpenApiAuth } from "./index.ts";

// GitHub's description is 13 MB: parsing it takes seconds on a busy machine.
setDefaultTimeout(120_000);

const seen: Array<{ method: string; url: string; auth: string | null; body: string }> = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    seen.push({ method: req.method, url: req.url, auth: req.headers.get("authorization"), body: await req.text() });
    if (req.method === "DELETE") return new Response(null, { status: 204 });
    if (new URL(req.url).pathname.endsWith("/missing"))
      return Response.json({ message: "no such pet" }, { status: 404 });
    return Response.json({ ok: true });
  },
});
afterAll(() => server.stop(true));
const base = `http://127.0.0.1:${server.port}/v1`;
const SPEC = join(import.meta.dir, "fixtures/pets.json");
const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });
const GITHUB_SPEC = Bun.resolveSync(
  "@octokit/openapi/generated/api.github.com.json",
  join(import.meta.dir, "../../../../testkit/src"),
);
/** One parse cache for the GitHub tests of this file: the first parses the spec, the others read the cache. */
const githubCache = makeTempDir("oa-openapi-cache-");

describe("OpenAPI operations become typed tools", () => {
  test("names, approval modes and declarations come from the spec", async () => {
    const s = await loadOpenApiSource({ name: "pets", spec: SPEC, baseUrl: base });
    const tools = flattenToolTree({ pets: s.tree });
    expect(tools.map((t) => [t.path, t.definition.approval])).toEqual([
      ["pets.pets.create", "required"],
      ["pets.pets.delete", "required"],
      ["pets.pets.get", "auto"],
      ["pets.pets.list", "auto"],
    ]);
    // RFC 9110 §9.2.2: GET and DELETE are idempotent, POST is not.
    expect(tools.map((t) => [t.path, t.definition.idempotent])).toEqual([
      ["pets.pets.create", false],
      ["pets.pets.delete", true],
      ["pets.pets.get", true],
      ["pets.pets.list", true],
    ]);
    const d = generateDeclarations({ pets: s.tree }).text;
    expect(d).toContain("/** The pet's id */");
    expect(d).toMatch(/petId: string/);
    expect(d).toMatch(/limit\?: number/);
    expect(d).toMatch(/tag\?: string\[\]/);
    expect(d).toContain("List pets — GET /pets");
    expect(d).toContain("@remarks Idempotent"); // DELETE: not read-only, but safe to repeat
  });

  test("a call builds path, query and body, and the credential is added on the host only", async () => {
    const s = await loadOpenApiSource({
      name: "pets",
      spec: SPEC,
      baseUrl: base,
      auth: { type: "bearer", token: "secret-token-123" },
    });
    const t = indexToolTree({ pets: s.tree });
    const create = t.get("pets.pets.create") as ToolDefinition;
    // The credential is not part of any tool's input.
    expect(JSON.stringify(generateDeclarations({ pets: s.tree }).text)).not.toContain("secret-token-123");
    expect(create.args.safeParse({ body: { tag: null } }).success).toBe(false); // name is required
    expect(create.args.safeParse({ body: { name: "Rex", tag: null, parent: { name: "Old Rex" } } }).success).toBe(true); // nullable, recursive
    await create.run(create.args.parse({ body: { name: "Rex" } }), ctx());
    const list = t.get("pets.pets.list") as ToolDefinition;
    expect(list.args.safeParse({ limit: 0 }).success).toBe(false);
    await list.run(list.args.parse({ limit: 5, tag: ["a", "b"] }), ctx());
    const get = t.get("pets.pets.get") as ToolDefinition;
    await get.run(get.args.parse({ petId: "a/b c" }), ctx());
    expect(seen.slice(-3)).toEqual([
      { method: "POST", url: `${base}/pets`, auth: "Bearer secret-token-123", body: '{"name":"Rex"}' },
      { method: "GET", url: `${base}/pets?limit=5&tag=a&tag=b`, auth: "Bearer secret-token-123", body: "" },
      { method: "GET", url: `${base}/pets/a%2Fb%20c`, auth: "Bearer secret-token-123", body: "" },
    ]);
    await expect(get.run(get.args.parse({ petId: "missing" }), ctx())).rejects.toThrow(
      /GET \/pets\/\{petId\} answered 404: \{"message":"no such pet"\}/,
    );
    const del = t.get("pets.pets.delete") as ToolDefinition;
    expect(await del.run(del.args.parse({ petId: "1" }), ctx())).toBeNull();
  });

  test("a header set by auth is no tool's input, and the parse cache keeps each auth header's parse apart", async () => {
    const spec = JSON.parse(await Bun.file(SPEC).text());
    spec.paths["/pets"].get.parameters.push({ name: "X-Api-Key", in: "header", schema: { type: "string" } });
    const dir = makeTempDir("oa-openapi-header-");
    writeFileSync(join(dir, "pets.json"), JSON.stringify(spec));
    const cacheDir = join(dir, "cache");
    const declared = async (auth?: OpenApiAuth) => {
      const s = await loadOpenApiSource({
        name: "pets",
        spec: join(dir, "pets.json"),
        baseUrl: base,
        cacheDir,
        ...(auth ? { auth } : {}),
      });
      return generateDeclarations({ pets: s.tree }).text.includes('"X-Api-Key"?: string');
    };
    expect(await declared()).toBe(true);
    expect(await declared({ type: "header", name: "x-api-key", value: "k" })).toBe(false);
    // Before the cache was keyed by the header too, this one read the parse made for the header auth.
    expect(await declared({ type: "bearer", token: "t" })).toBe(true);
    expect(await declared({ type: "header", name: "X-API-KEY", value: "k" })).toBe(false);
    expect(readdirSync(cacheDir)).toHaveLength(2);
  });

  test("operation ids become callable names", () => {
    expect(toolName("issues/list-for-repo")).toBe("issues.listForRepo");
    expect(toolName("get /pets/{id}")).toBe("get.pets.id"); // no operationId: method and path
    expect(toolName("then")).toBe("then_");
    expect(toolName("2fa/enable")).toBe("_2fa.enable");
  });

  test("GitHub's official spec: every operation loads and declares; a call reaches a server that validates it; the parse is cached", async () => {
    const cacheDir = makeTempDir("oa-openapi-cache-");
    const spec = GITHUB_SPEC;
    const gh = await startFakeGitHub({
      token: "ghp_x",
      repos: {
        "acme/app": {
          issues: [{ number: 1, title: "Bug", body: null, state: "open", labels: [], comments: [], user: "ann" }],
          files: {},
        },
      },
    });
    try {
      const first = await loadOpenApiSource({
        name: "github",
        spec,
        baseUrl: gh.url,
        auth: { type: "header", name: "authorization", value: "token ghp_x" },
        cacheDir,
      });
      expect(first.operations).toBeGreaterThan(1000);
      expect(first.fromCache).toBe(false);
      const again = await loadOpenApiSource({ name: "github", spec, baseUrl: gh.url, cacheDir });
      expect(again.fromCache).toBe(true);
      const t = indexToolTree({ github: first.tree });
      expect(t.size).toBe(first.operations);
      const list = t.get("github.issues.listForRepo")!;
      expect(list.approval).toBe("auto");
      expect(t.get("github.issues.create")!.approval).toBe("required");
      expect(list.readOnly).toBe(true); // GET: its receipts need no commit of their own
      expect(t.get("github.issues.create")!.readOnly).toBe(false);
      const out = (await list.run(list.args.parse({ owner: "acme", repo: "app", state: "open" }), ctx())) as Array<{
        title: string;
      }>;
      expect(out.map((i) => i.title)).toEqual(["Bug"]);
      expect(gh.violations).toEqual([]);
      expect(list.args.safeParse({ owner: "acme" }).success).toBe(false); // repo is a required path parameter
    } finally {
      await gh.close();
    }
  });
});

describe("GitHub's spec: validators are built on first need, declarations are unchanged", () => {
  test("every operation declares byte-identically to an eagerly built tool, from a cold and a warm cache; a warm restart builds no validator", async () => {
    const load = () =>
      loadOpenApiSource({ name: "github", spec: GITHUB_SPEC, baseUrl: "http://127.0.0.1:9", cacheDir: githubCache });
    const lazy = await load();
    // The tools as they were built before: `defineTool` with the validator converted at load.
    const eager: Record<string, unknown> = {};
    for (const { path, definition } of flattenToolTree({ github: lazy.tree })) {
      const segments = path.split(".");
      let node = eager;
      for (const seg of segments.slice(0, -1)) node = (node[seg] ??= {}) as Record<string, unknown>;
      node[segments.at(-1)!] = defineTool({
        description: definition.description,
        approval: definition.approval,
        readOnly: definition.readOnly,
        idempotent: definition.idempotent,
        args: convertInputSchema(jsonInputOf(definition)!.schema).schema,
        run: definition.run,
      });
    }
    const expected = generateDeclarations(eager as ToolTree);
    expect(expected.warnings).toEqual([]);

    const file = join(makeTempDir("oa-openapi-decl-"), "declarations.json");
    const cold = openDeclarationCache(file);
    const first = generateDeclarations({ github: lazy.tree }, { cache: cold });
    expect(first.text).toBe(expected.text);
    expect(cold.stats().misses).toBeGreaterThan(0);

    const restarted = await load();
    expect(restarted.fromCache).toBe(true);
    const warm = openDeclarationCache(file);
    const again = generateDeclarations({ github: restarted.tree }, { cache: warm });
    expect(again.text).toBe(expected.text);
    expect(again.hash).toBe(expected.hash);
    expect(warm.stats()).toEqual({ hits: restarted.operations, misses: 0 });
    const tools = flattenToolTree(restarted.tree);
    expect(tools.filter((t) => jsonInputOf(t.definition)!.built())).toEqual([]);
    // The keys kept in the parse cache are the schemas' content hashes; a cache from before they were kept still works.
    for (const t of tools)
      expect(jsonInputOf(t.definition)!.key()).toBe(jsonSchemaKey(jsonInputOf(t.definition)!.schema));
    const [cacheFile] = readdirSync(githubCache).filter((f) => f.startsWith("openapi-"));
    const { inputSchemaKeys: _keys, ...older } = JSON.parse(readFileSync(join(githubCache, cacheFile!), "utf8"));
    expect(_keys).toHaveLength(restarted.operations);
    writeFileSync(join(githubCache, cacheFile!), JSON.stringify(older));
    const fromOlder = openDeclarationCache(file);
    expect(generateDeclarations({ github: (await load()).tree }, { cache: fromOlder }).text).toBe(expected.text);
    expect(fromOlder.stats()).toEqual({ hits: restarted.operations, misses: 0 });
    expect(JSON.parse(readFileSync(join(githubCache, cacheFile!), "utf8")).inputSchemaKeys).toEqual(_keys); // kept again
    // $search indexes the tools from their JSON Schemas: it builds no validator, and ranks as over eager tools.
    const lazySearch = discoveryTools(() => ({ github: restarted.tree })).$search as ToolDefinition;
    const eagerSearch = discoveryTools(() => eager as ToolTree).$search as ToolDefinition;
    for (const query of [...GITHUB_QUERIES.map((q) => q.query), "per_page", "enterprise cache retention policy"]) {
      const paths = async (search: ToolDefinition) =>
        ((await search.run({ query, limit: 10 }, ctx())) as Array<{ path: string }>).map((h) => h.path);
      expect(await paths(lazySearch)).toEqual(await paths(eagerSearch));
    }
    expect(tools.filter((t) => jsonInputOf(t.definition)!.built())).toEqual([]);
    // The first call's validation builds one validator, the others stay unbuilt.
    const list = tools.find((t) => t.path === "issues.listForRepo")!.definition;
    expect(list.args.safeParse({ owner: "acme" }).success).toBe(false);
    expect(tools.filter((t) => jsonInputOf(t.definition)!.built()).map((t) => t.path)).toEqual(["issues.listForRepo"]);
  });
});

describe("config.openapi: specs load with the other tools", () => {
  test("an operation whose pattern cannot be checked is a warning naming it at load, again from a warm cache; the call still goes out", async () => {
    const { tempProject } = await import("../../../test/plugin-fixtures.ts");
    const { loadTools } = await import("../../plugins/index.ts");
    const spec = JSON.parse(await Bun.file(SPEC).text());
    spec.paths["/pets"].get.parameters.push({ name: "name", in: "query", schema: { type: "string", pattern: "([" } });
    const p = tempProject({
      "specs/pets.json": JSON.stringify(spec),
      ".openassistant/config.json": JSON.stringify({ openapi: { pets: { spec: "specs/pets.json", baseUrl: base } } }),
    });
    const file = join(p.ws, "declarations.json");
    const warningsOf = (r: Awaited<ReturnType<typeof loadTools>>) =>
      r.diagnostics.filter((d) => d.level !== "info").map((d) => [d.level, d.id, d.message]);
    const first = await loadTools({ ...p.opts, autoInstall: false, declarationCache: openDeclarationCache(file) });
    const expected = [
      [
        "warning",
        "tools.pets.pets.list",
        expect.stringMatching(
          /^tools\.pets\.pets\.list: pattern "\(\[" at #\/properties\/name is not checked here: the linear-time engine cannot run it \(.*\); the server still checks it$/,
        ),
      ],
    ];
    expect(warningsOf(first)).toEqual(expected);
    expect(first.diagnostics.find((d) => d.id === "tools.pets.pets.list")?.hint).toContain("fix the schema");

    // A restart: the warning comes from the declaration cache; no validator is built for it.
    const warm = openDeclarationCache(file);
    const again = await loadTools({ ...p.opts, autoInstall: false, declarationCache: warm });
    expect(warm.stats().misses).toBe(0);
    expect(warningsOf(again)).toEqual(expected);
    const list = indexToolTree(again.tree).get("pets.pets.list")!;
    expect(jsonInputOf(list)?.built()).toBe(false);
    // Its first call: the pattern is not checked here (the rest of the schema is), the server checks it.
    await list.run(list.args.parse({ name: "Rex", limit: 3 }), ctx());
    expect(seen.at(-1)?.url).toBe(`${base}/pets?limit=3&name=Rex`);
  });

  test("a configured spec mounts at tools.<name>; a missing spec is one diagnostic and the rest loads", async () => {
    const { tempProject } = await import("../../../test/plugin-fixtures.ts");
    const { loadTools } = await import("../../plugins/index.ts");
    const p = tempProject(
      {
        "specs/pets.json": await Bun.file(SPEC).text(),
        ".openassistant/tools/clock.ts": `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "clock", approval: "auto", args: z.object({}), run: async () => 1 });\n`,
        ".openassistant/config.json": JSON.stringify({
          openapi: {
            pets: { spec: "specs/pets.json", baseUrl: base, auth: { type: "bearer", token: "${PETS_TOKEN}" } },
            broken: { spec: "specs/missing.json", baseUrl: base },
          },
        }),
      },
      { PETS_TOKEN: "pets-secret-token" },
    );
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(r.entries.find((e) => e.id === "pets")).toMatchObject({
      status: "loaded",
      tools: expect.arrayContaining([expect.objectContaining({ path: "pets.pets.list", approval: "auto" })]),
    });
    expect(r.entries.find((e) => e.id === "clock")?.status).toBe("loaded");
    const broken = r.diagnostics.find((d) => d.id === "broken");
    expect(broken?.level).toBe("error");
    expect(broken?.message).toContain("missing.json");
    const get = indexToolTree(r.tree).get("pets.pets.get")!;
    await get.run(get.args.parse({ petId: "7" }), ctx());
    expect(seen.at(-1)).toMatchObject({ url: `${base}/pets/7`, auth: "Bearer pets-secret-token" });
  });
});

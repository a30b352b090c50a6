import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition } from "@openassistant/sdk";
import { startRecorder } from "@openassistant/testkit/openapi/recorder.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { generateDeclarations } from "../../codemode/declarations.ts";
import { indexToolTree } from "../../tools/flatten.ts";
import { loadOpenApiSource } from "./index.ts";

setDefaultTimeout(30_000);

/** Real descriptions, a few operations each (packages/testkit/src/openapi/specs/README.md says where from). */
const SPECS = join(import.meta.dir, "../../../../testkit/src/openapi/specs");
const recorder = startRecorder();
afterAll(() => recorder.close());
const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });

async function toolsOf(spec: string): Promise<(path: string) => ToolDefinition> {
  const source = await loadOpenApiSource({ name: "api", spec, baseUrl: recorder.url });
  expect(source.skipped).toEqual([]);
  const index = indexToolTree({ api: source.tree });
  return (path) => {
    const tool = index.get(`api.${path}`);
    if (!tool) throw new Error(`no tool api.${path}; have ${[...index.keys()].join(", ")}`);
    return tool;
  };
}

async function call(tool: ToolDefinition, input: Record<string, unknown>) {
  await tool.run(tool.args.parse(input), ctx());
  return recorder.last();
}

function specFile(doc: unknown): string {
  const file = join(makeTempDir("oa-openapi-body-"), "spec.json");
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

describe("request bodies are sent in the media type the spec declares", () => {
  test("Stripe's form-urlencoded body, with its encoding's deepObject fields", async () => {
    const tool = (await toolsOf(join(SPECS, "stripe-customers-files.json")))("postCustomers");
    const got = await call(tool, {
      body: {
        name: "Jenny Rosen",
        email: "jenny+1@example.com",
        address: { city: "Berlin", line1: "Main St 1" },
        metadata: { order: "6735" },
        preferred_locales: ["de", "en"],
      },
    });
    expect(got.method).toBe("POST");
    expect(got.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(got.body).toBe(
      "address%5Bcity%5D=Berlin&address%5Bline1%5D=Main%20St%201&email=jenny%2B1%40example.com&metadata%5Border%5D=6735&name=Jenny%20Rosen&preferred_locales%5B0%5D=de&preferred_locales%5B1%5D=en",
    );
    // What a form decoder (here the platform's) reads back; fields in the schema's order.
    expect([...new URLSearchParams(got.body)]).toEqual([
      ["address[city]", "Berlin"],
      ["address[line1]", "Main St 1"],
      ["email", "jenny+1@example.com"],
      ["metadata[order]", "6735"],
      ["name", "Jenny Rosen"],
      ["preferred_locales[0]", "de"],
      ["preferred_locales[1]", "en"],
    ]);
  });

  test("Stripe's list call: deepObject query parameters; its GET's empty form body is no input", async () => {
    const get = await toolsOf(join(SPECS, "stripe-customers-files.json"));
    const tool = get("getCustomers");
    const got = await call(tool, { created: { gte: 1700000000 }, expand: ["data.default_source"], limit: 3 });
    expect(got.target).toBe("/v1/customers?created%5Bgte%5D=1700000000&expand%5B0%5D=data.default_source&limit=3");
    expect(got.body).toBe("");
    expect(got.headers.get("content-type")).toBeNull();
  });

  test("Stripe's multipart upload: one part per field, deepObject fields as their pairs", async () => {
    const tool = (await toolsOf(join(SPECS, "stripe-customers-files.json")))("postFiles");
    const got = await call(tool, {
      body: { file: "id,amount\n1,100\n", purpose: "dispute_evidence", file_link_data: { create: true } },
    });
    expect(got.headers.get("content-type")).toStartWith("multipart/form-data; boundary=");
    expect(got.parts).toEqual([
      // A text part's line breaks are CRLF on the wire (HTML's multipart/form-data encoding algorithm normalizes them).
      ["file", "id,amount\r\n1,100\r\n"],
      ["file_link_data[create]", "true"],
      ["purpose", "dispute_evidence"],
    ]);
  });

  test("IX-API's merge-patch body: application/merge-patch+json, a null kept (it removes the field)", async () => {
    const tool = (await toolsOf(join(SPECS, "ix-api-contacts.json")))("contactsPartialUpdate");
    const got = await call(tool, { id: "c-1", body: { name: "NOC", telephone: null } });
    expect(got.method).toBe("PATCH");
    expect(got.target).toBe("/contacts/c-1");
    expect(got.headers.get("content-type")).toBe("application/merge-patch+json");
    expect(got.body).toBe('{"name":"NOC","telephone":null}');
  });

  test("Apideck's */* proxy body: an object goes as JSON, a string as text", async () => {
    const tool = (await toolsOf(join(SPECS, "apideck-proxy.json")))("postProxy");
    const headers = {
      "x-apideck-consumer-id": "u",
      "x-apideck-app-id": "a",
      "x-apideck-service-id": "s",
      "x-apideck-downstream-url": "https://example.test/x",
    };
    let got = await call(tool, { ...headers, body: { hello: "world" } });
    expect([got.headers.get("content-type"), got.body]).toEqual(["application/json", '{"hello":"world"}']);
    got = await call(tool, { ...headers, body: "plain words" });
    expect([got.headers.get("content-type"), got.body]).toEqual(["text/plain; charset=utf-8", "plain words"]);
    expect(got.headers.get("x-apideck-downstream-url")).toBe("https://example.test/x");
  });

  test("GitHub's raw markdown: a text/plain body sent as it is; its JSON sibling as JSON", async () => {
    const get = await toolsOf(join(SPECS, "github-few.json"));
    let got = await call(get("markdown.renderRaw"), { body: "# Hello **world**" });
    expect([got.headers.get("content-type"), got.body]).toEqual(["text/plain", "# Hello **world**"]);
    got = await call(get("markdown.render"), { body: { text: "Hi", mode: "markdown" } });
    expect([got.headers.get("content-type"), got.body]).toEqual([
      "application/json",
      '{"text":"Hi","mode":"markdown"}',
    ]);
  });

  test("Carbone lists JSON and multipart: JSON is chosen", async () => {
    const source = await loadOpenApiSource({
      name: "api",
      spec: join(SPECS, "carbone-template.json"),
      baseUrl: recorder.url,
    });
    const tool = indexToolTree({ api: source.tree }).get("api.post.template")!;
    const got = await call(tool, { "carbone-version": 4, body: { template: "dGVzdA==" } });
    expect([got.headers.get("content-type"), got.body]).toEqual(["application/json", '{"template":"dGVzdA=="}']);
    expect(got.headers.get("carbone-version")).toBe("4");
  });

  test("a JSON-patch body (an array of operations) is sent as application/json-patch+json", async () => {
    const spec = specFile({
      openapi: "3.0.3",
      info: { title: "patch", version: "1" },
      paths: {
        "/docs/{id}": {
          patch: {
            operationId: "docs/patch",
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            requestBody: {
              required: true,
              content: {
                "application/json-patch+json": {
                  schema: {
                    type: "array",
                    items: {
                      type: "object",
                      required: ["op", "path"],
                      properties: { op: { type: "string" }, path: { type: "string" }, value: {} },
                    },
                  },
                },
              },
            },
            responses: { 204: { description: "done" } },
          },
        },
      },
    });
    const tool = (await toolsOf(spec))("docs.patch");
    const got = await call(tool, { id: "d1", body: [{ op: "replace", path: "/title", value: "New" }] });
    expect(got.headers.get("content-type")).toBe("application/json-patch+json");
    expect(got.body).toBe('[{"op":"replace","path":"/title","value":"New"}]');
  });

  test("form fields without a style: a JSON contentType is JSON text, an object is exploded form (the spec's default); a content parameter is JSON", async () => {
    const spec = specFile({
      openapi: "3.1.0",
      info: { title: "form", version: "1" },
      paths: {
        "/search": {
          post: {
            operationId: "search",
            parameters: [
              { name: "filter", in: "query", content: { "application/json": { schema: { type: "object" } } } },
            ],
            requestBody: {
              content: {
                "application/x-www-form-urlencoded": {
                  schema: {
                    type: "object",
                    properties: {
                      meta: { type: "object" },
                      color: { type: "object" },
                      tags: { type: "array", items: { type: "string" } },
                    },
                  },
                  encoding: { meta: { contentType: "application/json" } },
                },
              },
            },
            responses: { 200: { description: "ok" } },
          },
        },
      },
    });
    const tool = (await toolsOf(spec))("search");
    const got = await call(tool, {
      filter: { a: 1 },
      body: { meta: { k: "v w" }, color: { R: 100, G: 200 }, tags: ["x", "y"] },
    });
    expect(got.target).toBe("/search?filter=%7B%22a%22%3A1%7D");
    expect(got.body).toBe("meta=%7B%22k%22%3A%22v%20w%22%7D&R=100&G=200&tags=x&tags=y");
  });

  test("no body passed: nothing is sent and no content-type claimed", async () => {
    const tool = (await toolsOf(join(SPECS, "ix-api-contacts.json")))("contactsPartialUpdate");
    const got = await call(tool, { id: "c-2" });
    expect([got.body, got.headers.get("content-type")]).toEqual(["", null]);
  });
});

describe("a body that cannot be built is said at load, never dropped at the call", () => {
  const xmlSpec = () =>
    specFile({
      openapi: "3.0.3",
      info: { title: "xml", version: "1" },
      paths: {
        "/orders": {
          post: {
            operationId: "orders/create",
            requestBody: {
              content: { "application/xml": { schema: { type: "object", properties: { id: { type: "string" } } } } },
            },
            responses: { 201: { description: "ok" } },
          },
          delete: {
            operationId: "orders/clear",
            requestBody: { content: {} },
            responses: { 204: { description: "ok" } },
          },
          put: {
            operationId: "orders/upload",
            requestBody: { content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
            responses: { 201: { description: "ok" } },
          },
        },
      },
    });

  test("an XML object body leaves its operation out with the reason; a string body of any type is sent", async () => {
    const source = await loadOpenApiSource({ name: "api", spec: xmlSpec(), baseUrl: recorder.url });
    expect(source.skipped).toEqual([
      {
        tool: "orders.create",
        reason:
          "its request body (application/xml) cannot be built from a tool's input: only JSON, form-urlencoded, multipart/form-data, text and string-schema bodies can",
      },
    ]);
    // A body with no media type at all is no body: the operation loads without one.
    const clear = indexToolTree({ api: source.tree }).get("api.orders.clear")!;
    await clear.run(clear.args.parse({}), ctx());
    expect([recorder.last().method, recorder.last().body]).toEqual(["DELETE", ""]);
    const upload = indexToolTree({ api: source.tree }).get("api.orders.upload")!;
    const got = await call(upload, { body: "raw bytes" });
    expect([got.headers.get("content-type"), got.body]).toEqual(["application/octet-stream", "raw bytes"]);
  });

  test("through the loader: an error diagnostic names the tool and the media type", async () => {
    const { tempProject } = await import("../../../test/plugin-fixtures.ts");
    const { loadTools } = await import("../../plugins/index.ts");
    const { readFileSync } = await import("node:fs");
    const p = tempProject({
      "specs/xml.json": readFileSync(xmlSpec(), "utf8"),
      ".openassistant/config.json": JSON.stringify({
        openapi: { shop: { spec: "specs/xml.json", baseUrl: recorder.url } },
      }),
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    const errors = r.diagnostics.filter((d) => d.level === "error").map((d) => d.message);
    expect(errors).toEqual([
      'tool "orders.create" of source "shop" is not loaded: its request body (application/xml) cannot be built from a tool\'s input: only JSON, form-urlencoded, multipart/form-data, text and string-schema bodies can',
    ]);
    expect(indexToolTree(r.tree).has("shop.orders.upload")).toBe(true);
  });

  test("the declarations show each body's type", async () => {
    const source = await loadOpenApiSource({
      name: "api",
      spec: join(SPECS, "github-few.json"),
      baseUrl: recorder.url,
    });
    const text = generateDeclarations({ api: source.tree }).text;
    expect(text).toMatch(/renderRaw\(input: \{\n\s+body\?: string \| undefined;/);
  });
});

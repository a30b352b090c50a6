import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition } from "@openassistant/sdk";
import { type Recorder, startRecorder } from "@openassistant/testkit/openapi/recorder.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { generateDeclarations } from "../../codemode/declarations.ts";
import { indexToolTree } from "../../tools/flatten.ts";
import { loadOpenApiSource } from "./index.ts";

/**
 * The "Style Examples" table of OpenAPI 3.1.1 §4.8.12.4 (the same rules as 3.0.3 §4.7.12.4; the
 * 3.0.3 table's `label`, explode false, rows printed `.blue.black.brown`, corrected to RFC 6570
 * §3.2.5's `.blue,black,brown` in 3.0.4 and 3.1.1), row by row, each sent to a recorder on
 * 127.0.0.1: a parameter `color` with the values empty, string, array and object.
 */
const VALUES = {
  empty: "",
  string: "blue",
  array: ["blue", "black", "brown"],
  object: { R: 100, G: 200, B: 150 },
} as const;
type Column = keyof typeof VALUES;

/** A cell: what the table says is sent, `refused` when the gateway must not send it, absent where the table says n/a. */
type Row = { in: "path" | "query" | "header" | "cookie"; style: string; explode: boolean } & Partial<
  Record<Column, string>
>;

const REFUSED = "refused";
const TABLE: Row[] = [
  // Path: the cell is the text of the segment `/p/{color}` (the path keeps its delimiters).
  {
    in: "path",
    style: "matrix",
    explode: false,
    empty: ";color",
    string: ";color=blue",
    array: ";color=blue,black,brown",
    object: ";color=R,100,G,200,B,150",
  },
  {
    in: "path",
    style: "matrix",
    explode: true,
    empty: ";color",
    string: ";color=blue",
    array: ";color=blue;color=black;color=brown",
    object: ";R=100;G=200;B=150",
  },
  // The empty label value is the segment "." — a dot segment a server resolves away: refused (request-url.ts).
  {
    in: "path",
    style: "label",
    explode: false,
    empty: REFUSED,
    string: ".blue",
    array: ".blue,black,brown",
    object: ".R,100,G,200,B,150",
  },
  {
    in: "path",
    style: "label",
    explode: true,
    empty: REFUSED,
    string: ".blue",
    array: ".blue.black.brown",
    object: ".R=100.G=200.B=150",
  },
  // The empty simple value is an empty segment: refused as before.
  {
    in: "path",
    style: "simple",
    explode: false,
    empty: REFUSED,
    string: "blue",
    array: "blue,black,brown",
    object: "R,100,G,200,B,150",
  },
  {
    in: "path",
    style: "simple",
    explode: true,
    empty: REFUSED,
    string: "blue",
    array: "blue,black,brown",
    object: "R=100,G=200,B=150",
  },
  // Query: the cell is the query string.
  {
    in: "query",
    style: "form",
    explode: false,
    empty: "color=",
    string: "color=blue",
    array: "color=blue,black,brown",
    object: "color=R,100,G,200,B,150",
  },
  {
    in: "query",
    style: "form",
    explode: true,
    empty: "color=",
    string: "color=blue",
    array: "color=blue&color=black&color=brown",
    object: "R=100&G=200&B=150",
  },
  {
    in: "query",
    style: "spaceDelimited",
    explode: false,
    array: "color=blue%20black%20brown",
    object: "color=R%20100%20G%20200%20B%20150",
  },
  {
    in: "query",
    style: "pipeDelimited",
    explode: false,
    array: "color=blue%7Cblack%7Cbrown",
    object: "color=R%7C100%7CG%7C200%7CB%7C150",
  },
  { in: "query", style: "deepObject", explode: true, object: "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150" },
  // Header: `simple` (the only style for headers); the cell is the header's value.
  {
    in: "header",
    style: "simple",
    explode: false,
    empty: "",
    string: "blue",
    array: "blue,black,brown",
    object: "R,100,G,200,B,150",
  },
  {
    in: "header",
    style: "simple",
    explode: true,
    empty: "",
    string: "blue",
    array: "blue,black,brown",
    object: "R=100,G=200,B=150",
  },
  // Cookie: `form`; the cell is the Cookie header. Exploded pairs are joined as RFC 6265 §4.2.1 says
  // ("; "), not with the query's "&" (OpenAPI 3.2 names this the `cookie` style).
  {
    in: "cookie",
    style: "form",
    explode: false,
    empty: "color=",
    string: "color=blue",
    array: "color=blue,black,brown",
    object: "color=R,100,G,200,B,150",
  },
  {
    in: "cookie",
    style: "form",
    explode: true,
    empty: "color=",
    string: "color=blue",
    array: "color=blue; color=black; color=brown",
    object: "R=100; G=200; B=150",
  },
];

const opId = (r: Row) => `${r.in}-${r.style}-${r.explode ? "exploded" : "plain"}`;

let recorder: Recorder;
let tools: Map<string, ToolDefinition>;
let declarations: string;
const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });

beforeAll(async () => {
  recorder = startRecorder();
  const paths: Record<string, unknown> = {};
  for (const r of TABLE) {
    const anyValue = { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }, { type: "object" }] };
    paths[`/${opId(r)}${r.in === "path" ? "/{color}" : ""}`] = {
      get: {
        operationId: opId(r),
        parameters: [
          { name: "color", in: r.in, required: r.in === "path", style: r.style, explode: r.explode, schema: anyValue },
        ],
        responses: { 200: { description: "ok" } },
      },
    };
  }
  const file = join(makeTempDir("oa-openapi-styles-"), "styles.json");
  writeFileSync(file, JSON.stringify({ openapi: "3.1.0", info: { title: "styles", version: "1" }, paths }));
  const source = await loadOpenApiSource({ name: "styles", spec: file, baseUrl: `${recorder.url}/v1` });
  tools = indexToolTree({ styles: source.tree });
  declarations = generateDeclarations({ styles: source.tree }).text;
});
afterAll(() => recorder.close());

/** What the recorder saw of the parameter, in the table's terms. */
function sent(r: Row): string {
  const got = recorder.last();
  if (r.in === "path") return got.target.slice(`/v1/${opId(r)}/`.length);
  if (r.in === "query") return got.target.slice(`/v1/${opId(r)}?`.length);
  if (r.in === "header") return got.headers.get("color") ?? "(no header)";
  return got.headers.get("cookie") ?? "(no cookie)";
}

describe("parameters are sent as the OpenAPI style table says", () => {
  for (const r of TABLE)
    for (const column of Object.keys(VALUES) as Column[]) {
      const cell = r[column];
      if (cell === undefined) continue;
      test(`${r.in} ${r.style} explode=${r.explode}, ${column} value → ${cell === REFUSED ? "refused" : JSON.stringify(cell)}`, async () => {
        const tool = tools.get(`styles.${opId(r).replace(/-(\w)/g, (_m, c: string) => c.toUpperCase())}`)!;
        const before = recorder.requests.length;
        const call = tool.run(tool.args.parse({ color: VALUES[column] }), ctx());
        if (cell === REFUSED) {
          await expect(call).rejects.toThrow(/path parameter "color"/);
          expect(recorder.requests.length).toBe(before); // nothing was sent
          return;
        }
        await call;
        expect(sent(r)).toBe(cell);
      });
    }
});

test("without style or explode, each place uses the spec's default: query and cookie form exploded, path and header simple", async () => {
  const rec = startRecorder();
  try {
    const list = { type: "array", items: { type: "string" } };
    const file = join(makeTempDir("oa-openapi-defaults-"), "spec.json");
    writeFileSync(
      file,
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "defaults", version: "1" },
        paths: {
          "/d/{p}": {
            get: {
              operationId: "defaults",
              parameters: ["path", "query", "header", "cookie"].map((place) => ({
                name: place === "path" ? "p" : place[0],
                in: place,
                required: place === "path",
                schema: list,
              })),
              responses: { 200: { description: "ok" } },
            },
          },
        },
      }),
    );
    const source = await loadOpenApiSource({ name: "d", spec: file, baseUrl: rec.url });
    const tool = indexToolTree({ d: source.tree }).get("d.defaults")!;
    const two = ["x", "y"];
    await tool.run(tool.args.parse({ p: two, q: two, h: two, c: two }), ctx());
    const got = rec.last();
    expect([got.target, got.headers.get("h"), got.headers.get("cookie")]).toEqual([
      "/d/x,y?q=x&q=y",
      "x,y",
      "c=x; c=y",
    ]);
  } finally {
    await rec.close();
  }
});

describe("parameters that share a name", () => {
  test("a path, query, header and cookie parameter named alike are four inputs, each sent to its place", async () => {
    const rec = startRecorder();
    try {
      const file = join(makeTempDir("oa-openapi-same-name-"), "spec.json");
      writeFileSync(
        file,
        JSON.stringify({
          openapi: "3.0.3",
          info: { title: "same", version: "1" },
          paths: {
            "/things/{id}": {
              parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
              put: {
                operationId: "things/put",
                parameters: [
                  { name: "id", in: "cookie", schema: { type: "string" } },
                  { name: "id", in: "header", description: "Request id", schema: { type: "string" } },
                  { name: "id", in: "query", schema: { type: "integer" } },
                  { name: "body", in: "query", schema: { type: "string" } },
                ],
                requestBody: { content: { "application/json": { schema: { type: "object" } } } },
                responses: { 200: { description: "ok" } },
              },
            },
          },
        }),
      );
      const source = await loadOpenApiSource({ name: "same", spec: file, baseUrl: rec.url });
      const text = generateDeclarations({ same: source.tree }).text;
      expect(text).toContain("id: string;");
      expect(text).toContain("query_id?: number | undefined;");
      expect(text).toContain('/** header parameter "id": Request id */');
      expect(text).toContain("header_id?: string | undefined;");
      expect(text).toContain("cookie_id?: string | undefined;");
      expect(text).toContain("query_body?: string | undefined;"); // `body` is the request body's
      const put = indexToolTree({ same: source.tree }).get("same.things.put")!;
      await put.run(
        put.args.parse({ id: "p1", query_id: 7, header_id: "h1", cookie_id: "c1", query_body: "q", body: { a: 1 } }),
        ctx(),
      );
      let got = rec.last();
      expect(got.target).toBe("/things/p1?id=7&body=q");
      expect(got.headers.get("id")).toBe("h1");
      expect(got.headers.get("cookie")).toBe("id=c1");
      expect(got.body).toBe('{"a":1}');
      // A line break in a header or cookie value is data, never a header of its own.
      await put.run(put.args.parse({ id: "p2", header_id: "h\r\nx-evil: 1", cookie_id: "c; admin=1" }), ctx());
      got = rec.last();
      expect([got.headers.get("id"), got.headers.get("x-evil"), got.headers.get("cookie")]).toEqual([
        "h%0D%0Ax-evil: 1",
        null,
        "id=c%3B%20admin%3D1",
      ]);
    } finally {
      await rec.close();
    }
  });
});

test("the declarations type each styled parameter from its schema", () => {
  expect(declarations).toContain("queryDeepObjectExploded(input: {");
  expect(declarations).toMatch(/color\?: \(string \| string\[\] \| \{/);
});

describe("real specs' styled parameters", () => {
  test("Apideck Vault: a spaceDelimited array, a deepObject filter and required headers", async () => {
    const rec = startRecorder();
    try {
      const spec = join(import.meta.dir, "../../../../testkit/src/openapi/specs/apideck-vault.json");
      const source = await loadOpenApiSource({ name: "vault", spec, baseUrl: rec.url });
      const index = indexToolTree({ vault: source.tree });
      const authorize = index.get("vault.connectionsAuthorize")!;
      await authorize.run(
        authorize.args.parse({
          service_id: "pipedrive",
          application_id: "app 1",
          state: "s",
          redirect_uri: "https://example.test/cb",
          scope: ["openid", "leads:write"],
        }),
        ctx(),
      );
      expect(rec.last().target).toBe(
        "/vault/authorize/pipedrive/app%201?state=s&redirect_uri=https%3A%2F%2Fexample.test%2Fcb&scope=openid%20leads%3Awrite",
      );
      const logs = index.get("vault.logsAll")!;
      await logs.run(
        logs.args.parse({
          filter: { connector_id: "crm+hubspot", status_code: 500 },
          limit: 5,
          "x-apideck-app-id": "app",
          "x-apideck-consumer-id": "me",
        }),
        ctx(),
      );
      const got = rec.last();
      expect(got.target).toBe("/vault/logs?filter%5Bconnector_id%5D=crm%2Bhubspot&filter%5Bstatus_code%5D=500&limit=5");
      expect([got.headers.get("x-apideck-app-id"), got.headers.get("x-apideck-consumer-id")]).toEqual(["app", "me"]);
    } finally {
      await rec.close();
    }
  });
});

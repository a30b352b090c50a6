import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { defineTool, type ToolDefinition } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { generateDeclarations, openDeclarationCache } from "../codemode/declarations.ts";
import { convertInputSchema } from "./input-schema.ts";
import { jsonInputOf, jsonSchemaTool } from "./json-schema-tool.ts";

const NOTE = {
  type: "object",
  properties: {
    id: { type: "string", description: "The note's id" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["id"],
  additionalProperties: false,
};

const calls: unknown[] = [];
const tool = (inputSchema: unknown, description = "Read a note") =>
  jsonSchemaTool({ description, approval: "auto", inputSchema, run: async (input) => (calls.push(input), input) });
/** The same tool as before this change: its validator built at once, through the SDK. */
const eager = (inputSchema: unknown, description = "Read a note") =>
  defineTool({
    description,
    approval: "auto",
    args: convertInputSchema(inputSchema).schema,
    run: async (input) => input,
  });

describe("a tool from a JSON Schema builds its validator on first need", () => {
  test("not at creation; on first use of args, once; it validates and strips unknown keys", () => {
    const t = tool(NOTE);
    expect(jsonInputOf(t)?.built()).toBe(false);
    expect(Object.isFrozen(t)).toBe(true);
    expect(t.args).toBe(t.args);
    expect(jsonInputOf(t)?.built()).toBe(true);
    expect(t.args.safeParse({ tags: ["a"] }).success).toBe(false); // id is required
    expect(t.args.parse({ id: "n1", extra: 1 })).toEqual({ id: "n1" });
  });

  test("declarations equal the eager tool's; a warm cache answers without building the validator", () => {
    const file = join(makeTempDir("oa-json-tool-"), "declarations.json");
    const expected = generateDeclarations({ notes: { read: eager(NOTE) } }).text;
    const first = tool(NOTE);
    const cold = openDeclarationCache(file);
    expect(generateDeclarations({ notes: { read: first } }, { cache: cold }).text).toBe(expected);
    expect(cold.stats()).toEqual({ hits: 0, misses: 1 });
    expect(jsonInputOf(first)?.built()).toBe(true); // rendering needs the zod schema

    // A restart: new definitions, the cache file from the run before.
    const again = tool(structuredClone(NOTE));
    const warm = openDeclarationCache(file);
    expect(generateDeclarations({ notes: { read: again } }, { cache: warm }).text).toBe(expected);
    expect(warm.stats()).toEqual({ hits: 1, misses: 0 });
    expect(jsonInputOf(again)?.built()).toBe(false);
  });

  test("the cache key is the schema's content, not the tool's description", () => {
    const a = jsonInputOf(tool(NOTE))!.key();
    expect(jsonInputOf(tool(structuredClone(NOTE), "Another description"))!.key()).toBe(a);
    const changed = structuredClone(NOTE);
    changed.properties.id.description = "Another id text";
    expect(jsonInputOf(tool(changed))!.key()).not.toBe(a);
    expect(jsonInputOf(eager(NOTE))).toBeUndefined();
  });

  test("an empty description is refused", () => {
    expect(() => tool(NOTE, " ")).toThrow("jsonSchemaTool: a tool needs a non-empty description");
  });

  test("read-only only when the source says so (an MCP readOnlyHint, an HTTP GET/HEAD)", () => {
    expect(tool(NOTE).readOnly).toBe(false);
    const read = jsonSchemaTool({
      description: "Read",
      approval: "auto",
      readOnly: true,
      inputSchema: NOTE,
      run: async () => 1,
    });
    expect(read.readOnly).toBe(true);
  });

  test("idempotent only when the source says so (an MCP idempotentHint, an HTTP GET/PUT/DELETE)", () => {
    expect(tool(NOTE).idempotent).toBe(false);
    const put = jsonSchemaTool({
      description: "Put",
      approval: "required",
      idempotent: true,
      inputSchema: NOTE,
      run: async () => 1,
    });
    expect(put.idempotent).toBe(true);
    expect(put.readOnly).toBe(false);
  });
});

describe("a JSON Schema that cannot be a validator is reported, also from a warm cache", () => {
  const cases: Array<[string, unknown, string]> = [
    [
      "an external $ref (never fetched)",
      { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } },
      'its input schema has a $ref to another document ("https://example.com/a.json"); references are never fetched at #/properties/a',
    ],
    [
      "a $ref to nothing",
      { type: "object", properties: { a: { $ref: "#/$defs/Missing" } } },
      'its input schema has a $ref to nowhere ("#/$defs/Missing"; only #, #/$defs/<name> and #/definitions/<name> are followed) at #/properties/a',
    ],
    [
      "a keyword zod has no validator for",
      { type: "object", properties: { a: { if: { type: "string" }, then: { minLength: 2 } } } },
      "its JSON Schema cannot be turned into a validator (Conditional schemas (if/then/else) are not supported)",
    ],
    ["a schema that is not an object", { type: "string" }, "its JSON Schema does not describe an object"],
  ];
  for (const [what, schema, message] of cases)
    test(what, () => {
      const file = join(makeTempDir("oa-json-tool-bad-"), "declarations.json");
      const first = generateDeclarations({ api: { op: tool(schema) } }, { cache: openDeclarationCache(file) });
      expect(first.warnings).toEqual([expect.stringContaining(`tools.api.op: ${message}`)]);
      expect(first.warnings[0]).toContain("typed as any object, and any object passes validation here");

      const restarted = tool(structuredClone(schema));
      const warm = openDeclarationCache(file);
      const second = generateDeclarations({ api: { op: restarted } }, { cache: warm });
      expect(warm.stats().hits).toBe(1);
      expect(jsonInputOf(restarted)?.built()).toBe(false);
      expect(second.warnings).toEqual(first.warnings);
      expect(second.text).toBe(first.text);
      expect(second.text).toContain("op(input: {\n      [x: string]: unknown;\n    }): Promise<unknown>;");
      // The tool still works: any object passes, the server checks it.
      expect((restarted as ToolDefinition).args.parse({ a: 1, b: "x" })).toEqual({ a: 1, b: "x" });
      expect(jsonInputOf(restarted)?.problem()).toStartWith(message);
    });
});

import { describe, expect, test } from "bun:test";
import {
  BACKTRACKING_INPUT,
  BACKTRACKING_SCHEMA,
  hostileSchemas,
  laughs,
  SECOND_BRANCH_PATTERN,
} from "../../test/hostile-schemas.ts";
import { generateDeclarations } from "../codemode/declarations.ts";
import { convertInputSchema } from "./input-schema.ts";
import { jsonInputOf, jsonSchemaTool } from "./json-schema-tool.ts";
import { compileLinear } from "./linear-regex.ts";
import { prepareJsonSchema } from "./schema-limits.ts";
import { SourceBudget } from "./source-budget.ts";

/** The limit `schema` goes past, or undefined when a validator can be built from it. */
function schemaLimitProblem(schema: unknown): string | undefined {
  const prepared = prepareJsonSchema(schema);
  return prepared.ok ? undefined : prepared.limit;
}

const tool = (inputSchema: unknown) =>
  jsonSchemaTool({ description: "A tool", approval: "auto", inputSchema, run: async (input) => input });

describe("a tool's input schema is held to limits before anything is built from it", () => {
  for (const h of hostileSchemas("http://127.0.0.1:9"))
    test(`${h.name}: refused, naming the limit and where`, () => {
      const problem = schemaLimitProblem(h.schema);
      expect(problem).toMatch(/^its input schema /);
      expect(problem).toMatch(h.limit);
      expect(problem).toMatch(/ at #\//);
      // Built directly (not through a source), the tool is any object and says why.
      const converted = convertInputSchema(h.schema);
      expect(converted.problem).toBe(problem);
      expect(converted.schema.safeParse({ anything: 1 }).success).toBe(true);
    });

  test("a graph of shared subtrees (YAML anchors) is counted at each use and refused after 2500 nodes", () => {
    // 10^12 nodes when copied: a walk without a budget would never finish.
    expect(schemaLimitProblem(laughs(12, 10))).toMatch(/has more than 2500 nodes/);
  });

  test("a schema the limits allow is kept whole: recursion through $defs, `__proto__` as a property name", () => {
    const schema = {
      type: "object",
      properties: { ["__proto__"]: { type: "string" }, node: { $ref: "#/$defs/Node" } },
      $defs: { Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" }, n: { type: "number" } } } },
    };
    const prepared = prepareJsonSchema(JSON.parse(JSON.stringify(schema)));
    expect(prepared.ok).toBe(true);
    const { schema: validator, problem } = convertInputSchema(JSON.parse(JSON.stringify(schema)));
    expect(problem).toBeUndefined();
    expect(validator.safeParse({ node: { child: { child: { n: 1 } } } }).success).toBe(true);
    expect(validator.safeParse({ node: { child: { n: "x" } } }).success).toBe(false);
  });

  test("a source's tools together: past 100,000 nodes the rest are left out, each named", () => {
    const budget = new SourceBudget();
    const big = {
      type: "object",
      properties: { a: { enum: Array.from({ length: 400 }, (_, i) => `v${i}`.repeat(1)) } },
    };
    let admitted = 0;
    for (let i = 0; i < 400; i++) if (budget.admit(`t${i}`, big)) admitted++;
    const each = (prepareJsonSchema(big) as { nodes: number }).nodes;
    expect(admitted).toBe(Math.floor(100_000 / each));
    expect(budget.skipped[0]).toEqual({
      tool: `t${admitted}`,
      reason: "the source's input schemas together have more than 100000 nodes",
    });
    expect(budget.skipped.length).toBe(400 - admitted);
  });

  test("a tool name longer than MCP's 128 characters is left out, named cut short with its invisible characters shown", () => {
    const budget = new SourceBudget();
    expect(budget.admit(`n\u202e${"n".repeat(300)}`, { type: "object" })).toBe(false);
    expect(budget.skipped[0]?.reason).toBe("its name has 302 characters (limit 128)");
    expect(budget.skipped[0]?.tool).not.toContain("\u202e");
    expect(budget.skipped[0]?.tool.length).toBeLessThan(220);
  });
});

describe("schema patterns run on a linear-time engine (RE2)", () => {
  test("a catastrophic-backtracking pattern: the crafted input is refused, a good one passes", () => {
    const t = tool(BACKTRACKING_SCHEMA);
    expect(t.args.safeParse({ word: BACKTRACKING_INPUT }).success).toBe(false);
    expect(t.args.safeParse({ word: "aaaa" }).success).toBe(true);
    expect(jsonInputOf(t)?.notes()).toEqual([]);
  });

  test("the engine is RE2, not the built-in RegExp: a match behind a catastrophic branch is found", () => {
    // The built-in engine gives up inside the first branch (its backtracking limit, after ~2 s of CPU)
    // and answers "no match" (bench/hostile-sources.ts shows the times).
    const t = tool({ type: "object", properties: { word: { type: "string", pattern: SECOND_BRANCH_PATTERN } } });
    expect(t.args.safeParse({ word: BACKTRACKING_INPUT }).success).toBe(true);
    expect(t.args.safeParse({ word: "aaab" }).success).toBe(true);
    expect(t.args.safeParse({ word: "aaa" }).success).toBe(false);
  });

  test("the CPU a crafted input costs is the linear engine's: 20 checks take far less than one backtracking run", () => {
    const t = tool(BACKTRACKING_SCHEMA);
    const before = process.threadCpuUsage();
    for (let i = 0; i < 20; i++) t.args.safeParse({ word: BACKTRACKING_INPUT });
    const used = process.threadCpuUsage(before);
    // RE2: well under 100 ms of CPU for all 20; the built-in engine spends seconds on each one.
    expect((used.user + used.system) / 1000).toBeLessThan(5_000);
  });

  test("patterns under $defs, in array items and in patternProperties keys run on RE2 too", () => {
    const t = tool({
      type: "object",
      properties: {
        ref: { $ref: "#/$defs/Word" },
        list: { type: "array", items: { type: "string", pattern: "^(b+)+$" } },
        map: { type: "object", patternProperties: { "^(c+)+$": { type: "number" } } },
      },
      $defs: { Word: { type: "string", pattern: "^(a+)+$" } },
    });
    expect(t.args.safeParse({ ref: BACKTRACKING_INPUT }).success).toBe(false);
    expect(t.args.safeParse({ list: ["bbb", `${"b".repeat(60)}!`] }).success).toBe(false);
    expect(t.args.safeParse({ map: { ccc: "not a number" } }).success).toBe(false);
    expect(t.args.safeParse({ map: { [`${"c".repeat(60)}!`]: "any" } }).success).toBe(true);
    expect(t.args.safeParse({ ref: "aa", list: ["b"], map: { cc: 1 } }).success).toBe(true);
  });

  test("ECMA-262 escapes RE2 spells differently still match (\\uXXXX)", () => {
    const t = tool({ type: "object", properties: { a: { type: "string", pattern: "^\\u0041+$" } } });
    expect(t.args.safeParse({ a: "AAA" }).success).toBe(true);
    expect(t.args.safeParse({ a: "aaa" }).success).toBe(false);
  });

  test("a pattern RE2 cannot run (backreference, lookahead, a huge program) is not checked here, and says so", () => {
    const schema = {
      type: "object",
      properties: {
        back: { type: "string", pattern: "^(a)\\1$" },
        ahead: { type: "string", pattern: "^(?=x)" },
        huge: { type: "string", pattern: "\\w{1000}\\w{1000}" },
        n: { type: "number" },
      },
    };
    const t = tool(schema);
    expect(t.args.safeParse({ back: "zz", ahead: "y", huge: "short", n: 1 }).success).toBe(true);
    expect(t.args.safeParse({ n: "not a number" }).success).toBe(false);
    const notes = jsonInputOf(t)!.notes();
    expect(notes).toEqual([
      expect.stringMatching(
        /^pattern "\^\(a\)\\\\1\$" at #\/properties\/back is not checked here: the linear-time engine cannot run it \(.*\); the server still checks it$/,
      ),
      expect.stringMatching(/^pattern "\^\(\?=x\)" at #\/properties\/ahead is not checked here/),
      expect.stringMatching(
        /^pattern .* at #\/properties\/huge is not checked here: .*compiles to \d+ instructions \(limit 1000\)/,
      ),
    ]);
    // The declarations carry each note as a warning naming the tool.
    const d = generateDeclarations({ api: { op: tool(schema) } });
    expect(d.warnings).toEqual(notes.map((n) => `tools.api.op: ${n}`));
  });

  test("a value too long for its pattern's program is refused instead of matched for long", () => {
    const compiled = compileLinear("^[a-z]+$");
    if (!("regex" in compiled)) throw new Error(compiled.reason);
    expect(compiled.regex.test("abc")).toBe(true);
    expect(compiled.regex.test("a".repeat(1_000_000))).toBe(false);
  });

  test("a pattern that is not a string is ignored (zod would make a RegExp of an array's text)", () => {
    const t = tool({ type: "object", properties: { a: { type: "string", pattern: ["^(a+)+$"] } } });
    expect(t.args.safeParse({ a: BACKTRACKING_INPUT }).success).toBe(true);
    expect(jsonInputOf(t)?.notes()).toEqual(['"pattern" at #/properties/a is not a string; it is ignored']);
  });
});

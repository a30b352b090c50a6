import { expect, test } from "bun:test";
import { z } from "@openassistant/sdk";
import ts from "typescript";
import { createAuxiliaryTypeStore, zodToTs } from "zod-to-ts";
import { makeFixtureTool } from "@openassistant/testkit/tool-fixtures.ts";
import { printType } from "./print-type.ts";

const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
const file = ts.createSourceFile("p.ts", "", ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
/** TypeScript's own printer, re-indented to 2 spaces: the reference output. */
const reference = (node: ts.Node) =>
  printer.printNode(ts.EmitHint.Unspecified, node, file).replace(/^((?: {4})+)/gm, (m) => " ".repeat(m.length / 2));

test("printType matches TypeScript's printer on the shapes zod-to-ts produces", () => {
  const schemas: z.ZodType[] = [
    z.object({
      a: z.string().describe("the a"),
      b: z.array(z.union([z.string(), z.number()])),
      c: z.enum(["x", "y"]).default("x"),
      d: z.object({ e: z.boolean().nullable(), "f-g": z.literal(3) }).optional(),
      i: z.record(z.string(), z.array(z.object({ j: z.null() }))),
      k: z.string().readonly(),
      l: z.array(z.string()).readonly(),
      m: z.intersection(z.object({ n: z.string() }), z.object({ o: z.number() })),
      p: z.literal(-1),
      q: z.literal(true),
      r: z.map(z.string(), z.date()),
      s: z.set(z.number()),
      t: z.templateLiteral(["id-", z.number()]),
      u: z.object({}),
      v: z.array(z.string().optional()),
      w: z.any(),
      x: z.unknown(),
      y: z.never().optional(),
      'quote"d': z.string(),
    }),
    ...Array.from({ length: 20 }, (_, i) => makeFixtureTool(i).args),
  ];
  for (const schema of schemas) {
    const { node } = zodToTs(schema, { auxiliaryTypeStore: createAuxiliaryTypeStore(), io: "input" });
    expect(printType(node)).toBe(reference(node));
  }
});

test("tuples print on one line (TypeScript's printer spreads synthesized tuples over lines)", () => {
  const { node } = zodToTs(z.tuple([z.string(), z.bigint()]), { auxiliaryTypeStore: createAuxiliaryTypeStore() });
  expect(printType(node)).toBe("[string, bigint]");
});

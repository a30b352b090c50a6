import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineTool, z, type ToolTree } from "@openassistant/sdk";
import { makeFixtureToolTree } from "@openassistant/testkit/tool-fixtures.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { fingerprintKey, openDeclarationCache } from "./declarations-cache.ts";
import { generateDeclarations } from "./declarations.ts";

/** Rendering 200 tools in a fresh process takes seconds of wall time on a loaded 2-core machine. */
const HEAVY_MS = 30_000;

const tool = (args: z.ZodObject<any>, description = "A tool.") =>
  defineTool({ description, approval: "auto", args, run: async () => null });

/** A tree built anew each call: new definition objects, so only the disk cache can answer. */
const varied = (): ToolTree => {
  const Node: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: z.array(Node) }));
  return {
    a: tool(z.object({ id: z.string().describe("the id"), n: z.number().int().optional() })),
    b: tool(
      z.object({ units: z.enum(["metric", "imperial"]).default("metric"), when: z.date().default(() => new Date()) }),
    ),
    tree: { walk: tool(z.object({ root: Node })) },
    odd: tool(
      z.object({
        t: z.string().transform(Number),
        c: z.custom<string>((v) => typeof v === "string"),
        r: z.record(z.enum(["x", "y"]), z.number()),
      }),
    ),
  };
};

describe("declaration cache", () => {
  test("a new process's definitions get the same text from the cache as from rendering, warnings included", () => {
    const file = join(makeTempDir(), "cache", "declarations.json");
    const first = openDeclarationCache(file);
    const rendered = generateDeclarations(varied(), { cache: first });
    expect(first.stats()).toEqual({ hits: 0, misses: 4 });
    expect(rendered.warnings.length).toBeGreaterThan(0); // the custom schema

    const second = openDeclarationCache(file);
    const cached = generateDeclarations(varied(), { cache: second });
    expect(second.stats()).toEqual({ hits: 4, misses: 0 });
    expect(cached.text).toBe(rendered.text);
    expect(cached.hash).toBe(rendered.hash);
    expect(cached.warnings).toEqual(rendered.warnings);
    // And both equal what the renderer gives without any cache.
    expect(generateDeclarations(varied()).text).toBe(rendered.text);
  });

  test("any change the renderer would show changes the key: types, optionality, descriptions, enum values, nesting", () => {
    const key = (s: z.ZodType) => fingerprintKey(s);
    const base = () => z.object({ id: z.string().describe("the id"), tags: z.array(z.enum(["a", "b"])) });
    expect(key(base())).toBe(key(base()));
    const variants = [
      z.object({ id: z.number().describe("the id"), tags: z.array(z.enum(["a", "b"])) }),
      z.object({ id: z.string().describe("the id").optional(), tags: z.array(z.enum(["a", "b"])) }),
      z.object({ id: z.string().describe("the ID"), tags: z.array(z.enum(["a", "b"])) }),
      z.object({ id: z.string(), tags: z.array(z.enum(["a", "b"])) }),
      z.object({ id: z.string().describe("the id"), tags: z.array(z.enum(["a", "c"])) }),
      z.object({ id: z.string().describe("the id"), tags: z.enum(["a", "b"]) }),
      z.object({ ident: z.string().describe("the id"), tags: z.array(z.enum(["a", "b"])) }),
      z.object({ id: z.string().describe("the id"), tags: z.array(z.enum(["a", "b"])) }).strict(),
    ];
    const keys = new Set([key(base()), ...variants.map(key)]);
    expect(keys.size).toBe(variants.length + 1);
    // Recursive schemas: same shape, same key; a different recursion, another key.
    const list = (field: string): z.ZodType => {
      const Node: z.ZodType = z.lazy(() => z.object({ [field]: z.string(), next: Node.optional() }));
      return Node;
    };
    expect(key(list("v"))).toBe(key(list("v")));
    expect(key(list("v"))).not.toBe(key(list("w")));
  });

  test("a file from other package versions or renderer code, or a damaged one, is not trusted", () => {
    const dir = makeTempDir();
    const file = join(dir, "declarations.json");
    generateDeclarations(varied(), { cache: openDeclarationCache(file) });
    const saved = JSON.parse(readFileSync(file, "utf8")) as { salt: string; entries: Record<string, unknown> };
    expect(Object.keys(saved.entries)).toHaveLength(4);

    // Entries whose salt differs (another zod / zod-to-ts / TypeScript, or changed renderer code).
    const poisoned = Object.fromEntries(
      Object.keys(saved.entries).map((k) => [k, { type: "{ wrong: true }", aux: [], warnings: [] }]),
    );
    writeFileSync(file, JSON.stringify({ salt: "other", entries: poisoned }));
    const stale = openDeclarationCache(file);
    expect(generateDeclarations(varied(), { cache: stale }).text).not.toContain("wrong");
    expect(stale.stats()).toEqual({ hits: 0, misses: 4 });

    writeFileSync(file, '{"salt": "trunc');
    const damaged = openDeclarationCache(file);
    expect(generateDeclarations(varied(), { cache: damaged }).text).toBe(generateDeclarations(varied()).text);
    expect(damaged.stats().misses).toBe(4);
    // Rewritten whole: the next process hits again.
    const again = openDeclarationCache(file);
    generateDeclarations(varied(), { cache: again });
    expect(again.stats()).toEqual({ hits: 4, misses: 0 });
  });

  test(
    "a start whose tools are all in the cache never imports TypeScript, and gets the same declarations",
    async () => {
      const file = join(makeTempDir(), "declarations.json");
      const fixture = join(import.meta.dir, "fixtures", "declarations-warm-start.ts");
      const start = async () => {
        const proc = Bun.spawn([process.execPath, fixture, file], { stdout: "pipe", stderr: "inherit" });
        const out = await new Response(proc.stdout).text();
        expect(await proc.exited).toBe(0);
        return JSON.parse(out) as { typescript: boolean; hits: number; misses: number; hash: string };
      };
      const cold = await start();
      expect(cold.typescript).toBe(true);
      expect(cold.misses).toBeGreaterThan(0); // (fixture tools sharing a schema hit within the first process)
      const warm = await start();
      expect(warm).toMatchObject({ typescript: false, hits: 200, misses: 0, hash: cold.hash });
      // The same tree rendered in this process without a cache.
      expect(generateDeclarations(makeFixtureToolTree(200)).hash).toBe(cold.hash);
    },
    HEAVY_MS,
  );
});

import { describe, expect, test } from "bun:test";
import { defineTool, z, type ToolTree } from "@openassistant/sdk";
import { makeFixtureToolTree } from "@openassistant/testkit/tool-fixtures.ts";
import { generateDeclarations } from "./declarations.ts";
import { createProgramChecker as createTypechecker } from "./typecheck-program.ts";

/** For tests that typecheck or render hundreds of tools: seconds of wall time on a loaded 2-core machine. */
const HEAVY_MS = 30_000;

function threadCpuMs(): number {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return (u.user + u.system) / 1000;
}

const tool = (args: z.ZodObject<any>, extra: { description?: string; approval?: "auto" | "required" } = {}) =>
  defineTool({
    description: extra.description ?? "A tool.",
    approval: extra.approval ?? "auto",
    args,
    run: async () => null,
  });

describe("generateDeclarations", () => {
  test("nests groups, sorts names, and declares each tool as a method", () => {
    const tree: ToolTree = {
      weather: tool(z.object({ location: z.string() }), { description: "Get weather" }),
      posthog: {
        monitor: { createThreshold: tool(z.object({ website: z.string(), threshold: z.number() })) },
        analytics: { getVisitors: tool(z.object({ website: z.string() })) },
      },
    };
    const { text } = generateDeclarations(tree);
    expect(text).toBe(
      [
        "declare const tools: {",
        "  posthog: {",
        "    analytics: {",
        "      /** A tool. */",
        "      getVisitors(input: {",
        "        website: string;",
        "      }): Promise<unknown>;",
        "    };",
        "    monitor: {",
        "      /** A tool. */",
        "      createThreshold(input: {",
        "        website: string;",
        "        threshold: number;",
        "      }): Promise<unknown>;",
        "    };",
        "  };",
        "  /** Get weather */",
        "  weather(input: {",
        "    location: string;",
        "  }): Promise<unknown>;",
        "};",
        "",
      ].join("\n"),
    );
  });

  test("default and optional fields are optional in the input type; describe() becomes property JSDoc", () => {
    const { text } = generateDeclarations({
      weather: tool(
        z.object({
          location: z.string().describe("City name, e.g. Berlin"),
          units: z.enum(["metric", "imperial"]).default("metric"),
          days: z.number().int().optional().describe("Forecast days"),
        }),
      ),
    });
    expect(text).toContain("    /** City name, e.g. Berlin */\n    location: string;");
    expect(text).toContain('    units?: "metric" | "imperial";');
    expect(text).toContain("    /** Forecast days */\n    days?: number | undefined;");
  });

  test("tool description is JSDoc; required approval adds a remark", () => {
    const { text } = generateDeclarations({
      mail: {
        send: tool(z.object({ to: z.string() }), {
          description: "Send an email.\nGoes out at once.",
          approval: "required",
        }),
        list: tool(z.object({}), { description: "List emails." }),
      },
    });
    expect(text).toContain(
      [
        "    /**",
        "     * Send an email.",
        "     * Goes out at once.",
        "     * @remarks Requires operator approval; may reject with ToolDeniedError.",
        "     */",
        "    send(input: {",
      ].join("\n"),
    );
    expect(text).toContain("    /** List emails. */\n    list(input: {}): Promise<unknown>;");
    expect(text.match(/@remarks/g)?.length).toBe(1);
  });

  test(
    "enums, arrays, unions, records, nullable, literals, nested objects, tuples",
    () => {
      const { text, warnings } = generateDeclarations({
        t: tool(
          z.object({
            mode: z.enum(["a", "b"]),
            ids: z.array(z.number()),
            either: z.union([z.string(), z.array(z.string())]),
            scores: z.record(z.string(), z.number()),
            byLevel: z.record(z.enum(["low", "high"]), z.boolean()),
            some: z.partialRecord(z.enum(["x", "y"]), z.string()),
            owner: z.string().nullable(),
            kind: z.literal("issue"),
            pos: z.tuple([z.number(), z.number()]),
            "content-type": z.string().optional(),
            nested: z.object({ deep: z.object({ flag: z.boolean().default(true) }) }),
            when: z.iso.datetime(),
            count: z.coerce.number(),
          }),
        ),
      });
      expect(warnings).toEqual([]);
      for (const line of [
        'mode: "a" | "b";',
        "ids: number[];",
        "either: string | string[];",
        "[key: string]: number;",
        'byLevel: Record<"low" | "high", boolean>;',
        'some: Partial<Record<"x" | "y", string>>;',
        "owner: string | null;",
        'kind: "issue";',
        "pos: [number, number];",
        '"content-type"?: string | undefined;',
        "flag?: boolean;",
        "when: string;",
      ])
        expect(text).toContain(line);
      // the whole thing is valid TypeScript
      expect(createTypechecker().check("return 1;", text)).toEqual({ ok: true });
    },
    HEAVY_MS,
  );

  test("transforms use their input type; unconvertible schemas become unknown with a warning", () => {
    const { text, warnings } = generateDeclarations({
      a: {
        b: tool(
          z.object({
            size: z.string().transform((s) => s.length),
            when: z.custom<Date>((v) => v instanceof Date),
            inner: z.object({ weird: z.instanceof(Map) }),
          }),
        ),
      },
    });
    expect(text).toContain("size: string;");
    expect(text).toContain("when: unknown;");
    expect(text).toContain("weird: unknown;");
    expect(warnings).toEqual([
      'tools.a.b: field "when" uses a "custom" schema that has no TypeScript type; typed as unknown',
      'tools.a.b: field "inner.weird" uses a "custom" schema that has no TypeScript type; typed as unknown',
    ]);
  });

  test(
    "recursive schemas become named helper types",
    () => {
      const Category: z.ZodType<any> = z.object({
        name: z.string(),
        get children() {
          return z.array(Category);
        },
      });
      const { text } = generateDeclarations({ cat: { save: tool(z.object({ root: Category })) } });
      expect(text).toMatch(/root: Input_cat_save_\d+;/);
      expect(text).toMatch(
        /type Input_cat_save_\d+ = \{\n {2}name: string;\n {2}children: Input_cat_save_\d+\[\];\n\};/,
      );
      expect(
        createTypechecker().check(
          'await tools.cat.save({ root: { name: "a", children: [{ name: "b", children: [] }] } });',
          text,
        ),
      ).toEqual({ ok: true });
    },
    HEAVY_MS,
  );

  test(
    "comment terminators in descriptions cannot break the declarations",
    () => {
      const { text } = generateDeclarations({
        cron: tool(z.object({ spec: z.string().describe("like */5 * * * *") }), {
          description: "Schedule */ declare const x: 1; /*",
        }),
      });
      expect(text).not.toContain("like */5");
      expect(createTypechecker().check('await tools.cron({ spec: "x" }); const y: string = x;', text).ok).toBe(false);
      expect(createTypechecker().check('await tools.cron({ spec: "x" });', text)).toEqual({ ok: true });
    },
    HEAVY_MS,
  );

  test(
    "deterministic: equal trees give equal text and hash; any change gives a new hash",
    () => {
      const a = generateDeclarations(makeFixtureToolTree(50));
      const b = generateDeclarations(makeFixtureToolTree(50));
      expect(b.text).toBe(a.text);
      expect(b.hash).toBe(a.hash);
      expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
      const c = generateDeclarations(makeFixtureToolTree(51));
      expect(c.hash).not.toBe(a.hash);
    },
    HEAVY_MS,
  );

  test(
    "cached: an unchanged tree is not rendered again; a changed tree renders only its new definitions",
    () => {
      const tree = makeFixtureToolTree(300) as Record<string, ToolTree[string]>;
      // Counts how often the generator reads this definition's schema, i.e. renders it.
      let renders = 0;
      const plain = tool(z.object({ id: z.string() }));
      const counted = Object.freeze({
        ...plain,
        get args() {
          renders++;
          return plain.args;
        },
      }) as typeof plain;
      tree.counted = counted;
      const first = generateDeclarations(tree);
      expect(renders).toBe(1);
      expect(generateDeclarations(tree)).toBe(first);
      // a new tree object reusing the same definitions hits the tree cache
      const rebuilt = Object.fromEntries(Object.keys(tree).map((k) => [k, tree[k]!]));
      expect(generateDeclarations(rebuilt)).toBe(first);
      // one more tool: the tree is rendered anew, the unchanged definitions come from their cache
      const grown = generateDeclarations({ ...tree, extra: tool(z.object({ n: z.number() })) });
      expect(grown.hash).not.toBe(first.hash);
      expect(grown.text).toContain("extra(input: {");
      expect(grown.text).toContain("counted(input: {");
      expect(renders).toBe(1);
    },
    HEAVY_MS,
  );

  test(
    "1000 realistic, never-seen tools generate within 100 ms of CPU (best of 3; a fresh process is in the bench)",
    () => {
      // Main-thread CPU time, not wall time: the suite shares the machine with other test runs.
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const tree = makeFixtureToolTree(1000);
        const t0 = threadCpuMs();
        const { text } = generateDeclarations(tree);
        best = Math.min(best, threadCpuMs() - t0);
        expect(text.length).toBeGreaterThan(100_000);
      }
      expect(best).toBeLessThan(100);
    },
    HEAVY_MS,
  );
});

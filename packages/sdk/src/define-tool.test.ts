import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import ts from "typescript";
import { defineTool, isToolDefinition, ToolDefinitionError, z } from "./index.ts";

const valid = () => ({
  description: "Get weather",
  approval: "auto" as const,
  args: z.object({ city: z.string(), units: z.enum(["c", "f"]).default("c") }),
  run: async (input: { city: string; units: "c" | "f" }) => `${input.city}:${input.units}`,
});

describe("defineTool", () => {
  test("returns a frozen ToolDefinition", async () => {
    const tool = defineTool(valid());
    expect(isToolDefinition(tool)).toBe(true);
    expect(Object.isFrozen(tool)).toBe(true);
    expect(await tool.run({ city: "Oslo", units: "c" })).toBe("Oslo:c");
  });

  test("readOnly is false unless the tool says it only reads", () => {
    expect(defineTool(valid()).readOnly).toBe(false);
    expect(defineTool({ ...valid(), readOnly: true }).readOnly).toBe(true);
  });

  test("idempotent is false unless the tool says a repeated call has no further effect", () => {
    expect(defineTool(valid()).idempotent).toBe(false);
    expect(defineTool({ ...valid(), idempotent: true }).idempotent).toBe(true);
  });

  test.each([
    ["description", { description: "" }, /"description" must be a non-empty string/],
    ["approval", { approval: "maybe" }, /"approval" must be "auto" or "required" \(got "maybe"\)/],
    ["readOnly", { readOnly: "yes" }, /"readOnly" must be true or false when given \(got "yes"\)/],
    ["idempotent", { idempotent: 1 }, /"idempotent" must be true or false when given \(got 1\)/],
    ["args", { args: { city: "string" } }, /"args" must be a zod object schema/],
    ["run", { run: "nope" }, /"run" must be a function \(input\) => result \(async or returning a value\)/],
    ["previewInput", { previewInput: 3 }, /"previewInput" must be a function when given/],
    ["previewOutput", { previewOutput: "text" }, /"previewOutput" must be a function when given/],
  ])("rejects a bad %s with a message naming the field", (_field, patch, message) => {
    expect(() => defineTool({ ...valid(), ...(patch as object) } as never)).toThrow(message);
  });

  test.each([
    ["null", null],
    ["undefined", undefined],
    ["a string", "get weather"],
    ["a number", 42],
  ])("rejects %s as options with a message naming them", (_what, options) => {
    expect(() => defineTool(options as never)).toThrow(/^defineTool: "options" must be an object$/);
    expect(() => defineTool(options as never)).toThrow(ToolDefinitionError);
  });

  test("a run that returns a value without being async is accepted, as the message says", async () => {
    const tool = defineTool({ ...valid(), run: ((input: { city: string }) => `sync:${input.city}`) as never });
    expect(await Promise.resolve(tool.run({ city: "Oslo", units: "c" }))).toBe("sync:Oslo");
  });

  test("infers the input type from args (checked by the TypeScript compiler, not just by tsc --noEmit)", () => {
    // A tool author's file, compiled against this SDK: using a number field as a string must be a
    // type error, using it as a number must not.
    const source = (body: string) => `import { defineTool, z } from "./index.ts";
export default defineTool({ description: "typed", approval: "required", args: z.object({ n: z.number(), s: z.string().default("x") }), run: async (input) => ${body} });
`;
    const errors = (body: string) => {
      const file = join(import.meta.dir, "__inference_check__.ts");
      const options: ts.CompilerOptions = {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.Preserve,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
        lib: ["lib.es2022.d.ts"],
      };
      const host = ts.createCompilerHost(options);
      const read = host.getSourceFile.bind(host);
      host.getSourceFile = (name, version) =>
        name === file ? ts.createSourceFile(name, source(body), version) : read(name, version);
      const exists = host.fileExists.bind(host);
      host.fileExists = (name) => name === file || exists(name);
      const program = ts.createProgram([file], options, host);
      return ts
        .getPreEmitDiagnostics(program, program.getSourceFile(file))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    };
    expect(errors("input.n.toFixed(2) + input.s.toUpperCase()")).toEqual([]);
    expect(errors("input.n.toUpperCase()")).toEqual([
      expect.stringContaining("Property 'toUpperCase' does not exist on type 'number'"),
    ]);
    expect(errors("input.missing")).toEqual([expect.stringContaining("Property 'missing' does not exist")]);
  }, 30_000);
});

describe("SDK dependency tree", () => {
  test("contains no Effect", async () => {
    const pkgDir = new URL("..", import.meta.url).pathname;
    const pkg = await Bun.file(`${pkgDir}package.json`).json();
    const seen = new Set<string>();
    const queue: Array<[string, string]> = Object.keys(pkg.dependencies ?? {}).map((d) => [d, pkgDir]);
    while (queue.length) {
      const [name, from] = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const resolved = Bun.resolveSync(`${name}/package.json`, from);
      const dep = await Bun.file(resolved).json();
      const dir = resolved.slice(0, -"package.json".length);
      for (const d of Object.keys({ ...dep.dependencies, ...dep.peerDependencies })) queue.push([d, dir]);
    }
    expect(seen.has("zod")).toBe(true);
    expect([...seen].filter((n) => n === "effect" || n.startsWith("@effect/"))).toEqual([]);
    expect(() => Bun.resolveSync("effect", pkgDir)).toThrow();
  });
});

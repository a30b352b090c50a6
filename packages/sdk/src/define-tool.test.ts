import { describe, expect, test } from "bun:test";
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

  test.each([
    ["description", { description: "" }, /"description" must be a non-empty string/],
    ["approval", { approval: "maybe" }, /"approval" must be "auto" or "required" \(got "maybe"\)/],
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

  test("infers the input type from args", () => {
    defineTool({
      description: "typed",
      approval: "required",
      args: z.object({ n: z.number() }),
      // @ts-expect-error input.n is a number, not a string
      run: async (input) => input.n.toUpperCase(),
    });
  });
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

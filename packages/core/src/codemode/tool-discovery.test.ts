import { describe, expect, test } from "bun:test";
import { defineTool, type ToolTree, z } from "@openassistant/sdk";
import { indexToolTree } from "../tools/flatten.ts";
import { generateDeclarations } from "./declarations.ts";
import { approxTokens, discoveryTools, promptToolListing } from "./tool-discovery.ts";

const tool = (description: string, approval: "auto" | "required" = "auto") =>
  defineTool({
    description,
    approval,
    args: z.object({ repo: z.string().describe("owner/name"), title: z.string().optional() }),
    run: async () => null,
  });

function bigTree(n: number): ToolTree {
  const github: Record<string, unknown> = {
    issues: { create: tool("Create an issue", "required"), listForRepo: tool("List repository issues") },
    pulls: { list: tool("List pull requests") },
  };
  for (let i = 0; i < n; i++) github[`op${i}`] = tool(`Operation number ${i} doing something obscure with widgets`);
  return { github: github as ToolTree, calendar: { events: { create: tool("Create a calendar event", "required") } } };
}

describe("tool discovery", () => {
  test("small sets go in the prompt whole; large ones as namespaces plus how to search", () => {
    const small = bigTree(0);
    expect(promptToolListing(small, generateDeclarations(small).text, 15_000).mode).toBe("full");
    const big = bigTree(1000);
    const decl = generateDeclarations(big);
    expect(approxTokens(decl.text)).toBeGreaterThan(15_000);
    const listing = promptToolListing(big, decl.text, 15_000);
    expect(listing.mode).toBe("discovery");
    expect(approxTokens(listing.text)).toBeLessThan(500);
    expect(listing.text).toContain("tools.github (1003 tools)");
    expect(listing.text).toContain("tools.calendar (1 tool)");
    expect(listing.text).toContain("tools.$search");
  });

  test("$search ranks by path and description and returns signatures; $describe gives full declarations", async () => {
    const tree = bigTree(200);
    const d = indexToolTree(discoveryTools(() => tree));
    const search = d.get("$search")!;
    const hits = (await search.run(search.args.parse({ query: "create issue" }))) as Array<{
      path: string;
      approval: string;
      declaration: string;
    }>;
    expect(hits[0]).toMatchObject({ path: "tools.github.issues.create", approval: "required" });
    expect(hits[0]!.declaration).toContain("/** owner/name */");
    expect(hits[0]!.declaration).toContain("create(input: {");
    const describeTool = d.get("$describe")!;
    const ns = (await describeTool.run(describeTool.args.parse({ path: "tools.github.issues" }))) as string;
    expect(ns).toContain("// tools.github.issues.create");
    expect(ns).toContain("// tools.github.issues.listForRepo");
    await expect(describeTool.run(describeTool.args.parse({ path: "nope.x" }))).rejects.toThrow(
      /no tool or namespace "nope.x"; use tools.\$search/,
    );
  });

  test("the index follows the current tree (a reload is seen at once)", async () => {
    let tree: ToolTree = { a: { one: tool("first thing") } };
    const search = indexToolTree(discoveryTools(() => tree)).get("$search")!;
    expect(((await search.run({ query: "second", limit: 5 })) as unknown[]).length).toBe(0);
    tree = { a: { two: tool("second thing") } };
    expect(((await search.run({ query: "second", limit: 5 })) as Array<{ path: string }>)[0]!.path).toBe("tools.a.two");
  });
});

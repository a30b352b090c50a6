import { describe, expect, test } from "bun:test";
import { defineTool, z } from "@openassistant/sdk";
import { flattenToolTree, ToolTreeError } from "./flatten.ts";
import { callableName, isToolSegment, toolPathProblem } from "./names.ts";
import { isValidId } from "./plugin-id.ts";

const tool = defineTool({ description: "t", approval: "auto", args: z.object({}), run: async () => 1 });

describe("the one tool-name rule", () => {
  test("a segment is a JavaScript identifier", () => {
    for (const ok of ["a", "_x", "$y", "getSum", "a1"]) expect(isToolSegment(ok)).toBe(true);
    for (const bad of ["", "1a", "bad-name", "a.b", "a b", "é"]) expect(isToolSegment(bad)).toBe(false);
  });

  test("a path is dotted segments; then/__proto__ are reserved anywhere in it", () => {
    expect(toolPathProblem("calendar.events.create")).toBeUndefined();
    expect(toolPathProblem("calendar..create")).toBe("not-identifier");
    expect(toolPathProblem("bad-name.x")).toBe("not-identifier");
    expect(toolPathProblem("ns.then")).toBe("reserved");
    expect(toolPathProblem("__proto__.x")).toBe("reserved");
  });

  test("flattening, plugin ids and outside names all follow it", () => {
    expect(() => flattenToolTree({ "bad-name": tool })).toThrow(ToolTreeError);
    expect(() => flattenToolTree({ ns: { then: tool } })).toThrow(/cannot be used/);
    expect(isValidId("github_issues")).toBe(true);
    expect(isValidId("github-issues")).toBe(false);
    expect(callableName("issues/list-for-repo")).toBe("issues.listForRepo");
    expect(callableName("then")).toBe("then_");
  });
});

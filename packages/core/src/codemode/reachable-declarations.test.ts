import { describe, expect, test } from "bun:test";
import { flattenToolTree } from "../tools/flatten.ts";
import { makeFixtureToolTree } from "@openassistant/testkit/tool-fixtures.ts";
import { reachableToolTree } from "./reachable-declarations.ts";

const tree = makeFixtureToolTree(200);
const paths = (code: string) => flattenToolTree(reachableToolTree(tree, code)).map((t) => t.path);

describe("the tools a snippet reaches", () => {
  test("a full path reaches that tool; a namespace everything under it", () => {
    expect(paths("await tools.github.issues.list({ id: '1' })")).toEqual(["github.issues.list"]);
    expect(paths("await tools . github\n  .issues?.list({ id: '1' })")).toEqual(["github.issues.list"]);
    const issues = paths("const i = tools.github.issues; await i.list({ id: '1' });");
    expect(issues.length).toBeGreaterThan(1);
    expect(issues.every((p) => p.startsWith("github.issues."))).toBe(true);
    expect(paths("tools.github.issues.list({}); tools.slack.users.list({})")).toEqual([
      "github.issues.list",
      "slack.users.list",
    ]);
  });

  test("`tools` used other than by a chain reaches every tool; a name that is not a tool reaches none", () => {
    expect(paths("const name = 'github'; return tools[name];").length).toBe(200);
    expect(paths("return Object.keys(tools);").length).toBe(200);
    expect(paths("return tools.nothere.x({});")).toEqual([]);
    // A property or a longer name is not the `tools` global.
    expect(paths("const myTools = 1; return x.tools.github;")).toEqual([]);
  });
});

import { describe, expect, test } from "bun:test";
import { defineTool, z } from "@openassistant/sdk";
import { flattenToolTree } from "../tools/flatten.ts";
import { buildToolSearchIndex } from "./tool-search.ts";

const tool = (description: string, args: Record<string, z.ZodType> = {}) =>
  defineTool({ description, approval: "auto", args: z.object(args), run: async () => null });

const tools = flattenToolTree({
  issues: {
    list: tool("List issues assigned to you"),
    listForRepo: tool("List repository issues"),
    removeLabel: tool("Remove a label from an issue"),
    deleteComment: tool("Delete an issue comment"),
    lock: tool("Lock an issue", { reason: z.string().describe("Why the conversation is locked") }),
  },
  repos: {
    listIssueTypes: tool("List issue types for a repository"),
    rerunChecks: tool("Rerun every check of a commit"),
  },
  users: { listStargazers: tool("List stargazers of a repository") },
  calendar: { sync: tool("Sync calendars") },
  js: { build: tool("Call a constructor; toString the result", { valueOf: z.string().describe("__proto__") }) },
});
const search = (query: string, limit = 10) =>
  buildToolSearchIndex(tools)
    .search(query, limit)
    .map((t) => t.path);

describe("tool search ranking", () => {
  test("the tool whose name the query explains comes first", () => {
    expect(search("list issues in a repo")[0]).toBe("issues.listForRepo");
    expect(search("list issues")[0]).toBe("issues.list");
  });

  test("a typed word outranks a related one; a related one still finds the tool", () => {
    expect(search("remove label")[0]).toBe("issues.removeLabel");
    expect(search("remove comment").slice(0, 2)).toEqual(["issues.deleteComment", "issues.removeLabel"]);
    expect(search("erase a comment")[0]).toBe("issues.deleteComment");
  });

  test("parameters count: a word only in a parameter's description still finds the tool", () => {
    expect(search("conversation")).toEqual(["issues.lock"]);
  });

  test("two words meet one (re-run / rerun); a word no tool has is tried without a leading re-, then as a prefix", () => {
    expect(search("re-run checks")[0]).toBe("repos.rerunChecks");
    expect(search("resync")).toEqual(["calendar.sync"]);
    expect(search("stargaz")).toEqual(["users.listStargazers"]);
  });

  test("no shared word, no result; the limit holds; ties are ordered the same way every time", () => {
    expect(search("the of a")).toEqual([]);
    expect(search("weather forecast")).toEqual([]);
    expect(search("issue", 2)).toHaveLength(2);
    expect(search("issue")).toEqual(search("issue"));
    expect(search("constructor toString")).toEqual(["js.build"]);
  });
});

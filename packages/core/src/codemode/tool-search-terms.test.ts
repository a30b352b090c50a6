import { describe, expect, test } from "bun:test";
import { joinedTerms, rawWords, relatedTerms, searchTerms, stem } from "./tool-search-terms.ts";

describe("search terms", () => {
  test("names split on camelCase, kebab, snake, dots and slashes", () => {
    expect(rawWords("issues/list-for-repo")).toEqual(["issues", "list", "for", "repo"]);
    expect(rawWords("github.pulls.listReviewComments pull_number")).toEqual([
      "github",
      "pulls",
      "list",
      "review",
      "comments",
      "pull",
      "number",
    ]);
    expect(rawWords("HTMLParser v2")).toEqual(["html", "parser", "v2"]);
  });

  test("plural and verb endings meet on one stem", () => {
    const same = (...ws: string[]) => expect(new Set(ws.map(stem)).size).toBe(1);
    same("repository", "repositories");
    same("branch", "branches");
    same("status", "statuses");
    same("merge", "merged", "merging", "merges");
    same("star", "starred", "starring", "stars");
    same("release", "releases", "released");
    same("protect", "protection");
    same("delete", "deletion", "deleted");
    same("add", "added");
    expect(stem("issue")).not.toBe(stem("issuer"));
    expect(stem("v2")).toBe("v2");
  });

  test("stop words go, one thing's spellings become one (PR, repo, org), adjacent words are also joined", () => {
    expect(searchTerms("Open a PR in the repo")).toEqual(["open", "pull", "request", stem("repository")]);
    expect(searchTerms("List organization repositories")).toEqual(searchTerms("list org repos"));
    expect(joinedTerms("re-run the web hook")).toEqual(["rerun", "runweb", "webhook"]);
    expect(searchTerms("the of a")).toEqual([]);
  });

  test("words that are Object.prototype keys are plain words (a bug: they once crashed the index)", () => {
    expect(searchTerms("constructor toString __proto__ hasOwnProperty valueOf")).toEqual([
      "constructor",
      "string",
      "proto",
      "has",
      "own",
      "property",
      "valu",
    ]);
  });

  test("related words are symmetric and never the word itself", () => {
    expect(relatedTerms(stem("remove"))).toContain(stem("delete"));
    expect(relatedTerms(stem("delete"))).toContain(stem("remove"));
    expect(relatedTerms(stem("edit"))).toContain(stem("update"));
    expect(relatedTerms(stem("remove"))).not.toContain(stem("remove"));
    expect(relatedTerms("zebra")).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { z } from "@openassistant/sdk";
import { loadTools } from "@openassistant/core/plugins";
import { indexToolTree } from "@openassistant/core/testing";
import { startFakeGitHub, type FakeGitHub } from "@openassistant/testkit/github/fake-github.ts";
import { Octokit } from "@octokit/rest";
import { pluginProject, runLoadedTool } from "@openassistant/testkit/plugin-project.ts";

const PLUGIN_DIR = join(import.meta.dir, "..");
const TOKEN = "ghp_fakeTokenForTests0123456789abcdefABCD";
let gh: FakeGitHub;

beforeAll(async () => {
  gh = await startFakeGitHub({
    token: TOKEN,
    repos: {
      "acme/app": {
        issues: [
          {
            number: 1,
            title: "Crash on start",
            body: "stack trace",
            state: "open",
            labels: ["bug"],
            comments: [],
            user: "ann",
          },
          {
            number: 2,
            title: "Add dark mode",
            body: null,
            state: "open",
            labels: ["feature"],
            comments: [],
            user: "bob",
          },
          { number: 3, title: "Old crash", body: null, state: "closed", labels: ["bug"], comments: [], user: "ann" },
          {
            number: 4,
            title: "Fix the crash",
            body: null,
            state: "open",
            labels: [],
            comments: [],
            user: "cy",
            pull_request: true,
          },
        ],
        files: { "README.md": "# App\nHello ✓\n" },
        statuses: { "v1.2.3": "success", main: "failure" },
      },
    },
  });
});
afterAll(() => gh.close());

async function githubTools(config: Record<string, unknown>) {
  const project = pluginProject(PLUGIN_DIR, "github", config, { GITHUB_TOKEN: TOKEN });
  const r = await loadTools({ ...project, autoInstall: false, log: () => {} });
  const index = indexToolTree(r.tree);
  const call = (path: string, input: unknown) => runLoadedTool(index.get(`github.${path}`), path, input);
  return { r, call };
}

describe("github plugin against a fake GitHub that validates every request against GitHub's OpenAPI description", () => {
  test("loads by path with its config validated; reads are auto, writes need approval", async () => {
    const { r } = await githubTools({ token: "${GITHUB_TOKEN}", baseUrl: gh.url, defaultRepo: "acme/app" });
    expect(r.diagnostics).toEqual([]);
    expect(r.entries[0]).toMatchObject({ id: "github", status: "loaded", name: "GitHub" });
    expect(Object.fromEntries(r.entries[0]!.tools.map((t) => [t.path, t.approval]))).toEqual({
      "github.checks.status": "auto",
      "github.releases.create": "required",
      "github.files.read": "auto",
      "github.issues.addLabels": "required",
      "github.issues.comment": "required",
      "github.issues.create": "required",
      "github.issues.list": "auto",
      "github.issues.search": "auto",
      "github.issues.setState": "required",
      "github.pulls.list": "auto",
    });
    expect(r.declarations!.text).toContain("addLabels(input: {");
  });

  test("every tool does what it says, and GitHub's API description accepts every request it sent", async () => {
    const { call } = await githubTools({ token: "${GITHUB_TOKEN}", baseUrl: gh.url, defaultRepo: "acme/app" });
    const open = (await call("issues.list", {})) as Array<{ number: number }>;
    expect(open.map((i) => i.number)).toEqual([1, 2]); // the pull request is not an issue
    expect(
      ((await call("issues.list", { state: "all", labels: ["bug"] })) as Array<{ number: number }>).map(
        (i) => i.number,
      ),
    ).toEqual([1, 3]);
    expect(await call("issues.search", { query: "crash" })).toMatchObject({ total: 3 });
    expect(((await call("pulls.list", {})) as Array<{ number: number }>).map((p) => p.number)).toEqual([4]);
    expect(await call("files.read", { path: "README.md" })).toEqual({
      path: "README.md",
      size: 14,
      text: "# App\nHello ✓\n",
    });

    const created = (await call("issues.create", {
      title: "Signups dropped",
      body: "below 50/day",
      labels: ["alert"],
    })) as { number: number };
    expect(created.number).toBe(5);
    expect(await call("issues.comment", { number: 5, body: "Looking into it" })).toMatchObject({ id: 1 });
    expect(await call("issues.addLabels", { number: 5, labels: ["p1"] })).toEqual({ labels: ["alert", "p1"] });
    expect(await call("issues.setState", { number: 5, state: "closed", reason: "completed" })).toMatchObject({
      state: "closed",
    });
    const issue = gh.repos.get("acme/app")!.issues.find((i) => i.number === 5)!;
    expect(issue).toMatchObject({
      state: "closed",
      state_reason: "completed",
      labels: ["alert", "p1"],
      comments: ["Looking into it"],
    });

    expect(gh.violations).toEqual([]);
    expect(gh.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
  });

  test("#32: CI status of a ref and creating a release (what the release ability uses)", async () => {
    const { call } = await githubTools({ token: "${GITHUB_TOKEN}", baseUrl: gh.url, defaultRepo: "acme/app" });
    expect(await call("checks.status", { ref: "v1.2.3" })).toEqual({
      state: "success",
      total: 1,
      statuses: [{ context: "ci/test", state: "success", description: "CI success" }],
    });
    expect(await call("checks.status", { ref: "nothing-yet" })).toEqual({ state: "pending", total: 0, statuses: [] });
    expect(await call("releases.create", { tag: "v1.2.3", name: "v1.2.3", notes: "Fixes" })).toEqual({
      id: 1,
      tag: "v1.2.3",
      url: "https://github.com/acme/app/releases/tag/v1.2.3",
      draft: false,
    });
    await expect(call("releases.create", { tag: "v1.2.3" })).rejects.toThrow(/Validation Failed/);
    expect(gh.violations).toEqual([]);
  });

  test("the fake rejects what GitHub would reject: a request that breaks the API description fails", async () => {
    const octokit = new Octokit({ auth: TOKEN, baseUrl: gh.url });
    const before = gh.violations.length;
    // state "merged" is not one of GitHub's issue states; labels must be a non-empty list.
    await expect(
      octokit.request("PATCH /repos/{owner}/{repo}/issues/{issue_number}", {
        owner: "acme",
        repo: "app",
        issue_number: 1,
        state: "merged",
      } as never),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.request("POST /repos/{owner}/{repo}/issues", { owner: "acme", repo: "app" } as never),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.request("GET /repos/{owner}/{repo}/issues", { owner: "acme", repo: "app", colour: "red" } as never),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.request("GET /repos/{owner}/{repo}/teleport", { owner: "acme", repo: "app" }),
    ).rejects.toMatchObject({ status: 404 });
    const found = gh.violations.slice(before).map((v) => v.problems.join("; "));
    expect(found).toHaveLength(4);
    expect(found[0]).toContain("body");
    expect(found[1]).toMatch(/requires a JSON body|title/);
    expect(found[2]).toContain('"colour" is not accepted');
    expect(found[3]).toContain("no operation GET /repos/acme/app/teleport");
    gh.violations.splice(before);
  });

  test("a bad config is reported before the plugin is imported, naming the field", async () => {
    const { r } = await githubTools({ token: "", baseUrl: gh.url, colour: "red" });
    expect(r.entries[0]!.status).toBe("error");
    expect(r.diagnostics[0]!.message).toContain("config.github");
    expect(r.diagnostics[0]!.message).toContain("configSchema");
  });

  test("a wrong token is the tool's error, not a crash", async () => {
    const { call } = await githubTools({ token: "ghp_wrong", baseUrl: gh.url, defaultRepo: "acme/app" });
    await expect(call("issues.list", {})).rejects.toThrow(/Requires authentication/);
  });

  test("the manifest's JSON Schema and the plugin's zod config agree", async () => {
    const manifest = await Bun.file(join(PLUGIN_DIR, "openassistant.json")).json();
    const mod = (await import("./index.ts")).default;
    const fromZod = z.toJSONSchema(mod.config!, { io: "input" }) as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    expect(Object.keys(fromZod.properties).sort()).toEqual(Object.keys(manifest.configSchema.properties).sort());
    expect(fromZod.required ?? []).toEqual(manifest.configSchema.required);
  });
});

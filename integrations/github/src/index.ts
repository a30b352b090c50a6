import { Octokit } from "@octokit/rest";
import { definePlugin, defineTool, z } from "@openassistant/sdk";

/** `config.github`; openassistant.json carries the same rules as JSON Schema, checked before import. */
const GitHubConfig = z.object({
  token: z.string().min(1),
  baseUrl: z.string().default("https://api.github.com"),
  defaultRepo: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/)
    .optional(),
});
type GitHubConfig = z.output<typeof GitHubConfig>;

const repoArg = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, { message: 'must be "owner/name"' })
  .optional()
  .describe('Repository as "owner/name"; defaults to config.github.defaultRepo');
const numberArg = z.number().int().positive().describe("Issue or pull request number");
const limitArg = z.number().int().min(1).max(100).default(30).describe("How many to return (1–100)");

/** The fields a person reads; GitHub's objects carry ~80 more. */
function summarizeIssue(i: {
  number: number;
  title: string;
  state?: string;
  html_url: string;
  labels?: unknown[];
  user?: { login?: string } | null;
  comments?: number;
  pull_request?: unknown;
}) {
  return {
    number: i.number,
    title: i.title,
    state: i.state,
    url: i.html_url,
    labels: (i.labels ?? []).map((l) => (typeof l === "string" ? l : ((l as { name?: string }).name ?? ""))),
    author: i.user?.login,
    comments: i.comments,
    isPullRequest: i.pull_request !== undefined,
  };
}

export default definePlugin({
  config: GitHubConfig,
  tools: (ctx) => githubTools(ctx.config),
});

function githubTools(config: GitHubConfig) {
  const octokit = new Octokit({
    auth: config.token,
    baseUrl: config.baseUrl.replace(/\/$/, ""),
    userAgent: "openassistant-plugin-github",
  });
  const target = (repo: string | undefined) => {
    const full = repo ?? config.defaultRepo;
    if (!full) throw new Error('no repository: pass repo: "owner/name" or set config.github.defaultRepo');
    const [owner, name] = full.split("/") as [string, string];
    return { owner, repo: name };
  };
  const request = (signal: AbortSignal | undefined) => ({ request: { signal } });

  return {
    issues: {
      list: defineTool({
        description: "List issues of a repository (pull requests excluded)",
        approval: "auto",
        readOnly: true,
        args: z.object({
          repo: repoArg,
          state: z.enum(["open", "closed", "all"]).default("open"),
          labels: z.array(z.string()).optional().describe("Only issues with all these labels"),
          limit: limitArg,
        }),
        run: async ({ repo, state, labels, limit }, call) => {
          const { data } = await octokit.rest.issues.listForRepo({
            ...target(repo),
            state,
            per_page: limit,
            ...(labels?.length ? { labels: labels.join(",") } : {}),
            ...request(call?.signal),
          });
          return data.filter((i) => !i.pull_request).map(summarizeIssue);
        },
      }),
      search: defineTool({
        description: "Search issues and pull requests with GitHub's search syntax (e.g. 'is:open label:bug crash')",
        approval: "auto",
        readOnly: true,
        args: z.object({
          query: z.string().min(1).describe("Search text and qualifiers"),
          repo: repoArg,
          limit: limitArg,
        }),
        run: async ({ query, repo, limit }, call) => {
          const full = repo ?? config.defaultRepo;
          const q = full && !/\brepo:/.test(query) ? `${query} repo:${full}` : query;
          const { data } = await octokit.rest.search.issuesAndPullRequests({
            q,
            per_page: limit,
            ...request(call?.signal),
          });
          return { total: data.total_count, items: data.items.map(summarizeIssue) };
        },
      }),
      create: defineTool({
        description: "Create an issue",
        approval: "required",
        args: z.object({
          repo: repoArg,
          title: z.string().min(1).max(256),
          body: z.string().max(65536).optional(),
          labels: z.array(z.string()).optional(),
        }),
        previewInput: (i) => `${i.repo ?? config.defaultRepo}: ${i.title}`,
        run: async ({ repo, title, body, labels }, call) => {
          const { data } = await octokit.rest.issues.create({
            ...target(repo),
            title,
            ...(body ? { body } : {}),
            ...(labels?.length ? { labels } : {}),
            ...request(call?.signal),
          });
          return summarizeIssue(data);
        },
      }),
      comment: defineTool({
        description: "Comment on an issue or pull request",
        approval: "required",
        args: z.object({ repo: repoArg, number: numberArg, body: z.string().min(1).max(65536) }),
        run: async ({ repo, number, body }, call) => {
          const { data } = await octokit.rest.issues.createComment({
            ...target(repo),
            issue_number: number,
            body,
            ...request(call?.signal),
          });
          return { id: data.id, url: data.html_url };
        },
      }),
      addLabels: defineTool({
        description: "Add labels to an issue or pull request",
        approval: "required",
        args: z.object({ repo: repoArg, number: numberArg, labels: z.array(z.string().min(1)).min(1) }),
        run: async ({ repo, number, labels }, call) => {
          const { data } = await octokit.rest.issues.addLabels({
            ...target(repo),
            issue_number: number,
            labels,
            ...request(call?.signal),
          });
          return { labels: data.map((l) => l.name) };
        },
      }),
      setState: defineTool({
        description: "Close or reopen an issue or pull request",
        approval: "required",
        args: z.object({
          repo: repoArg,
          number: numberArg,
          state: z.enum(["open", "closed"]),
          reason: z.enum(["completed", "not_planned", "reopened"]).optional().describe("Why it was closed or reopened"),
        }),
        run: async ({ repo, number, state, reason }, call) => {
          const { data } = await octokit.rest.issues.update({
            ...target(repo),
            issue_number: number,
            state,
            ...(reason ? { state_reason: reason } : {}),
            ...request(call?.signal),
          });
          return summarizeIssue(data);
        },
      }),
    },
    pulls: {
      list: defineTool({
        description: "List pull requests of a repository",
        approval: "auto",
        readOnly: true,
        args: z.object({ repo: repoArg, state: z.enum(["open", "closed", "all"]).default("open"), limit: limitArg }),
        run: async ({ repo, state, limit }, call) => {
          const { data } = await octokit.rest.pulls.list({
            ...target(repo),
            state,
            per_page: limit,
            ...request(call?.signal),
          });
          return data.map((p) => ({
            number: p.number,
            title: p.title,
            state: p.state,
            url: p.html_url,
            author: p.user?.login,
          }));
        },
      }),
    },
    checks: {
      status: defineTool({
        description:
          "The combined CI status of a branch, tag or commit: success, pending (also when there are no checks), failure or error",
        approval: "auto",
        readOnly: true,
        args: z.object({ repo: repoArg, ref: z.string().min(1).describe("Branch, tag or commit SHA") }),
        run: async ({ repo, ref }, call) => {
          const { data } = await octokit.rest.repos.getCombinedStatusForRef({
            ...target(repo),
            ref,
            ...request(call?.signal),
          });
          return {
            state: data.state,
            total: data.total_count,
            statuses: data.statuses.map((x) => ({ context: x.context, state: x.state, description: x.description })),
          };
        },
      }),
    },
    releases: {
      create: defineTool({
        description: "Create a release (and its tag, from the default branch, when the tag does not exist)",
        approval: "required",
        args: z.object({
          repo: repoArg,
          tag: z.string().min(1).describe("The tag, e.g. v1.2.3"),
          name: z.string().max(256).optional(),
          notes: z.string().max(125000).optional().describe("The release notes (Markdown)"),
          draft: z.boolean().default(false),
        }),
        previewInput: (i) => `${i.repo ?? config.defaultRepo}: release ${i.tag}${i.draft ? " (draft)" : ""}`,
        run: async ({ repo, tag, name, notes, draft }, call) => {
          const { data } = await octokit.rest.repos.createRelease({
            ...target(repo),
            tag_name: tag,
            ...(name ? { name } : {}),
            ...(notes ? { body: notes } : {}),
            draft,
            ...request(call?.signal),
          });
          return { id: data.id, tag: data.tag_name, url: data.html_url, draft: data.draft };
        },
      }),
    },
    files: {
      read: defineTool({
        description: "Read a text file from a repository",
        approval: "auto",
        readOnly: true,
        args: z.object({
          repo: repoArg,
          path: z.string().min(1).describe("Path in the repository, e.g. README.md"),
          ref: z.string().optional().describe("Branch, tag or commit; default branch if omitted"),
        }),
        run: async ({ repo, path, ref }, call) => {
          const { data } = await octokit.rest.repos.getContent({
            ...target(repo),
            path,
            ...(ref ? { ref } : {}),
            ...request(call?.signal),
          });
          if (Array.isArray(data) || data.type !== "file" || !("content" in data))
            throw new Error(`${path} is not a file (it is a ${Array.isArray(data) ? "directory" : data.type})`);
          return { path: data.path, size: data.size, text: Buffer.from(data.content, "base64").toString("utf8") };
        },
      }),
    },
  };
}

import { OpenApiRequestValidator, type MatchedOperation } from "../openapi/request-validator.ts";

/**
 * A fake GitHub REST API on 127.0.0.1 for tests that drive the real `@octokit/rest`.
 *
 * Every request is checked against GitHub's official OpenAPI description (npm `@octokit/openapi`,
 * `api.github.com.json`): an unknown route, a missing required parameter, a wrong-typed parameter,
 * an undeclared query parameter or a body that does not match the operation's schema is answered
 * 422 (404 for an unknown route) and recorded in `violations`, so the test that sent it fails when it
 * asserts `violations` is empty. Requests without a token are answered 401 like GitHub does for
 * endpoints that need authentication (https://docs.github.com/rest/authentication/authenticating-to-the-rest-api).
 * The operations a plugin uses are served from an in-memory world of repositories.
 */

export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason?: string | null;
  labels: string[];
  comments: string[];
  pull_request?: boolean;
  user: string;
}

export interface FakeRepo {
  issues: FakeIssue[];
  files: Record<string, string>;
  defaultBranch?: string;
  /** The combined commit status by ref (branch, tag or sha); a ref without one is "pending" with no statuses. */
  statuses?: Record<string, "success" | "pending" | "failure" | "error">;
  /** Releases created (repos/create-release), oldest first. */
  releases?: Array<{ id: number; tag_name: string; name: string | null; body: string | null; draft: boolean }>;
}

export interface RecordedGitHubRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: unknown;
  readonly authorization?: string;
  readonly operationId?: string;
}

export interface FakeGitHub {
  readonly url: string;
  readonly repos: Map<string, FakeRepo>;
  readonly requests: RecordedGitHubRequest[];
  /** Requests GitHub's API description says are invalid, with the reasons. */
  readonly violations: Array<{ request: RecordedGitHubRequest; problems: string[] }>;
  close(): Promise<void>;
}

let specPromise: Promise<OpenApiRequestValidator> | undefined;

/** The validator is built once per process: the description is 13 MB of JSON. */
function githubValidator(): Promise<OpenApiRequestValidator> {
  specPromise ??= (async () => {
    const file = Bun.resolveSync("@octokit/openapi/generated/api.github.com.json", import.meta.dir);
    return new OpenApiRequestValidator(await Bun.file(file).json());
  })();
  return specPromise;
}

export async function startFakeGitHub(
  options: { token?: string; repos?: Record<string, FakeRepo> } = {},
): Promise<FakeGitHub> {
  const validator = await githubValidator();
  const repos = new Map(Object.entries(options.repos ?? {}));
  const requests: RecordedGitHubRequest[] = [];
  const violations: FakeGitHub["violations"] = [];

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // A bug in the fake must fail the test loudly, not hand Octokit an HTML error page.
    error(err) {
      violations.push({
        request: { method: "?", path: "?", query: {}, body: undefined },
        problems: [`the fake GitHub threw: ${err.stack ?? err.message}`],
      });
      return json(500, { message: `fake GitHub error: ${err.message}` });
    },
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const text = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
      let body: unknown;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          return json(400, { message: "Problems parsing JSON" });
        }
      }
      const authorization = req.headers.get("authorization") ?? undefined;
      const recorded: RecordedGitHubRequest = {
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
        ...(authorization ? { authorization } : {}),
      };
      const check = validator.validate({ method: req.method, path: url.pathname, query: url.searchParams, body });
      const withOp = { ...recorded, ...(check.operation ? { operationId: check.operation.operationId } : {}) };
      requests.push(withOp);
      if (!check.ok) {
        violations.push({ request: withOp, problems: check.problems });
        return json(check.status, {
          message: check.status === 404 ? "Not Found" : "Validation Failed",
          errors: check.problems,
        });
      }
      if (options.token && authorization !== `token ${options.token}` && authorization !== `Bearer ${options.token}`)
        return json(401, { message: "Requires authentication", documentation_url: "https://docs.github.com/rest" });
      return serve(check.operation, body, url.searchParams, repos, url.origin);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    repos,
    requests,
    violations,
    close: async () => {
      await server.stop(true);
    },
  };
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

function serve(
  op: MatchedOperation,
  body: any,
  query: URLSearchParams,
  repos: Map<string, FakeRepo>,
  base: string,
): Response {
  const { owner, repo: name } = op.pathParams;
  const repo = owner && name ? repos.get(`${owner}/${name}`) : undefined;
  const fullName = `${owner}/${name}`;
  if (op.operationId !== "search/issues-and-pull-requests" && !repo) return json(404, { message: "Not Found" });
  const issue = () => repo!.issues.find((i) => i.number === Number(op.pathParams.issue_number));
  const show = (i: FakeIssue) => issueJson(i, fullName, base);
  switch (op.operationId) {
    case "issues/list-for-repo": {
      const state = query.get("state") ?? "open";
      const labels = query.get("labels")?.split(",").filter(Boolean) ?? [];
      const perPage = Number(query.get("per_page") ?? 30);
      const list = repo!.issues.filter(
        (i) => (state === "all" || i.state === state) && labels.every((l) => i.labels.includes(l)),
      );
      return json(200, list.slice(0, perPage).map(show));
    }
    case "pulls/list": {
      const state = query.get("state") ?? "open";
      return json(
        200,
        repo!.issues
          .filter((i) => i.pull_request && (state === "all" || i.state === state))
          .map((i) => ({ ...show(i), html_url: `https://github.com/${fullName}/pull/${i.number}` })),
      );
    }
    case "search/issues-and-pull-requests": {
      const q = query.get("q") ?? "";
      const words = q.split(/\s+/).filter((w) => w && !w.includes(":"));
      const repoFilter = /repo:(\S+)/.exec(q)?.[1];
      const items = [...repos.entries()]
        .filter(([n]) => !repoFilter || n === repoFilter)
        .flatMap(([n, r]) => r.issues.map((i) => issueJson(i, n, base)))
        .filter((i) => words.every((w) => `${i.title} ${i.body ?? ""}`.toLowerCase().includes(w.toLowerCase())));
      return json(200, { total_count: items.length, incomplete_results: false, items });
    }
    case "repos/get-content": {
      const content = repo!.files[op.pathParams.path!];
      if (content === undefined) return json(404, { message: "Not Found" });
      return json(200, {
        type: "file",
        encoding: "base64",
        name: op.pathParams.path!.split("/").pop(),
        path: op.pathParams.path,
        size: content.length,
        content: Buffer.from(content).toString("base64"),
      });
    }
    case "issues/create": {
      const created: FakeIssue = {
        number: nextNumber(repo!),
        title: String(body.title),
        body: body.body ?? null,
        state: "open",
        labels: (body.labels ?? []).map((l: unknown) => (typeof l === "string" ? l : (l as { name: string }).name)),
        comments: [],
        user: "openassistant-bot",
      };
      repo!.issues.push(created);
      return json(201, show(created));
    }
    case "issues/create-comment": {
      const target = issue();
      if (!target) return json(404, { message: "Not Found" });
      target.comments.push(String(body.body));
      return json(201, {
        id: target.comments.length,
        body: body.body,
        html_url: `https://github.com/${fullName}/issues/${target.number}#issuecomment-${target.comments.length}`,
      });
    }
    case "repos/get-combined-status-for-ref": {
      // https://docs.github.com/rest/commits/statuses#get-the-combined-status-for-a-specific-reference:
      // "pending" when there are no statuses or a context is pending.
      const state = repo!.statuses?.[op.pathParams.ref ?? ""] ?? "pending";
      const total = repo!.statuses?.[op.pathParams.ref ?? ""] ? 1 : 0;
      return json(200, {
        state,
        sha: "0".repeat(40),
        total_count: total,
        statuses: total ? [{ state, context: "ci/test", description: `CI ${state}` }] : [],
        commit_url: `${base}/repos/${fullName}/commits/${op.pathParams.ref}`,
        url: `${base}/repos/${fullName}/commits/${op.pathParams.ref}/status`,
      });
    }
    case "repos/create-release": {
      // https://docs.github.com/rest/releases/releases#create-a-release: a tag that has a release already is 422 "already_exists".
      repo!.releases ??= [];
      if (repo!.releases.some((r) => r.tag_name === body.tag_name))
        return json(422, {
          message: "Validation Failed",
          errors: [{ resource: "Release", code: "already_exists", field: "tag_name" }],
        });
      const release = {
        id: repo!.releases.length + 1,
        tag_name: body.tag_name as string,
        name: (body.name as string | undefined) ?? null,
        body: (body.body as string | undefined) ?? null,
        draft: body.draft === true,
      };
      repo!.releases.push(release);
      return json(201, { ...release, html_url: `https://github.com/${fullName}/releases/tag/${release.tag_name}` });
    }
    case "issues/add-labels": {
      const target = issue();
      if (!target) return json(404, { message: "Not Found" });
      const labels: unknown[] = Array.isArray(body) ? body : (body?.labels ?? []);
      for (const l of labels.map((x) => (typeof x === "string" ? x : (x as { name: string }).name)))
        if (!target.labels.includes(l)) target.labels.push(l);
      return json(
        200,
        target.labels.map((l, i) => ({ id: i + 1, name: l, color: "ededed" })),
      );
    }
    case "issues/update": {
      const target = issue();
      if (!target) return json(404, { message: "Not Found" });
      if (body.state) target.state = body.state;
      if (body.state_reason !== undefined) target.state_reason = body.state_reason;
      if (body.title) target.title = body.title;
      return json(200, show(target));
    }
    case "issues/get": {
      const target = issue();
      return target ? json(200, show(target)) : json(404, { message: "Not Found" });
    }
    default:
      return json(501, { message: `the fake GitHub does not serve ${op.operationId} yet` });
  }
}

function nextNumber(repo: FakeRepo): number {
  return repo.issues.reduce((n, i) => Math.max(n, i.number), 0) + 1;
}

function issueJson(i: FakeIssue, fullName: string, base: string) {
  return {
    id: i.number * 1000,
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    state_reason: i.state_reason ?? null,
    labels: i.labels.map((name, n) => ({ id: n + 1, name, color: "ededed" })),
    comments: i.comments.length,
    user: { login: i.user },
    html_url: `https://github.com/${fullName}/issues/${i.number}`,
    url: `${base}/repos/${fullName}/issues/${i.number}`,
    ...(i.pull_request ? { pull_request: { url: `${base}/repos/${fullName}/pulls/${i.number}` } } : {}),
  };
}

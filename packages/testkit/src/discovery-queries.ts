/**
 * Requests a model would type into `tools.$search`, each with the tools that answer it: the fixed
 * set behind the discovery retrieval benchmark (bench/discovery.bench.ts) and its quality floor
 * (packages/core/src/codemode/tool-discovery-quality.test.ts).
 *
 * Written as short phrasings, not copied from the operation summaries: synonyms ("PR", "repo",
 * "remove"), first person, and some hard ones whose words are not in the answer's name or summary
 * (`hard: true`). Several answers are listed where more than one operation really answers.
 *
 * The split is fixed by position: every third query (index 2, 5, 8, …) is held out ("test") and
 * the ranking is not tuned against it; the rest is "tune". Append new queries at the end so the
 * split of the existing ones does not move.
 */

export interface RetrievalQuery {
  readonly query: string;
  /** GitHub operationIds (GITHUB_QUERIES) or fixture tool paths (FIXTURE_QUERIES); any one counts. */
  readonly expect: readonly string[];
  /** The query shares (almost) no word with its answer's name or summary. */
  readonly hard?: boolean;
}

export type QuerySplit = "tune" | "test";

/** Which split the query at `index` of its list belongs to. */
export function querySplit(index: number): QuerySplit {
  return index % 3 === 2 ? "test" : "tune";
}

const q = (query: string, ...expect: string[]): RetrievalQuery => ({ query, expect });
const hard = (query: string, ...expect: string[]): RetrievalQuery => ({ query, expect, hard: true });

/** Against GitHub's official OpenAPI description (`@octokit/openapi`), answers by operationId. */
export const GITHUB_QUERIES: readonly RetrievalQuery[] = [
  q("list open pull requests", "pulls/list"),
  q("open a PR", "pulls/create"),
  q("merge PR", "pulls/merge"),
  q("add a label to an issue", "issues/add-labels"),
  q("get the latest release", "repos/get-latest-release"),
  q("star a repository", "activity/star-repo-for-authenticated-user"),
  hard("delete a branch", "git/delete-ref"),
  q("create a gist", "gists/create"),
  q("list workflow runs", "actions/list-workflow-runs-for-repo", "actions/list-workflow-runs"),
  q("comment on an issue", "issues/create-comment"),
  hard("close an issue", "issues/update"),
  q("open a new issue", "issues/create"),
  q("list issues in a repo", "issues/list-for-repo"),
  q("remove label from issue", "issues/remove-label"),
  q("assign issue to someone", "issues/add-assignees"),
  q("list branches", "repos/list-branches"),
  q("rename branch", "repos/rename-branch"),
  q("read a file from a repo", "repos/get-content"),
  q("update a file in the repo", "repos/create-or-update-file-contents"),
  q("delete a file", "repos/delete-file"),
  q("list commits", "repos/list-commits"),
  q("compare two branches", "repos/compare-commits", "repos/compare-commits-with-basehead"),
  q("fork a repo", "repos/create-fork"),
  q("create a new repository", "repos/create-for-authenticated-user", "repos/create-in-org"),
  q("delete repo", "repos/delete"),
  q("list my repositories", "repos/list-for-authenticated-user"),
  q("publish a release", "repos/create-release"),
  q("upload a release asset", "repos/upload-release-asset"),
  q("list tags", "repos/list-tags"),
  q("add collaborator to repo", "repos/add-collaborator"),
  q("list contributors", "repos/list-contributors"),
  q("get README", "repos/get-readme"),
  q("create a webhook for a repo", "repos/create-webhook"),
  q("unstar repo", "activity/unstar-repo-for-authenticated-user"),
  q("who starred this repo", "activity/list-stargazers-for-repo"),
  q("list my notifications", "activity/list-notifications-for-authenticated-user"),
  q("mark all notifications read", "activity/mark-notifications-as-read"),
  hard("watch a repository", "activity/set-repo-subscription"),
  q("request review on PR", "pulls/request-reviewers"),
  hard("approve a pull request", "pulls/create-review"),
  q("files changed in a PR", "pulls/list-files"),
  q("list PR review comments", "pulls/list-review-comments"),
  hard("get the diff of a PR", "pulls/get"),
  q("is the PR merged", "pulls/check-if-merged"),
  q("cancel workflow run", "actions/cancel-workflow-run"),
  q("rerun failed jobs", "actions/re-run-workflow-failed-jobs"),
  hard("trigger a workflow manually", "actions/create-workflow-dispatch"),
  q("download workflow run logs", "actions/download-workflow-run-logs"),
  q("list build artifacts", "actions/list-artifacts-for-repo", "actions/list-workflow-run-artifacts"),
  q("set a secret for actions", "actions/create-or-update-repo-secret", "actions/create-or-update-org-secret"),
  q("jobs of a CI run", "actions/list-jobs-for-workflow-run"),
  q("disable a workflow", "actions/disable-workflow"),
  q("search code", "search/code"),
  q("find repos by keyword", "search/repos"),
  q("search issues", "search/issues-and-pull-requests"),
  q("find a user by name", "search/users", "users/get-by-username"),
  q("who am I", "users/get-authenticated"),
  q("follow a user", "users/follow"),
  q("list followers", "users/list-followers-for-authenticated-user", "users/list-followers-for-user"),
  q("add an ssh key", "users/create-public-ssh-key-for-authenticated-user"),
  q("block a user", "users/block", "orgs/block-user"),
  q("list org members", "orgs/list-members"),
  q("invite someone to the organization", "orgs/create-invitation"),
  q("remove member from org", "orgs/remove-member", "orgs/remove-membership-for-user"),
  q("teams in an org", "teams/list"),
  q("add user to team", "teams/add-or-update-membership-for-user-in-org"),
  hard("thumbs up an issue", "reactions/create-for-issue"),
  q("lock an issue conversation", "issues/lock"),
  q("create milestone", "issues/create-milestone"),
  q("list labels in a repo", "issues/list-labels-for-repo"),
  q(
    "edit a comment",
    "issues/update-comment",
    "pulls/update-review-comment",
    "gists/update-comment",
    "repos/update-commit-comment",
  ),
  q("delete gist", "gists/delete"),
  q("list my gists", "gists/list"),
  q("create a check run", "checks/create"),
  q("set commit status", "repos/create-commit-status"),
  q("combined CI status of a commit", "repos/get-combined-status-for-ref"),
  q("list deployments", "repos/list-deployments"),
  q("deploy to an environment", "repos/create-deployment"),
  q("protect a branch", "repos/update-branch-protection"),
  q("dependabot alerts for a repo", "dependabot/list-alerts-for-repo"),
  q("code scanning alerts in a repository", "code-scanning/list-alerts-for-repo"),
  q("leaked secrets alerts", "secret-scanning/list-alerts-for-repo", "secret-scanning/list-alerts-for-org"),
  q("render markdown to html", "markdown/render"),
  q("check my rate limit", "rate-limit/get"),
  q("languages used in a repo", "repos/list-languages"),
  q("repo traffic page views", "repos/get-views"),
  q("create a tag", "git/create-ref", "git/create-tag"),
  q("get a commit", "repos/get-commit", "git/get-commit"),
  q("pull requests for a commit", "repos/list-pull-requests-associated-with-commit"),
  q("update PR branch from base", "pulls/update-branch"),
  q(
    "start a codespace",
    "codespaces/start-for-authenticated-user",
    "codespaces/create-for-authenticated-user",
    "codespaces/create-with-repo-for-authenticated-user",
  ),
  q("topics of a repository", "repos/get-all-topics"),
  q("transfer repo to another owner", "repos/transfer"),
  hard("archive a repository", "repos/update"),
  q("commits in a pull request", "pulls/list-commits"),
  hard("reopen an issue", "issues/update"),
  q("sync my fork with upstream", "repos/merge-upstream"),
  q("download repo as zip", "repos/download-zipball-archive"),
  q("list a user's public repos", "repos/list-for-user"),
  q("get an issue by number", "issues/get"),
];

/**
 * Against testkit's `makeFixtureToolTree` (service.noun.verb; 10 tools are `*.events.list`, 200 add
 * every noun with list/get, 1,000 every verb). Only the queries whose answer exists in a tree of a
 * given size count at that size.
 */
export const FIXTURE_QUERIES: readonly RetrievalQuery[] = [
  q("show my upcoming calendar events", "calendar.events.list"),
  q("list slack events", "slack.events.list"),
  q("what happened in posthog", "posthog.events.list"),
  q("jira event log", "jira.events.list"),
  q("weather events", "weather.events.list"),
  q("linear activity events", "linear.events.list"),
  q("email events", "email.events.list"),
  q("drive events list", "drive.events.list"),
  q("notion events", "notion.events.list"),
  q("github event feed", "github.events.list"),
  q("list linear issues", "linear.issues.list"),
  q("show slack users", "slack.users.list"),
  q("fetch a notion file", "notion.files.get"),
  q("get a jira project by id", "jira.projects.get"),
  q("look up one posthog report", "posthog.reports.get"),
  q("all drive files", "drive.files.list"),
  q("read an email comment", "email.comments.get"),
  q("weather alerts", "weather.alerts.list"),
  q("github labels", "github.labels.list"),
  q("calendar teams", "calendar.teams.list"),
  q("details of a linear team", "linear.teams.get"),
  q("one slack alert", "slack.alerts.get"),
  q("remove a slack comment", "slack.comments.delete"),
  q("new jira issue", "jira.issues.create"),
  q("edit a notion project", "notion.projects.update"),
  q("find linear labels", "linear.labels.search"),
  q("download posthog reports", "posthog.reports.export"),
  q("give a jira issue to someone", "jira.issues.assign"),
  q("archive old drive files", "drive.files.archive"),
  q("sync calendar events", "calendar.events.sync"),
  q("change a github label", "github.labels.update"),
  q("make a new email alert", "email.alerts.create"),
  hard("rename a linear team", "linear.teams.update"),
  hard("post a slack comment", "slack.comments.create"),
  hard("trash a drive file", "drive.files.delete"),
  q("export weather reports", "weather.reports.export"),
  q("look for notion users", "notion.users.search"),
  q("assign a github issue", "github.issues.assign"),
  q("delete a jira label", "jira.labels.delete"),
  q("add a calendar event", "calendar.events.create"),
  q("modify an email team", "email.teams.update"),
  q("search drive comments", "drive.comments.search"),
  hard("backup posthog projects", "posthog.projects.export"),
  q("resync linear users", "linear.users.sync"),
  q("archive slack files", "slack.files.archive"),
  q("create a notion comment", "notion.comments.create"),
  q("update weather alerts", "weather.alerts.update"),
  hard("put away a github project", "github.projects.archive"),
];

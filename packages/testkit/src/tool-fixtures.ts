import { defineTool, z, type ToolDefinition, type ToolTree } from "@openassistant/sdk";

const services = ["calendar", "github", "posthog", "linear", "slack", "notion", "drive", "email", "jira", "weather"];
const nouns = ["events", "issues", "projects", "users", "comments", "files", "alerts", "reports", "labels", "teams"];
const verbs = ["list", "get", "create", "update", "delete", "search", "archive", "assign", "export", "sync"];

/** Where fixture tool `i` sits: service = i % 10, noun = ⌊i/10⌋ % 10, verb = ⌊i/100⌋ % 10 (+ suffix past 1000). */
function place(i: number): { service: string; noun: string; verb: string; name: string } {
  const service = services[i % 10]!;
  const noun = nouns[Math.floor(i / 10) % 10]!;
  const verb = verbs[Math.floor(i / 100) % 10]!;
  const suffix = Math.floor(i / 1000);
  return { service, noun, verb, name: suffix === 0 ? verb : `${verb}${suffix}` };
}

/** A realistic tool with 3–6 fields (enums, defaults, optional, arrays, nested objects, describe()). */
export function makeFixtureTool(i: number): ToolDefinition {
  const { service, noun, verb } = place(i);
  const shape: Record<string, z.ZodType> = {
    id: z.string().describe(`Identifier of the ${noun.slice(0, -1)}`),
    status: z.enum(["open", "closed", "archived", "draft"]).default("open").describe("Filter by status"),
  };
  if (i % 2 === 0) shape.limit = z.number().int().min(1).max(100).optional().describe("Maximum results (1-100)");
  if (i % 3 === 0) shape.tags = z.array(z.string()).default([]).describe("Labels to attach");
  if (i % 4 !== 1)
    shape.range = z
      .object({ from: z.string().describe("ISO date"), to: z.string().optional() })
      .optional()
      .describe("Time window");
  if (i % 5 === 0) shape.notify = z.boolean().default(false);
  if (i % 7 === 0) shape.assignee = z.string().email().nullable().optional().describe("Who owns it; null to unassign");
  return defineTool({
    description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${service} ${noun}.`,
    approval: verb === "delete" || verb === "archive" ? "required" : "auto",
    args: z.object(shape),
    run: async (input) => ({ ok: true, input }),
  });
}

/** `n` fresh tools nested as service.noun.verb, e.g. `github.issues.create`. Fresh definitions on every call. */
export function makeFixtureToolTree(n: number): ToolTree {
  const tree: Record<string, Record<string, Record<string, ToolDefinition>>> = {};
  for (let i = 0; i < n; i++) {
    const { service, noun, name } = place(i);
    ((tree[service] ??= {})[noun] ??= {})[name] = makeFixtureTool(i);
  }
  return tree;
}

/** The dotted path of fixture tool `i` (present in makeFixtureToolTree(n) for n > i). */
export function fixtureToolPath(i: number): string {
  const { service, noun, name } = place(i);
  return `${service}.${noun}.${name}`;
}

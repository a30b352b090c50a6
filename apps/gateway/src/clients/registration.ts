import type { ToolContext, ToolTree } from "@openassistant/sdk";
import { resolvePolicy, type PolicyRule } from "@openassistant/core/policy";
import { DESCRIPTION_LIMIT, jsonSchemaTool, prepareJsonSchema } from "@openassistant/core/sources";
import { cutText, ELLIPSIS, escapeInvisible } from "@openassistant/core/text";
import { toolPathProblem } from "@openassistant/core/tools";

/** The namespace a session's client tools are mounted under: `tools.client.<name>`. */
export const CLIENT_NAMESPACE = "client";
/** Tools one session may register (a bridged MCP server counts each of its tools). */
export const MAX_CLIENT_TOOLS = 64;
/** Characters of a client tool's name. */
export const MAX_CLIENT_TOOL_NAME = 64;

/** A tool as the client declares it (hostile input: every field is checked here). */
export interface ClientToolSpec {
  readonly name: unknown;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
}

export interface RegisteredClientTool {
  readonly name: string;
  /** `client.<name>`. */
  readonly path: string;
  /** What the gateway's policy makes of it (the client has no say). */
  readonly approval: "auto" | "required" | "deny";
}

export interface Registration {
  readonly tree: ToolTree;
  readonly tools: readonly RegisteredClientTool[];
  /** Tools left out and why (the name shown escaped and cut). */
  readonly refused: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
}

/** Runs a call on the client; rejects with a clear error when it cannot. */
export type ClientCall = (name: string, input: Record<string, unknown>, ctx?: ToolContext) => Promise<unknown>;

/**
 * A client's tool list as a tool tree: names must be identifiers (tools/names.ts) of at most 64
 * characters, descriptions have their invisible characters escaped and are cut to the sources'
 * limit, input schemas are held to the sources' schema limits and validate each call before it
 * reaches the client. The tool's own approval mode is always "required": only the gateway's
 * policy rules (`policy.rules`, e.g. `client.read_file: auto`) can make one automatic.
 */
export function registerClientTools(specs: unknown, call: ClientCall, policy: readonly PolicyRule[]): Registration {
  const tree: Record<string, unknown> = {};
  const tools: RegisteredClientTool[] = [];
  const refused: Array<{ name: string; reason: string }> = [];
  if (!Array.isArray(specs))
    return {
      tree: {},
      tools,
      refused: [{ name: "(tools)", reason: "tools must be a list of { name, description, inputSchema }" }],
    };
  for (const spec of specs as ClientToolSpec[]) {
    const shown = shownName(spec?.name);
    const problem = specProblem(spec, tree);
    if (problem) {
      refused.push({ name: shown, reason: problem });
      continue;
    }
    if (tools.length >= MAX_CLIENT_TOOLS) {
      refused.push({ name: shown, reason: `a session may register at most ${MAX_CLIENT_TOOLS} tools` });
      continue;
    }
    const name = spec.name as string;
    const description = cutText(escapeInvisible((spec.description as string).trim()), DESCRIPTION_LIMIT, {
      marker: ELLIPSIS,
    });
    Object.defineProperty(tree, name, {
      enumerable: true,
      value: jsonSchemaTool({
        description,
        approval: "required",
        inputSchema: spec.inputSchema ?? { type: "object", properties: {} },
        run: (input, ctx) => call(name, input, ctx),
      }),
    });
    const path = `${CLIENT_NAMESPACE}.${name}`;
    tools.push({ name, path, approval: resolvePolicy(path, "required", policy).mode });
  }
  return { tree: tree as ToolTree, tools, refused };
}

/** Why a spec cannot be registered, or undefined. */
function specProblem(spec: ClientToolSpec, taken: Record<string, unknown>): string | undefined {
  if (typeof spec !== "object" || spec === null) return "a tool must be an object { name, description, inputSchema }";
  const { name, description, inputSchema } = spec;
  if (typeof name !== "string" || name === "") return "name must be a non-empty string";
  if (name.length > MAX_CLIENT_TOOL_NAME) return `name is longer than ${MAX_CLIENT_TOOL_NAME} characters`;
  if (name.includes(".") || toolPathProblem(name))
    return "name must be a JavaScript identifier (letters, digits, _ or $, not starting with a digit) and not `then` or `__proto__`";
  if (Object.hasOwn(taken, name)) return "name is registered twice";
  if (typeof description !== "string" || description.trim() === "") return "description must be a non-empty string";
  if (inputSchema === undefined) return undefined;
  if (typeof inputSchema !== "object" || inputSchema === null || Array.isArray(inputSchema))
    return "inputSchema must be a JSON Schema object";
  const type = (inputSchema as { type?: unknown }).type;
  if (type !== undefined && type !== "object") return 'inputSchema must describe an object (type "object")';
  const prepared = prepareJsonSchema(inputSchema);
  if (!prepared.ok) return `inputSchema is past a limit: ${prepared.limit}`;
  return undefined;
}

/** A client's name for a refused tool, safe to show: invisible characters escaped, cut to 80. */
function shownName(name: unknown): string {
  return typeof name === "string" ? cutText(escapeInvisible(name), 80, { marker: ELLIPSIS }) : `(${typeof name})`;
}

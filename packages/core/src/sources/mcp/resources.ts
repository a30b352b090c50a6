import type { ToolTree } from "@openassistant/sdk";
import { jsonSchemaTool } from "../json-schema-tool.ts";
import type { McpConnection } from "./connection.ts";

/**
 * An MCP server's resources and prompts, for code mode: `tools.<server>.$resources.list()`,
 * `.templates()`, `.read({ uri })` and `tools.<server>.$prompts.list()`, `.get({ name, arguments })`,
 * mounted when the server declares the capability. They only read (approval "auto", read-only;
 * operator rules still apply). Their results are typed (the JSON Schemas below, the parts of the
 * MCP result shapes a model's code uses); what else a server sends is passed through.
 */
export function resourceTools(connection: McpConnection): ToolTree {
  const server = connection.name;
  return {
    list: jsonSchemaTool({
      description: `Resources the ${server} MCP server offers (uri, name, description, mimeType); read one with $resources.read`,
      approval: "auto",
      readOnly: true,
      inputSchema: NO_INPUT,
      outputSchema: listOf("resources", RESOURCE),
      run: async () => ({ resources: await connection.listResources() }),
    }),
    templates: jsonSchemaTool({
      description: `URI templates (RFC 6570) of resources the ${server} MCP server can read; fill one in and pass it to $resources.read`,
      approval: "auto",
      readOnly: true,
      inputSchema: NO_INPUT,
      outputSchema: listOf("resourceTemplates", TEMPLATE),
      run: async () => ({ resourceTemplates: await connection.listResourceTemplates() }),
    }),
    read: jsonSchemaTool({
      description: `Reads a resource of the ${server} MCP server by its URI: text contents have \`text\`, binary ones base64 \`blob\``,
      approval: "auto",
      readOnly: true,
      inputSchema: object({ uri: { type: "string", description: "The resource's URI" } }, ["uri"]),
      outputSchema: listOf("contents", CONTENTS),
      run: async (input, ctx) => ({ contents: await connection.readResource(String(input.uri), ctx?.signal) }),
    }),
  };
}

export function promptTools(connection: McpConnection): ToolTree {
  const server = connection.name;
  return {
    list: jsonSchemaTool({
      description: `Prompt templates the ${server} MCP server offers, with their arguments; fill one in with $prompts.get`,
      approval: "auto",
      readOnly: true,
      inputSchema: NO_INPUT,
      outputSchema: listOf("prompts", PROMPT),
      run: async () => ({ prompts: await connection.listPrompts() }),
    }),
    get: jsonSchemaTool({
      description: `A prompt of the ${server} MCP server filled in with arguments: its messages`,
      approval: "auto",
      readOnly: true,
      inputSchema: object(
        {
          name: { type: "string", description: "The prompt's name (from $prompts.list)" },
          arguments: {
            type: "object",
            additionalProperties: { type: "string" },
            description: "The prompt's arguments, all strings",
          },
        },
        ["name"],
      ),
      outputSchema: object(
        {
          description: { type: "string" },
          messages: {
            type: "array",
            items: object({ role: { enum: ["user", "assistant"] }, content: CONTENT }, ["role", "content"]),
          },
        },
        ["messages"],
      ),
      run: async (input, ctx) =>
        connection.getPrompt(String(input.name), (input.arguments ?? {}) as Record<string, string>, ctx?.signal),
    }),
  };
}

type Schema = Record<string, unknown>;

function object(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

function listOf(key: string, item: Schema): Schema {
  return object({ [key]: { type: "array", items: item } }, [key]);
}

const NO_INPUT: Schema = { type: "object", properties: {} };
const TEXT = { type: "string" };
const RESOURCE = object(
  { uri: TEXT, name: TEXT, title: TEXT, description: TEXT, mimeType: TEXT, size: { type: "number" } },
  ["uri", "name"],
);
const TEMPLATE = object({ uriTemplate: TEXT, name: TEXT, title: TEXT, description: TEXT, mimeType: TEXT }, [
  "uriTemplate",
  "name",
]);
const CONTENTS = object({ uri: TEXT, mimeType: TEXT, text: TEXT, blob: TEXT }, ["uri"]);
const PROMPT = object(
  {
    name: TEXT,
    title: TEXT,
    description: TEXT,
    arguments: {
      type: "array",
      items: object({ name: TEXT, description: TEXT, required: { type: "boolean" } }, ["name"]),
    },
  },
  ["name"],
);
/** A message's content: `text` for text; image and audio carry base64 `data`; a resource embeds `resource`. */
const CONTENT = object(
  {
    type: { enum: ["text", "image", "audio", "resource", "resource_link"] },
    text: TEXT,
    data: TEXT,
    mimeType: TEXT,
    resource: CONTENTS,
  },
  ["type"],
);

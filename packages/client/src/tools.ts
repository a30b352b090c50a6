import { toJSONSchema, type ZodType } from "zod";

/** What a tool's handler gets besides its input. */
export interface ClientCallContext {
  /** The gateway's call id (as in its receipts). */
  readonly callId: string;
  /** Aborted when the gateway cancels the call (its run ended, it timed out, the session ended). */
  readonly signal: AbortSignal;
}

/** A tool declared with plain JSON Schema. */
export interface JsonSchemaClientTool {
  readonly description: string;
  /** A JSON Schema of an object; default: no parameters. */
  readonly inputSchema?: Record<string, unknown>;
  readonly run: (input: Record<string, unknown>, ctx: ClientCallContext) => unknown;
}

/** A tool made by `defineTool` of `@openassistant/sdk` (only these fields are read). */
export interface DefinedTool {
  readonly _tag: "ToolDefinition";
  readonly description: string;
  readonly args: ZodType;
  readonly run: (input: any, ctx?: any) => Promise<unknown>;
}

export type ClientTool = JsonSchemaClientTool | DefinedTool;

/** A tool as it is sent to the gateway and run here. */
export interface LocalTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly run: (input: Record<string, unknown>, ctx: ClientCallContext) => Promise<unknown>;
}

const isDefined = (t: ClientTool): t is DefinedTool => (t as DefinedTool)._tag === "ToolDefinition";

/**
 * The tool in the gateway's terms: a `defineTool` tool's zod input becomes JSON Schema, and its
 * input is parsed again here before it runs (the gateway validates first; this applies defaults).
 */
export function localTool(name: string, tool: ClientTool): LocalTool {
  if (isDefined(tool)) {
    const inputSchema = toJSONSchema(tool.args, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    delete inputSchema.$schema;
    return {
      name,
      description: tool.description,
      inputSchema,
      run: async (input, ctx) =>
        tool.run(tool.args.parse(input), { signal: ctx.signal, callId: ctx.callId, log: console }),
    };
  }
  return {
    name,
    description: tool.description,
    inputSchema: tool.inputSchema ?? { type: "object", properties: {} },
    run: async (input, ctx) => tool.run(input, ctx),
  };
}

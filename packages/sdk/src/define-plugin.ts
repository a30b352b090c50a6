import { z } from "zod";
import type { ToolTree } from "./define-tool.ts";
import { ToolDefinitionError } from "./define-tool.ts";
import type { PluginContext } from "./plugin-context.ts";

/** What `definePlugin()` returns; a plugin entry exports it as its default. */
export interface PluginDefinition<TConfig = unknown> {
  readonly _tag: "PluginDefinition";
  /** Schema of `config.<id>`; the host validates the user's config against it before `tools` runs. */
  readonly config?: z.ZodType<TConfig>;
  readonly tools: (ctx: PluginContext<TConfig>) => ToolTree | Promise<ToolTree>;
}

export interface PluginOptions<TSchema extends z.ZodObject<z.ZodRawShape>> {
  /** Schema of this plugin's config; `ctx.config` is typed from it (defaults applied). */
  config?: TSchema;
  /** Builds the plugin's tools from its context. */
  tools: (ctx: PluginContext<z.output<TSchema>>) => ToolTree | Promise<ToolTree>;
}

/**
 * A plugin with a typed config:
 * `export default definePlugin({ config: z.object({ token: z.string() }), tools: (ctx) => ({ ... }) })`.
 */
export function definePlugin<TSchema extends z.ZodObject<z.ZodRawShape> = z.ZodObject<Record<string, never>>>(
  options: PluginOptions<TSchema>,
): PluginDefinition<z.output<TSchema>> {
  if (typeof options !== "object" || options === null)
    throw new ToolDefinitionError('definePlugin: "options" must be an object');
  if (options.config !== undefined && !(options.config instanceof z.ZodObject))
    throw new ToolDefinitionError(
      'definePlugin: "config" must be a zod object schema, e.g. z.object({ token: z.string() })',
    );
  if (typeof options.tools !== "function")
    throw new ToolDefinitionError('definePlugin: "tools" must be a function (ctx) => ({ ...tools })');
  return Object.freeze({
    _tag: "PluginDefinition" as const,
    ...(options.config ? { config: options.config as unknown as z.ZodType<z.output<TSchema>> } : {}),
    tools: options.tools,
  });
}

export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return typeof value === "object" && value !== null && (value as { _tag?: unknown })._tag === "PluginDefinition";
}

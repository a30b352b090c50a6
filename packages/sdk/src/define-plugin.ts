import { z } from "zod";
import type { ToolTree } from "./define-tool.ts";
import { ToolDefinitionError } from "./define-tool.ts";
import type { Awaitable, PluginHooks } from "./hooks.ts";
import type { PluginContext } from "./plugin-context.ts";

/** What `definePlugin()` returns; a plugin entry exports it as its default. */
export interface PluginDefinition<TConfig = unknown> {
  readonly _tag: "PluginDefinition";
  /** Schema of `config.<id>`; the host validates the user's config against it before `tools` runs. */
  readonly config?: z.ZodType<TConfig>;
  readonly tools: (ctx: PluginContext<TConfig>) => ToolTree | Promise<ToolTree>;
  /** The plugin's hooks, built once per load from its context (after `tools`). */
  readonly hooks?: (ctx: PluginContext<TConfig>) => Awaitable<PluginHooks>;
}

interface PluginOptionsBase<TSchema extends z.ZodObject<z.ZodRawShape>> {
  /** Schema of this plugin's config; `ctx.config` is typed from it (defaults applied). */
  config?: TSchema;
}

/** A plugin gives tools, hooks or both; hooks are an object or built from the plugin's context. */
type HooksOption<TSchema extends z.ZodObject<z.ZodRawShape>> =
  | PluginHooks
  | ((ctx: PluginContext<z.output<TSchema>>) => Awaitable<PluginHooks>);

export type PluginOptions<TSchema extends z.ZodObject<z.ZodRawShape>> = PluginOptionsBase<TSchema> &
  (
    | {
        /** Builds the plugin's tools from its context. */
        tools: (ctx: PluginContext<z.output<TSchema>>) => ToolTree | Promise<ToolTree>;
        hooks?: HooksOption<TSchema>;
      }
    | {
        tools?: (ctx: PluginContext<z.output<TSchema>>) => ToolTree | Promise<ToolTree>;
        /** The plugin's hooks (see `PluginHooks`): `{ tool: { before(call, ctx) { ... } } }`. */
        hooks: HooksOption<TSchema>;
      }
  );

const noTools = (): ToolTree => ({});

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
  const { hooks } = options;
  if (hooks !== undefined && typeof hooks !== "function" && (typeof hooks !== "object" || hooks === null))
    throw new ToolDefinitionError(
      'definePlugin: "hooks" must be an object of hooks or a function (ctx) => ({ tool: { before } })',
    );
  if (options.tools === undefined && hooks === undefined)
    throw new ToolDefinitionError('definePlugin: "tools" must be a function (ctx) => ({ ...tools })');
  if (options.tools !== undefined && typeof options.tools !== "function")
    throw new ToolDefinitionError('definePlugin: "tools" must be a function (ctx) => ({ ...tools })');
  return Object.freeze({
    _tag: "PluginDefinition" as const,
    ...(options.config ? { config: options.config as unknown as z.ZodType<z.output<TSchema>> } : {}),
    tools: options.tools ?? noTools,
    ...(hooks === undefined ? {} : { hooks: typeof hooks === "function" ? hooks : () => hooks }),
  });
}

export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return typeof value === "object" && value !== null && (value as { _tag?: unknown })._tag === "PluginDefinition";
}

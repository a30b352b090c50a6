/** Minimal logger handed to plugins; messages are prefixed with the plugin id by the host. */
export interface PluginLogger {
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** What a plugin factory receives: `export default (ctx: PluginContext) => ToolTree`. */
export interface PluginContext {
  /** The plugin's id (namespace of its tools). */
  readonly id: string;
  /** `config.<id>` from the user's config, validated against the manifest's configSchema when present. */
  readonly config: Readonly<Record<string, unknown>>;
  /** A persistent folder for this plugin's own data; created before the factory runs. */
  readonly dataDir: string;
  readonly logger: PluginLogger;
}

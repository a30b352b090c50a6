/** Minimal logger handed to plugins; messages are prefixed with the plugin id by the host. */
export interface PluginLogger {
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** What a plugin factory receives: `export default (ctx: PluginContext) => ToolTree`. */
export interface PluginContext<TConfig = Readonly<Record<string, unknown>>> {
  /** The plugin's id (namespace of its tools). */
  readonly id: string;
  /**
   * `config.<id>` from the user's config: validated against `definePlugin({ config })` (typed, with
   * its defaults applied) or the manifest's configSchema when present.
   */
  readonly config: TConfig;
  /** A persistent folder for this plugin's own data; created before the factory runs. */
  readonly dataDir: string;
  readonly logger: PluginLogger;
}

/** A problem found while loading config, tools or plugins; shown by `openassistant plugins list`. */
export interface Diagnostic {
  readonly level: "error" | "warning" | "info";
  /** What it is about: a plugin/tool id, or "config". */
  readonly id: string;
  /** The file it is about (config file, tool file, plugin package.json/manifest/entry). */
  readonly source: string;
  readonly message: string;
  /** What to do about it. */
  readonly hint: string;
  readonly line?: number;
  readonly column?: number;
}

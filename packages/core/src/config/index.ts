export { modelSettingsShape, withConfigSections, type ConfigSchema } from "./schema.ts";
export { loadConfig, type LoadConfigOptions, type LoadedConfig } from "./load.ts";
export { ConfigError } from "./errors.ts";
export type { Diagnostic } from "./diagnostic.ts";
export { findProjectRoot, workspaceDir } from "./paths.ts";
export { loadOrCreateSecretFile, writePrivateFile } from "./private-file.ts";
export { secret } from "./secret-mark.ts";
export { configSecretValues, secretValuesByKeyName } from "./secret-fields.ts";

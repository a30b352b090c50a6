export { defaultConfig, type OpenAssistantConfig } from "./schema.ts";
export { loadConfig, type LoadedConfig } from "./load.ts";
export { ConfigError } from "./errors.ts";
export type { Diagnostic } from "./diagnostic.ts";
export { findProjectRoot, workspaceDir } from "./paths.ts";
export {
  knownModels,
  modelCapabilities,
  type EffortLevel,
  type ModelCapabilities,
  type ThinkingSetting,
} from "./model-capabilities.ts";
export { loadOrCreateSecretFile, writePrivateFile } from "./private-file.ts";
export { configSecretValues, secretValuesByKeyName } from "./secret-fields.ts";

export {
  modelSettingsShape,
  policyRuleSchema,
  withConfigSections,
  type ConfigSchema,
  type OpenAssistantConfig,
  type OpenAssistantConfigInput,
} from "./schema.ts";
export { loadConfig, type LoadConfigOptions, type LoadedConfig } from "./load.ts";
export { keysNeedingRestart, RELOADED_KEYS } from "./restart-keys.ts";
export { ConfigError } from "./errors.ts";
export type { Diagnostic } from "./diagnostic.ts";
export { findProjectRoot, globalConfigDir, workspaceDir, WORKSPACE_DIR } from "./paths.ts";
export { parseJsonc } from "./jsonc.ts";
export { interpolateEnv } from "./interpolate.ts";
export { deepMerge } from "./merge.ts";
export { findLiteralSecrets } from "./secrets.ts";
export { locateConfigKey, type ConfigLocation } from "./locate.ts";
export { loadOrCreateSecretFile, writePrivateFile } from "./private-file.ts";
export { secret } from "./secret-mark.ts";
export {
  configSecretValues,
  marksSecret,
  SECRET_KEY,
  secretValuesByKeyName,
  secretValuesBySchema,
  zodJsonSchema,
} from "./secret-fields.ts";

export {
  createModelClient,
  type ModelClient,
  type ModelClientOptions,
  type StreamOptions,
  type StreamParams,
} from "./client.ts";
export { classifyModelError, ModelError, type ClassifiedError, type ModelErrorKind } from "./errors.ts";
export { buildSdkClient, DEFAULT_ANTHROPIC_BASE_URL, OAUTH_BETA, type SdkClientOptions } from "./sdk-client.ts";

export type {
  AuthProfile,
  AuthProfileType,
  AuthProvider,
  EnvLike,
  FailureReason,
  ResolvedCredential,
  RotationEvent,
} from "./types.ts";
export { AUTH_STORE_FILENAME, authStorePath, resolveConfigDir } from "./paths.ts";
export { AuthStore, AuthStoreError, openAuthStore, type AuthStoreData } from "./store.ts";
export {
  ADD_CREDENTIAL_HINT,
  AuthError,
  createAuthResolver,
  type AuthErrorKind,
  type AuthResolver,
  type AuthResolverOptions,
  type FailureInfo,
} from "./resolve.ts";
export { COOLDOWN_STEPS_MS, cooldownMs } from "./cooldown.ts";
export {
  API_KEY_PREFIX,
  SETUP_TOKEN_MIN_LENGTH,
  SETUP_TOKEN_PREFIX,
  validateApiKey,
  validateSetupToken,
  type ValidationResult,
} from "./validate.ts";
export { maskSecret } from "./mask.ts";

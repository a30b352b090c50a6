/** OpenAPI specs as tools: one typed, receipted tool per operation. */
export { loadOpenApiSource, type OpenApiAuth, type OpenApiSource, type OpenApiSourceOptions } from "./load.ts";
export { describeOperations, type OperationDescriptor } from "./operations.ts";
export { openApi30ToJsonSchema } from "./json-schema.ts";

/** OpenAPI specs as tools: one typed, receipted tool per operation. */
export { loadOpenApiSource, type OpenApiAuth, type OpenApiSource } from "./load.ts";

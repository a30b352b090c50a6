import type { jsonSchemaValidator, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { buildValidator } from "../input-schema.ts";

/**
 * The MCP client's check of a tool's structured output against its `outputSchema`, built the way
 * input validators are (input-schema.ts): held to the schema limits, patterns on RE2, built on the
 * tool's first result rather than for every tool when the list arrives. The SDK's default compiles
 * each schema with Ajv at `tools/list` and runs its patterns on the backtracking RegExp.
 * A schema past a limit checks nothing: the output is data handed to the run, and the tool's input
 * schema (checked at load) decides whether the tool is there at all.
 */
export const boundedOutputValidator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown): JsonSchemaValidator<T> {
    let built: ReturnType<typeof buildValidator> | undefined;
    return (input: unknown) => {
      built ??= buildValidator(schema);
      if (!built.schema) return { valid: true, data: input as T, errorMessage: undefined };
      const parsed = built.schema.safeParse(input);
      if (parsed.success) return { valid: true, data: input as T, errorMessage: undefined };
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
      return { valid: false, data: undefined, errorMessage: `${issue?.message ?? "invalid"}${where}` };
    };
  },
};

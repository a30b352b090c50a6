import { z } from "zod";

/**
 * A tool input schema from JSON Schema (MCP `inputSchema`, an OpenAPI operation's parameters):
 * always a zod object. `additionalProperties: false` becomes "unknown keys are dropped" rather
 * than a `never` index signature, which would make every declared property a type error.
 * A schema zod cannot express still gets a tool: any object, validated by the server.
 */
export function inputSchemaFromJson(schema: unknown): z.ZodObject {
  try {
    const converted = z.fromJSONSchema((schema ?? { type: "object" }) as never);
    if (converted instanceof z.ZodObject) return converted.strip();
  } catch {
    // fall through
  }
  return z.object({}).catchall(z.unknown());
}

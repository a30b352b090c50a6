import { z } from "zod";
import { cutText, ELLIPSIS } from "../text/cut.ts";

/** A tool input from JSON Schema, and why it is looser than the schema when it had to be. */
export interface ConvertedInput {
  readonly schema: z.ZodObject;
  /** Set when the JSON Schema could not be used as it is: the input is then any object. */
  readonly problem?: string;
}

/**
 * A tool input schema from JSON Schema (MCP `inputSchema`, an OpenAPI operation's parameters):
 * always a zod object. `additionalProperties: false` becomes "unknown keys are dropped" rather
 * than a `never` index signature, which would make every declared property a type error.
 * A schema zod cannot express still gets a tool: any object, validated by the server; `problem`
 * says why (the declarations turn it into a warning naming the tool).
 */
export function convertInputSchema(json: unknown): ConvertedInput {
  let converted: unknown;
  try {
    converted = z.fromJSONSchema((json ?? { type: "object" }) as never);
  } catch (error) {
    const reason = cutText(error instanceof Error ? error.message : String(error), 300, { marker: ELLIPSIS });
    return { schema: anyObject(), problem: `its JSON Schema cannot be turned into a validator (${reason})` };
  }
  if (converted instanceof z.ZodObject) return { schema: converted.strip() };
  return { schema: anyObject(), problem: "its JSON Schema does not describe an object (a tool's input is one)" };
}

function anyObject(): z.ZodObject {
  return z.object({}).catchall(z.unknown());
}

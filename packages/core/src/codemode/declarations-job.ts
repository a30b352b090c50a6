import type { JobResult } from "../sources/source-thread-protocol.ts";
import { renderJsonSchemaInput } from "./declarations.ts";

/** A JSON Schema tool's input (and output) schema, as `prerenderDeclarations` sends it to the source worker. */
export interface DeclarationInput {
  readonly schema: unknown;
  readonly output?: unknown;
}

/** The source worker's job: the rendered input type (declarations.ts), as the head; no items. */
export function declarationJob(input: DeclarationInput): JobResult {
  return { head: renderJsonSchemaInput(input.schema, input.output), items: [] };
}

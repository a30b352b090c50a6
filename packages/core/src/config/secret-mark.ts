import type { z } from "zod";

/**
 * A credential: its value is registered with the redactor when the config is read (the
 * `config-field` source; `secret-fields.ts`). `secret-fields.test.ts` fails when a field whose
 * name says credential is not marked. Shared by core's schema and the source kinds' schemas.
 */
export const secret = <T extends z.ZodType>(schema: T): T => schema.meta({ secret: true });

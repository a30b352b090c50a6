import { z } from "zod";
import { secret } from "../../config/secret-mark.ts";

/** OpenAPI specs whose operations become `tools.<name>.<operation>`. */
export const openApiConfigSchema = z
  .record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
      message: "must be an identifier (letters, digits, _), it becomes tools.<name>",
    }),
    z.strictObject({
      /** Spec file (JSON or YAML; relative to the project root) or http(s) URL. */
      spec: z.string().min(1),
      /** Where requests go; default: the spec's first server. */
      baseUrl: z.string().optional(),
      /** Added on the host to every request; the sandbox never sees it. */
      auth: z
        .discriminatedUnion("type", [
          z.strictObject({ type: z.literal("bearer"), token: secret(z.string().min(1)) }),
          z.strictObject({ type: z.literal("header"), name: z.string().min(1), value: secret(z.string().min(1)) }),
          z.strictObject({ type: z.literal("query"), name: z.string().min(1), value: secret(z.string().min(1)) }),
        ])
        .optional(),
      enabled: z.boolean().default(true),
    }),
  )
  .default({});

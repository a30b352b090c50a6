import { z } from "zod";
import { secret } from "../../config/secret-mark.ts";

/** MCP servers whose tools become `tools.<name>.<tool>`. */
export const mcpConfigSchema = z
  .strictObject({
    servers: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
          message: "must be an identifier (letters, digits, _), it becomes tools.<name>",
        }),
        z.union([
          z
            .strictObject({
              url: z.string().url(),
              headers: z.record(z.string(), secret(z.string())).optional(),
              /** Authorization code + PKCE (tokens from `openassistant mcp login <name>`). */
              oauth: z
                .strictObject({
                  /** A client registered by hand; default: dynamic registration at login. */
                  clientId: z.string().min(1).optional(),
                  clientSecret: secret(z.string().min(1)).optional(),
                  scopes: z.array(z.string().min(1)).optional(),
                  /** Loopback port for the login's redirect; default: any free port. */
                  redirectPort: z
                    .number()
                    .int()
                    .min(1024, { message: "must be a port from 1024 to 65535 (the login listens on 127.0.0.1)" })
                    .max(65535, { message: "must be a port from 1024 to 65535 (the login listens on 127.0.0.1)" })
                    .optional(),
                })
                .optional(),
              /** Seconds to connect and answer `initialize` (default 60). */
              startupTimeoutSeconds: z.number().positive().max(3600).optional(),
              enabled: z.boolean().default(true),
            })
            .superRefine((s, ctx) => {
              if (s.oauth?.clientSecret && !s.oauth.clientId)
                ctx.addIssue({
                  code: "custom",
                  path: ["oauth", "clientSecret"],
                  message: "needs oauth.clientId (the client the secret belongs to)",
                });
              if (s.oauth && Object.keys(s.headers ?? {}).some((h) => h.toLowerCase() === "authorization"))
                ctx.addIssue({
                  code: "custom",
                  path: ["headers", "authorization"],
                  message: "conflicts with oauth: remove the authorization header or the oauth block",
                });
            }),
          z.strictObject({
            command: z.string().min(1),
            args: z.array(z.string()).default([]),
            env: z.record(z.string(), secret(z.string())).optional(),
            cwd: z.string().optional(),
            /** Starting a local process is an explicit opt-in per server. */
            allowProcess: z.boolean().default(false),
            /** Seconds from starting the process to its answer to `initialize`; a first `npx -y` run downloads the package first (default 60). */
            startupTimeoutSeconds: z.number().positive().max(3600).optional(),
            enabled: z.boolean().default(true),
          }),
        ]),
      )
      .default({}),
  })
  .prefault({});

import { createInterface } from "node:readline";
import { secret } from "@openassistant/core/config";
import { z } from "zod";
import { surfacePort } from "../../../src/surfaces/gateway-port.ts";
import { defineSurface } from "../../../src/surfaces/surface.ts";
import { createEchoStore } from "./sqlite/store.ts";

/**
 * A complete test-only surface, to show what one is: its folder (this file and its store's
 * `sqlite/` backend) plus one line in a registry (surfaces/registry.test.ts adds it to the real
 * ones). Each input line is a message from `section.user`; the answer is written back, numbered by
 * the surface's own store.
 */
export const echoConfigSchema = z
  .strictObject({
    /** Whether `openassistant start` runs it. */
    enabled: z.boolean().default(false),
    /** Who is typing; recorded as `echo:<user>`. */
    user: z.string().min(1).default("ann"),
    /** Who may decide approvals (also in the console). */
    operators: z.array(z.string().min(1)).default([]),
    /** A credential, to show it reaches the redactor. */
    token: secret(z.string()).optional(),
  })
  .prefault({});

type EchoSection = z.output<typeof echoConfigSchema>;

export const echoSurface = defineSurface<EchoSection>({
  id: "echo",
  configSchema: echoConfigSchema,
  configured: (section) => section.enabled,
  credentials: (section) => (section.token ? [section.token] : []),
  operators: {
    bareId: (id) => /^echo:(.+)$/.exec(id)?.[1],
    isOperator: (section, userId) => section.operators.includes(userId),
    configKey: "echo.operators",
  },
  doctor: (section) => [
    { name: "echo", level: "ok", detail: section?.enabled ? `typing as ${section.user}` : "not configured" },
  ],
  async start({ gateway, section, input, output }) {
    const port = surfacePort(gateway);
    const store = port.openStore({ sqlite: createEchoStore });
    const lines = createInterface({ input });
    const done = (async () => {
      for await (const text of lines) {
        const n = await store.count(section.user);
        const outcome = await port.handleMessage({
          sessionKey: `echo:${section.user}`,
          surface: "echo",
          userId: `echo:${section.user}`,
          text,
        });
        output.write(`#${n} ${port.redact(outcome.text)}\n`);
      }
    })();
    return { done, stop: () => lines.close() };
  },
});

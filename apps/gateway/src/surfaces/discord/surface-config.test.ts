import { describe, expect, test } from "bun:test";
import { gatewayConfigSchema } from "../../config-schema.ts";
import { decisionFor } from "./approvals/approval-actions.ts";
import {
  alwaysTtlMsOf,
  DEFAULT_ALWAYS_TTL_MS,
  type DiscordConfigSection,
  type DiscordSurfaceConfig,
} from "./surface-config.ts";

/** The gateway's config schema, with this surface's section typed as the surface's schema says. */
const configSchema = {
  parse: (input: unknown) => gatewayConfigSchema().parse(input) as unknown as { discord: DiscordConfigSection },
};

describe("discord config → surface config", () => {
  test("alwaysScope defaults to session and alwaysTtlHours to 24; both reach the 'Approve always' decision", () => {
    const defaults = configSchema.parse({ discord: { token: "t" } }).discord;
    expect(defaults.alwaysScope).toBe("session");
    expect(defaults.alwaysTtlHours).toBe(24);
    const surface: DiscordSurfaceConfig = { ...defaults, token: "t" };
    expect(alwaysTtlMsOf(surface)).toBe(DEFAULT_ALWAYS_TTL_MS);

    const custom = configSchema.parse({ discord: { token: "t", alwaysScope: "global", alwaysTtlHours: 0.5 } }).discord;
    expect(decisionFor({ ...custom, token: "t" }, "always", "u1").always).toEqual({
      scope: "global",
      ttlMs: 30 * 60_000,
    });
    expect(() => configSchema.parse({ discord: { alwaysScope: "forever" } })).toThrow();
    expect(() => configSchema.parse({ discord: { alwaysTtlHours: 0 } })).toThrow();
  });
});

import { loadConfig, withConfigSections, type LoadConfigOptions, type LoadedConfig } from "@openassistant/core/config";
import type { z } from "zod";
import { modelConfigSchema } from "./model/config-schema.ts";
import { SURFACES, surfaceConfigShape } from "./surfaces/registry.ts";
import type { SurfaceDefinition } from "./surfaces/surface.ts";

/** Core's config schema with what the gateway adds: its model section and each registered surface's section. */
export function gatewayConfigSchema(surfaces: readonly SurfaceDefinition[] = SURFACES) {
  return withConfigSections({ model: modelConfigSchema, ...surfaceConfigShape(surfaces) });
}

const schema = gatewayConfigSchema();

/** The gateway's config with every default applied (surface sections typed as the surfaces read them). */
export type GatewayConfig = z.output<typeof schema> & { readonly [surface: string]: unknown };

/** Core's `loadConfig` checked against the gateway's schema (every command that reads the config uses this). */
export function loadGatewayConfig(opts: LoadConfigOptions): Promise<LoadedConfig<GatewayConfig>> {
  return loadConfig<GatewayConfig>({ ...opts, schema: schema as never });
}

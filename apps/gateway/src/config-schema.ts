import {
  loadConfig,
  withConfigSections,
  type ConfigSchema,
  type LoadConfigOptions,
  type LoadedConfig,
} from "@openassistant/core/config";
import type { z } from "zod";
import { modelConfigSchema } from "./model/config-schema.ts";
import { clientsConfigSchema } from "./clients/config-schema.ts";
import { schedulesConfigSchema } from "./schedules/input.ts";
import { SURFACES, surfaceConfigShape } from "./surfaces/registry.ts";
import type { SurfaceDefinition } from "./surfaces/surface.ts";

const gatewaySections = () =>
  withConfigSections({ model: modelConfigSchema, clients: clientsConfigSchema, schedules: schedulesConfigSchema });

/** The gateway's config with every default applied; each surface reads its own section (by its id). */
export type GatewayConfig = z.output<ReturnType<typeof gatewaySections>> & { readonly [surface: string]: unknown };

/** Core's config schema with what the gateway adds: its model section and each registered surface's section. */
export function gatewayConfigSchema(surfaces: readonly SurfaceDefinition[] = SURFACES): ConfigSchema<GatewayConfig> {
  return withConfigSections({
    model: modelConfigSchema,
    clients: clientsConfigSchema,
    // #33: `schedules` (schedules/input.ts): each with a stable id.
    schedules: schedulesConfigSchema,
    ...surfaceConfigShape(surfaces),
  }) as unknown as ConfigSchema<GatewayConfig>;
}

const schema = gatewayConfigSchema();

/** Core's `loadConfig` checked against the gateway's schema (every command that reads the config uses this). */
export function loadGatewayConfig(opts: LoadConfigOptions): Promise<LoadedConfig<GatewayConfig>> {
  return loadConfig({ ...opts, schema });
}

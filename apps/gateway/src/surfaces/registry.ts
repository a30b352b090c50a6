import { discordSurface } from "./discord/surface.ts";
import type { SurfaceDefinition } from "./surface.ts";
import { terminalSurface } from "./terminal/surface.ts";

/**
 * Every chat surface, one line each. The gateway's config schema takes each one's section from
 * here, the console asks them who is an operator, and `openassistant start` runs the first one
 * whose section asks for it (the terminal, which has none, comes last). A new surface: a folder
 * under `surfaces/` with its `surface.ts` (`defineSurface`), and one line here.
 */
export const SURFACES: readonly SurfaceDefinition[] = [discordSurface, terminalSurface] as SurfaceDefinition[];

/** The config sections of these surfaces, keyed by their ids (merged into the gateway's config schema). */
export function surfaceConfigShape(surfaces: readonly SurfaceDefinition[]) {
  const shape: Record<string, NonNullable<SurfaceDefinition["configSchema"]>> = {};
  for (const s of surfaces) if (s.configSchema) shape[s.id] = s.configSchema;
  return shape;
}

/** The sections that ask for their surface to run, keyed by surface id (`GatewaySettings.surfaces`). */
export function configuredSections(
  config: Readonly<Record<string, unknown>>,
  surfaces: readonly SurfaceDefinition[] = SURFACES,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of surfaces)
    if (s.configSchema && Object.hasOwn(config, s.id) && s.configured(config[s.id])) out[s.id] = config[s.id];
  return out;
}

/**
 * The surface `openassistant start` runs: the named one, or ("auto") the first whose section asks
 * for it; a surface without a section (the terminal) asks by itself.
 */
export function surfaceToRun(
  sections: Readonly<Record<string, unknown>>,
  mode: "auto" | (string & {}),
  surfaces: readonly SurfaceDefinition[] = SURFACES,
): SurfaceDefinition {
  const surface =
    mode === "auto"
      ? surfaces.find((s) => (s.configSchema ? Object.hasOwn(sections, s.id) : s.configured(undefined)))
      : surfaces.find((s) => s.id === mode);
  if (!surface) throw new Error(`no surface to start (${mode}); registered: ${surfaces.map((s) => s.id).join(", ")}`);
  return surface;
}

/** The credentials of every configured section (the Discord bot token). */
export function surfaceCredentials(
  sections: Readonly<Record<string, unknown>> | undefined,
  surfaces: readonly SurfaceDefinition[] = SURFACES,
): string[] {
  return surfaces.flatMap((s) =>
    sections && Object.hasOwn(sections, s.id) ? [...(s.credentials?.(sections[s.id]) ?? [])] : [],
  );
}

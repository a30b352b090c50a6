import type { GatewaySettings } from "../settings.ts";
import { SURFACES } from "../surfaces/registry.ts";
import type { SurfaceDefinition } from "../surfaces/surface.ts";

/** An operator id as a surface records it (`discord:123`) and bare (`123`) name the same person. */
export function normalizeOperator(id: string, surfaces: readonly SurfaceDefinition[] = SURFACES): string {
  const trimmed = id.trim();
  for (const s of surfaces) {
    const bare = s.operators?.bareId(trimmed);
    if (bare !== undefined) return bare;
  }
  return trimmed;
}

/**
 * Who may log in to the console and decide approvals there: `http.approvers` when configured,
 * else whoever a configured surface names as an operator (Discord: `discord.approvers`, else
 * `discord.allowedUsers`; user ids only). Fails closed: nobody when none is set.
 */
export function consoleApproverCheck(
  settings: Pick<GatewaySettings, "http" | "surfaces">,
  surfaces: readonly SurfaceDefinition[] = SURFACES,
): (operator: string) => boolean {
  const configured = settings.http?.approvers;
  if (configured?.length) {
    const allowed = new Set(configured.map((id) => normalizeOperator(id, surfaces)));
    return (operator) => allowed.has(normalizeOperator(operator, surfaces));
  }
  const sections = settings.surfaces ?? {};
  const asked = surfaces.filter((s) => s.operators && Object.hasOwn(sections, s.id));
  return (operator) => {
    const userId = normalizeOperator(operator, surfaces);
    return userId !== "" && asked.some((s) => s.operators!.isOperator(sections[s.id], userId));
  };
}

/** Where operators are added, for messages: `http.approvers` and each surface's own key. */
export function operatorConfigKeys(surfaces: readonly SurfaceDefinition[] = SURFACES): string[] {
  return surfaces.flatMap((s) => (s.operators ? [s.operators.configKey] : []));
}

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../config/diagnostic.ts";
import { GUARDED_SCOPE } from "./install-guard.ts";

/**
 * An installed plugin whose package.json has a required peer on `@openassistant/*`: Bun installs
 * peers by default and would ask the public registry, where that scope belongs to an unrelated
 * project. The author must mark the peer optional.
 */
export function checkScopePeers(id: string, dir: string): Diagnostic[] {
  const file = join(dir, "package.json");
  let pkg: { peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  try {
    pkg = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return [];
  }
  const required = Object.keys(pkg.peerDependencies ?? {}).filter(
    (n) => n.startsWith(GUARDED_SCOPE) && pkg.peerDependenciesMeta?.[n]?.optional !== true,
  );
  if (!required.length) return [];
  return [
    {
      level: "warning",
      id,
      source: file,
      message: `required peerDependency ${required.join(", ")}: Bun installs peers by default and would fetch ${required.length > 1 ? "them" : "it"} from the public npm registry, where the ${GUARDED_SCOPE.slice(0, -1)} scope belongs to an unrelated project`,
      hint: `Plugin author: mark it optional in package.json, e.g. "peerDependenciesMeta": { ${required.map((n) => `"${n}": { "optional": true }`).join(", ")} }. The gateway provides @openassistant/sdk itself.`,
    },
  ];
}

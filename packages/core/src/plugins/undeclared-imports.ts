import { join } from "node:path";
import { isValidPackageName, packageImports, packageNameOf } from "./bare-imports.ts";
import { listToolFiles } from "../sources/workspace-files/files.ts";
import { GUARDED_SCOPE } from "./install-guard.ts";

const DEP_FIELDS = ["dependencies", "optionalDependencies", "devDependencies", "peerDependencies"] as const;

export interface ToolImports {
  /** Package name → the tool files importing it (directly or through their relative imports). */
  readonly packages: Map<string, string[]>;
  /** `@openassistant/*` names the gateway does not provide, and invalid names: never installed. */
  readonly refused: Map<string, string[]>;
}

/** Package imports of the workspace's tool files, grouped by package (the SDK, zod and builtins excluded). */
export function toolImports(workspace: string): ToolImports {
  const packages = new Map<string, string[]>();
  const refused = new Map<string, string[]>();
  for (const file of listToolFiles(join(workspace, "tools"))) {
    for (const spec of packageImports(file)) {
      const name = packageNameOf(spec);
      const into = name.startsWith(GUARDED_SCOPE) || !isValidPackageName(name) ? refused : packages;
      const files = into.get(name) ?? [];
      if (!files.includes(file)) files.push(file);
      into.set(name, files);
    }
  }
  return { packages, refused };
}

/** Whether package.json lists `name` in any dependency field. */
export function isDeclared(pkg: Record<string, unknown>, name: string): boolean {
  return DEP_FIELDS.some((f) => {
    const deps = pkg[f];
    return !!deps && typeof deps === "object" && Object.hasOwn(deps, name);
  });
}

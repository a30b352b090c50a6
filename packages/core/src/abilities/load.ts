import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../config/diagnostic.ts";
import { importFresh, nextGeneration } from "../plugins/import-module.ts";
import { registerSdkModule } from "../plugins/sdk-module.ts";
import { abilityFromModule, parseAbilityYaml, sha256 } from "./parse.ts";
import type { Ability } from "./types.ts";

export interface LoadedAbilities {
  readonly abilities: ReadonlyMap<string, Ability>;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The abilities of `<workspace>/abilities/<name>/ability.yaml` (or `ability.ts` exporting
 * `defineAbility(...)` as its default), checked. A folder whose file is broken gives its
 * diagnostics and is left out; the others load. The ability's `name` must be its folder's.
 */
export async function loadAbilities(dirs: readonly string[]): Promise<LoadedAbilities> {
  const abilities = new Map<string, Ability>();
  const diagnostics: Diagnostic[] = [];
  const gen = nextGeneration();
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const folder of readdirSync(dir).sort()) {
      if (folder.startsWith(".") || folder.startsWith("_")) continue;
      const path = join(dir, folder);
      if (!statSync(path).isDirectory()) continue;
      const found = await loadOne(path, gen);
      if (!found) continue;
      if (!found.ok) {
        diagnostics.push(...found.diagnostics);
        continue;
      }
      const { ability } = found;
      if (ability.name !== folder) {
        diagnostics.push(
          problem(
            ability.source,
            `name "${ability.name}" is not its folder's name "${folder}"`,
            "rename the folder or the ability so they match",
          ),
        );
        continue;
      }
      if (abilities.has(ability.name)) {
        diagnostics.push({
          ...problem(
            ability.source,
            `ability "${ability.name}" is defined already by ${abilities.get(ability.name)!.source}; this one is ignored`,
            "remove one of them",
          ),
          level: "warning",
        });
        continue;
      }
      abilities.set(ability.name, ability);
    }
  }
  return { abilities, diagnostics };
}

async function loadOne(folder: string, gen: number) {
  const yaml = join(folder, "ability.yaml");
  const ts = join(folder, "ability.ts");
  if (existsSync(yaml)) return parseAbilityYaml(readFileSync(yaml, "utf8"), yaml);
  if (!existsSync(ts)) return undefined;
  try {
    // `@openassistant/sdk` in the file is the gateway's own (nothing installed), as for tool files.
    registerSdkModule();
    const mod = await importFresh(ts, gen, folder);
    return abilityFromModule(mod.default, ts, sha256(readFileSync(ts, "utf8")));
  } catch (e) {
    return {
      ok: false as const,
      diagnostics: [
        problem(ts, `cannot be imported: ${e instanceof Error ? e.message : String(e)}`, "fix the error, then save"),
      ],
    };
  }
}

function problem(source: string, message: string, hint: string): Diagnostic {
  return { level: "error", id: `ability:${source}`, source, message, hint, line: 1, column: 1 };
}

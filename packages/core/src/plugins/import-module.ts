import { dirname } from "node:path";

let generation = 0;
const importedRoots = new Set<string>();

/** A new number per load pass; every module imported in that pass gets `?v=<n>`. */
export function nextGeneration(): number {
  return ++generation;
}

/**
 * Imports `file` fresh: the `?v=<generation>` query makes Bun evaluate the entry again, and when this
 * root was imported before, cached modules under `root` (helpers, not node_modules) are dropped from
 * the module registry so nested relative imports are re-evaluated too.
 */
export async function importFresh(file: string, gen: number, root = dirname(file)): Promise<Record<string, unknown>> {
  if (importedRoots.has(root)) purgeModules(root);
  importedRoots.add(root);
  return (await import(`${file}?v=${gen}`)) as Record<string, unknown>;
}

function purgeModules(root: string): void {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(prefix) && !key.includes("/node_modules/")) delete require.cache[key];
  }
}

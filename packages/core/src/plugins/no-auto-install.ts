import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Bun's runtime auto-install fetches any bare import it cannot resolve from the registry when the
 * importing file has no `node_modules` in its ancestry (measured on 1.4.5, even when the process cwd
 * has one). That would let `import "@openassistant/x"` in a tool pull the unrelated npm package.
 * An (empty) `node_modules` directory turns it off for everything below it, so the loader makes sure
 * one exists above every tool and plugin directory before importing.
 */
export function disableRuntimeAutoInstall(dir: string): void {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules"))) return;
    if (dirname(d) === d) break;
  }
  if (existsSync(dir)) mkdirSync(join(dir, "node_modules"), { recursive: true });
}

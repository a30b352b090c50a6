/**
 * Dependency-confusion guard. The `@openassistant` scope on the public npm registry belongs to an
 * unrelated project, and our SDK is served by the loader (sdk-module.ts), so no install we run may
 * resolve any `@openassistant/*` name from a registry:
 * - direct dependencies on `@openassistant/*` in `.openassistant/package.json` are removed;
 * - every `@openassistant/*` name (known ones plus any a workspace plugin mentions, including
 *   peerDependencies, which Bun installs by default and `--omit=peer` / `peer = false` do not stop
 *   from being resolved) is overridden to a local empty stub package (`file:./.oa-stub`).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const GUARDED_SCOPE = "@openassistant/";
export const KNOWN_GUARDED = [
  "@openassistant/sdk",
  "@openassistant/core",
  "@openassistant/gateway",
  "@openassistant/testkit",
];
const STUB_DIR = ".oa-stub";
const DEP_FIELDS = ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"] as const;

type Pkg = Record<string, unknown> & { overrides?: Record<string, string> };

function guardedNamesIn(pkg: Record<string, unknown>): string[] {
  const names = new Set<string>();
  for (const field of DEP_FIELDS) {
    const deps = pkg[field];
    if (deps && typeof deps === "object")
      for (const n of Object.keys(deps)) if (n.startsWith(GUARDED_SCOPE)) names.add(n);
  }
  return [...names];
}

/** Returns the guarded package.json and the names stripped from its own dependency lists. */
export function applyInstallGuard(
  pkg: Pkg,
  memberPackages: ReadonlyArray<Record<string, unknown>>,
): { pkg: Pkg; stripped: string[] } {
  const out: Pkg = structuredClone(pkg);
  const stripped = guardedNamesIn(out);
  for (const field of DEP_FIELDS) {
    const deps = out[field] as Record<string, string> | undefined;
    if (!deps) continue;
    for (const n of Object.keys(deps)) if (n.startsWith(GUARDED_SCOPE)) delete deps[n];
  }
  const names = new Set([...KNOWN_GUARDED, ...stripped, ...memberPackages.flatMap(guardedNamesIn)]);
  const overrides = { ...(out.overrides ?? {}) };
  for (const n of [...names].sort()) overrides[n] = `file:./${STUB_DIR}`;
  out.overrides = overrides;
  return { pkg: out, stripped };
}

/** The empty local package every guarded name is overridden to. */
export function ensureStub(workspace: string): void {
  const dir = join(workspace, STUB_DIR);
  if (existsSync(join(dir, "package.json"))) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify(
      {
        name: "openassistant-registry-guard-stub",
        version: "0.0.0",
        private: true,
        description:
          "Stands in for @openassistant/* so installs never fetch that scope from npm; the gateway serves the SDK.",
      },
      null,
      2,
    ) + "\n",
  );
}

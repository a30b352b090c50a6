import { builtinModules } from "node:module";
import { isValidPackageName, packageNameOf } from "../plugins/bare-imports.ts";

/** What an import specifier of an assistant-written tool loads, or why it may not. */
export type Specifier =
  | { readonly kind: "provided" }
  | { readonly kind: "builtin"; readonly name: string }
  | { readonly kind: "package"; readonly name: string }
  | { readonly kind: "refused"; readonly why: string };

/** Modules the gateway itself provides to tool files. */
const PROVIDED = new Set(["@openassistant/sdk", "zod"]);
/** Builtins by bare name (`fs`, `bun`), and the names that exist only with `node:` (`node:sqlite`). */
const BUILTIN = new Set(builtinModules.filter((m) => !m.includes(":")));
const NODE_BUILTIN = new Set([
  ...BUILTIN,
  ...builtinModules.filter((m) => m.startsWith("node:")).map((m) => m.slice(5)),
]);
/** The `bun:` modules a tool may import (an allow-list: a new Bun module is refused until added). */
const BUN_MODULES = new Set(["bun:sqlite", "bun:jsc", "bun:test"]);
/** Builtins that load or run code the card does not name. */
const LOADING_BUILTINS = new Map([
  ["module", "it loads any file (createRequire, Module._load)"],
  ["vm", "it runs code strings, which can import anything"],
  ["worker_threads", "a Worker loads any file"],
  ["cluster", "it starts copies of the gateway's main module"],
  ["repl", "it evaluates code strings"],
  ["inspector", "it evaluates code strings"],
  ["inspector/promises", "it evaluates code strings"],
  ["wasi", "it runs WebAssembly"],
]);
/** One segment of a path inside a package: no `.`/`..`, no encoding, no backslash. */
const SUBPATH_SEGMENT = /^[A-Za-z0-9_~@+-][A-Za-z0-9._~@+-]*$/;

/**
 * Judges one import specifier by allow-list: `@openassistant/sdk`, `zod`, a Node or Bun builtin that
 * loads nothing else, or an npm package by name with an optional path inside it. Everything else —
 * relative or absolute paths, URLs (`file:`, `data:`, `http:`), `#` imports, a path that walks out of
 * its package — is refused with the reason.
 */
export function judgeSpecifier(spec: string): Specifier {
  if (PROVIDED.has(spec)) return { kind: "provided" };
  if (spec === "bun:ffi") return refused("native code is not allowed in assistant-written tools");
  if (spec.startsWith("bun:"))
    return BUN_MODULES.has(spec)
      ? { kind: "builtin", name: spec }
      : refused(`the bun: modules a tool may import are ${[...BUN_MODULES].join(", ")}`);
  if (spec.startsWith("node:")) return builtin(spec.slice(5), NODE_BUILTIN);
  if (BUILTIN.has(spec)) return builtin(spec, BUILTIN);
  if (spec.startsWith("@openassistant/")) return refused("tools may import only @openassistant/sdk from OpenAssistant");
  if (/^[a-z][a-z0-9+.-]*:/i.test(spec))
    return refused("a URL; only npm packages, node: and bun: modules can be imported");
  if (spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("\\") || spec.startsWith("~"))
    return refused("assistant-written tools are single files; relative and absolute imports are not allowed");
  const name = packageNameOf(spec);
  if (!isValidPackageName(name))
    return refused("not an npm package name; only npm packages, node: and bun: modules can be imported");
  const subpath = spec.slice(name.length);
  if (
    subpath !== "" &&
    !subpath
      .slice(1)
      .split("/")
      .every((s) => SUBPATH_SEGMENT.test(s))
  )
    return refused("a path inside a package may not contain '.', '..', empty or encoded segments");
  return { kind: "package", name };
}

function builtin(name: string, known: ReadonlySet<string>): Specifier {
  if (!known.has(name)) return refused(`"${name}" is not a Node builtin module`);
  const why = LOADING_BUILTINS.get(name);
  return why ? refused(`${why}; tools may not import it`) : { kind: "builtin", name };
}

function refused(why: string): Specifier {
  return { kind: "refused", why };
}

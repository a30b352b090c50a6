import type { Diagnostic } from "../config/diagnostic.ts";
import { describeEntry, type EntryRef } from "../sources/describe.ts";
import { isBuiltinNamespace } from "../tools/names.ts";
import type { Candidate } from "./discovery.ts";

/** The layer of the gateway's own tools (discovery.ts): they always keep their names. */
const BUILTIN = 0;

/** One candidate across load passes: its kind, id and where it comes from. */
export function candidateKey(c: Candidate): string {
  return `${c.kind === "broken" ? c.entryKind : c.kind === "bundled" ? "plugin" : c.kind}:${c.id}:${c.source}`;
}

/**
 * Who gets `tools.<id>` when several sources want it: the candidate of the lowest layer (discovery.ts;
 * the first listed within a layer) owns it, unless the previous load pass gave the id to a source
 * that is still there: that one keeps it, so nothing added or renamed later takes a name over.
 * Every other claimant is refused with an error naming both sources and what to rename. Ids that
 * differ only in letter case are both kept, with a warning.
 */
export function claimNamespaces(
  candidates: readonly Candidate[],
  previousOwners: ReadonlyMap<string, string>,
  diagnostics: Diagnostic[],
): Candidate[] {
  const beats = (c: Candidate, held: Candidate): boolean => {
    if (c.layer === BUILTIN || held.layer === BUILTIN) return c.layer < held.layer;
    const incumbent = previousOwners.get(c.id);
    if (incumbent === candidateKey(held)) return false;
    return incumbent === candidateKey(c) || c.layer < held.layer;
  };
  const owners = new Map<string, Candidate>();
  for (const c of candidates) {
    if (isBuiltinNamespace(c.id) && c.layer !== BUILTIN) continue;
    const held = owners.get(c.id);
    if (!held || beats(c, held)) owners.set(c.id, c);
  }
  const folded = new Map<string, Candidate>();
  const kept: Candidate[] = [];
  for (const c of candidates) {
    const owner = owners.get(c.id);
    if (owner !== c) {
      diagnostics.push(refusal(c, owner, owner !== undefined && previousOwners.get(c.id) === candidateKey(owner)));
      continue;
    }
    kept.push(c);
    const similar = folded.get(c.id.toLowerCase());
    if (similar)
      diagnostics.push({
        level: "warning",
        id: c.id,
        source: c.source,
        message: `"${c.id}" (${c.source}) and "${similar.id}" (${similar.source}) differ only in letter case; both are loaded`,
        hint: "Rename one of them: the model easily confuses the two, and on case-insensitive file systems (macOS, Windows) the two files cannot coexist.",
      });
    else folded.set(c.id.toLowerCase(), c);
  }
  return kept;
}

function refusal(c: Candidate, owner: Candidate | undefined, incumbent: boolean): Diagnostic {
  if (!owner)
    return {
      level: "error",
      id: c.id,
      source: c.source,
      message: `${describeSource(c)} is not loaded: tools.${c.id} is reserved for the gateway's built-in tools ($search, $describe)`,
      hint: `${renameHint(c)}; names starting with "$" belong to the gateway.`,
    };
  const why = incumbent ? "it had the name first" : 'it comes first (docs/plugins.md, "Who owns a name")';
  return {
    level: "error",
    id: c.id,
    source: c.source,
    message: `${describeSource(c)} is not loaded: tools.${c.id} already belongs to ${describeSource(owner)} (${why}); a source never takes over another's name`,
    hint: `${renameHint(c)} so each source has its own name; ${describeSource(owner)} keeps tools.${c.id}.`,
  };
}

export { describeEntry, type EntryRef };

/** A source as a person finds it: the file, the plugin folder, the config key. */
export function describeSource(c: Candidate): string {
  return describeEntry(entryRefOf(c));
}

function entryRefOf(c: Candidate): EntryRef {
  const kind = c.kind === "tool" ? "tool" : c.kind === "broken" ? c.entryKind : "plugin";
  const configPath = c.kind === "bundled" ? c.bundled.configPath : undefined;
  return { kind, id: c.id, origin: c.origin, source: c.source, ...(configPath ? { configPath } : {}) };
}

function renameHint(c: Candidate): string {
  switch (c.kind) {
    case "tool":
      return `Rename ${c.file} (its file name is its name)`;
    case "plugin":
    case "broken":
      return `Give the plugin in ${c.source} another "id" in its openassistant.json`;
    case "bundled": {
      const at = c.bundled.configPath;
      return at ? `Rename ${at.join(".")} in the config` : `Rename the built-in ${c.id}`;
    }
  }
}

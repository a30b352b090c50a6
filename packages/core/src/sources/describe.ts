import type { LoadEntry } from "./kind.ts";
import { SOURCE_KINDS } from "./kinds.ts";

/** What `describeEntry` needs of a loaded entry or a candidate. */
export type EntryRef = Pick<LoadEntry, "kind" | "id" | "origin" | "source" | "configPath">;

/** A loaded entry (a namespace's owner) as a person finds it. */
export function describeEntry(e: EntryRef): string {
  if (e.kind === "tool") return `tool file ${e.source}`;
  if (e.origin !== "bundled") return `${e.origin === "npm" ? "npm " : ""}plugin "${e.id}" (${e.source})`;
  const at = e.configPath;
  if (!at) return `the built-in tools.${e.id}`;
  const label = SOURCE_KINDS.find((k) => k.key === at[0])?.label ?? `config.${at[0]} source`;
  return `${label} ${at.join(".")} (${e.source})`;
}

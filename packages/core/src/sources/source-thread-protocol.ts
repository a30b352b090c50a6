import type { DeclarationInput } from "../codemode/declarations-job.ts";
import type { ListingInput } from "./mcp/listing.ts";
import type { SpecInput } from "./openapi/parse-spec.ts";

/** What the source worker is asked to do (source-worker.ts). */
export type SourceJob =
  | { readonly kind: "openapi"; readonly input: SpecInput }
  | { readonly kind: "mcp-listing"; readonly input: ListingInput }
  | { readonly kind: "declaration"; readonly input: DeclarationInput };

/** Gateway → worker. `more` asks for the next chunk of a job's items; `release` drops them. */
export type ThreadRequest =
  | { readonly t: "job"; readonly id: number; readonly job: SourceJob }
  | { readonly t: "more"; readonly id: number }
  | { readonly t: "release"; readonly id: number };

/** Worker → gateway, one answer per request, under the request's id. */
export type ThreadReply =
  | { readonly t: "head"; readonly id: number; readonly head: unknown; readonly count: number }
  | { readonly t: "items"; readonly id: number; readonly items: unknown[]; readonly done: boolean }
  | { readonly t: "error"; readonly id: number; readonly message: string; readonly hint?: string };

/** What a job gives back: a small head, and items sent to the gateway in chunks. */
export interface JobResult {
  readonly head: unknown;
  readonly items: readonly unknown[];
}

/**
 * Characters of JSON per chunk of items. Receiving a chunk (structured clone) is work on the
 * gateway's thread proportional to its size: 64 K characters take well under a millisecond; one
 * item larger than that (a tool at the schema limits has at most 64,000 characters of schema)
 * goes alone.
 */
export const CHUNK_CHARS = 64 * 1024;

/** The items from `at` that make the next chunk: as many as fit in `CHUNK_CHARS` of JSON, at least one. */
export function nextChunk(items: readonly unknown[], at: number, limit = CHUNK_CHARS): unknown[] {
  const chunk: unknown[] = [];
  let chars = 0;
  for (let i = at; i < items.length; i++) {
    const size = JSON.stringify(items[i])?.length ?? 4;
    if (chunk.length > 0 && chars + size > limit) break;
    chunk.push(items[i]);
    chars += size;
  }
  return chunk;
}

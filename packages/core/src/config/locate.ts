import { readFileSync } from "node:fs";
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { offsetToPosition, type Position } from "./positions.ts";

export interface ConfigLocation extends Position {
  readonly file: string;
}

/**
 * Where `path` (e.g. ["config", "calendar", "timezone"]) is written: the highest-priority config file
 * (last of `sources`) that defines it, at its key. Falls back to the longest defined prefix of the
 * path. Undefined when no file defines even the first segment.
 */
export function locateConfigKey(
  sources: readonly string[],
  path: ReadonlyArray<string | number>,
): ConfigLocation | undefined {
  for (let n = path.length; n >= 1; n--) {
    for (const file of [...sources].reverse()) {
      let text: string;
      try {
        text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
      } catch {
        continue;
      }
      const tree = parseTree(text, [], { allowTrailingComma: true });
      const node = tree && findNodeAtLocation(tree, path.slice(0, n) as Array<string | number>);
      if (!node) continue;
      const anchor = node.parent?.type === "property" ? node.parent : node;
      return { file, ...offsetToPosition(text, anchor.offset) };
    }
  }
  return undefined;
}

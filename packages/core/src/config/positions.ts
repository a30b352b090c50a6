import { findNodeAtLocation, type Node } from "jsonc-parser";

export interface Position {
  line: number;
  column: number;
}

/** 1-based line and column of a character offset. */
export function offsetToPosition(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Position of a JSON path in a parsed tree: the property key when the path names a property,
 * else the deepest existing ancestor (a missing required key points at its parent object).
 */
export function positionOfPath(text: string, tree: Node | undefined, path: ReadonlyArray<string | number>): Position {
  if (!tree) return { line: 1, column: 1 };
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(tree, path.slice(0, n) as Array<string | number>);
    if (!node) continue;
    const anchor = node.parent?.type === "property" ? node.parent : node;
    return offsetToPosition(text, anchor.offset);
  }
  return { line: 1, column: 1 };
}

/** `plugins[2]`, `config.calendar.timezone`, `(root)`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return "(root)";
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else {
      const s = String(seg);
      out += /^[A-Za-z_$][\w$]*$/.test(s) ? (out ? `.${s}` : s) : `[${JSON.stringify(s)}]`;
    }
  }
  return out;
}

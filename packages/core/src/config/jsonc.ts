import {
  getNodePath,
  parse,
  parseTree,
  printParseErrorCode,
  stripComments,
  type Node,
  type ParseError,
} from "jsonc-parser";
import { ConfigError } from "./errors.ts";
import { formatPath, offsetToPosition } from "./positions.ts";

export interface ParsedJsonc {
  readonly value: unknown;
  readonly tree: Node | undefined;
  readonly text: string;
}

const HINTS: Record<string, string> = {
  CommaExpected: "add a comma between entries",
  PropertyNameExpected: "property names must be double-quoted strings",
  ValueExpected: "add a value (string, number, true/false, null, object or array)",
  ColonExpected: 'write "key": value',
  CloseBraceExpected: "close the object with }",
  CloseBracketExpected: "close the array with ]",
  UnexpectedEndOfString: "close the string with a double quote",
  InvalidSymbol: "JSON strings use double quotes; remove the stray character",
};

/**
 * Parses JSON with comments and trailing commas; the first syntax error throws with its line and
 * column. A leading byte order mark is ignored (editors on Windows add one); a file that is empty or
 * holds only comments is `{}`. Keys named `__proto__` are rejected: parsers disagree on whether they
 * set a prototype or a property, so the setting would silently vanish.
 */
export function parseJsonc(textIn: string, file: string): ParsedJsonc {
  const text = textIn.charCodeAt(0) === 0xfeff ? textIn.slice(1) : textIn;
  if (stripComments(text).trim() === "") return { value: {}, tree: undefined, text };
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const { line, column } = offsetToPosition(text, first.offset);
    const code = printParseErrorCode(first.error);
    throw new ConfigError(
      file,
      line,
      column,
      "(syntax)",
      `JSON syntax error (${code})`,
      `Fix: ${HINTS[code] ?? "check the JSON syntax near this position"}.`,
    );
  }
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const proto = tree && findKey(tree, (k) => k === "__proto__");
  if (proto) {
    const { line, column } = offsetToPosition(text, proto.offset);
    const valueNode = proto.parent?.children?.[1];
    const keyPath = valueNode ? formatPath(getNodePath(valueNode)) : "__proto__";
    throw new ConfigError(
      file,
      line,
      column,
      keyPath,
      'the key "__proto__" is not allowed',
      "Remove it; no setting or plugin id has that name.",
    );
  }
  return { value, tree, text };
}

/** The first property key node (in file order) for which `test` holds. */
function findKey(node: Node, test: (key: string) => boolean): Node | undefined {
  if (node.type === "property") {
    const key = node.children?.[0];
    if (key && typeof key.value === "string" && test(key.value)) return key;
  }
  for (const child of node.children ?? []) {
    const hit = findKey(child, test);
    if (hit) return hit;
  }
  return undefined;
}

/** Every key written twice in the same object (JSON keeps the last one), as [key path, position] of the repeat. */
export function duplicateKeys(parsed: ParsedJsonc): Array<{ path: string; line: number; column: number }> {
  const out: Array<{ path: string; line: number; column: number }> = [];
  const walk = (node: Node, path: string) => {
    if (node.type === "object") {
      const seen = new Set<string>();
      for (const prop of node.children ?? []) {
        const key = prop.children?.[0];
        if (!key || typeof key.value !== "string") continue;
        const keyPath = path ? `${path}.${key.value}` : key.value;
        if (seen.has(key.value)) out.push({ path: keyPath, ...offsetToPosition(parsed.text, key.offset) });
        seen.add(key.value);
        if (prop.children?.[1]) walk(prop.children[1], keyPath);
      }
    } else if (node.type === "array") (node.children ?? []).forEach((c, i) => walk(c, `${path}[${i}]`));
  };
  if (parsed.tree) walk(parsed.tree, "");
  return out;
}

import { parse, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import { ConfigError } from "./errors.ts";
import { offsetToPosition } from "./positions.ts";

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

/** Parses JSON with comments and trailing commas; the first syntax error throws with its line and column. */
export function parseJsonc(text: string, file: string): ParsedJsonc {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const { line, column } = offsetToPosition(text, first.offset);
    const code = printParseErrorCode(first.error);
    throw new ConfigError(file, line, column, "(syntax)", `JSON syntax error (${code})`, `Fix: ${HINTS[code] ?? "check the JSON syntax near this position"}.`);
  }
  if (value === undefined && text.trim() === "") return { value: {}, tree: undefined, text };
  return { value, tree: parseTree(text, [], { allowTrailingComma: true }), text };
}

import { RE2JS } from "re2js";

/**
 * RE2's time is linear in the input for a given pattern, but scales with the compiled program too:
 * a pattern may be at most this many instructions, and one check may cost at most
 * `MATCH_STEPS` (input length × program size, ~40 ms here), so that a long value against a large
 * pattern is refused instead of holding the thread.
 */
export const PROGRAM_LIMIT = 1_000;
export const MATCH_STEPS = 2_000_000;

/**
 * A JSON Schema `pattern` (written by whoever wrote the MCP server or the spec) matched in linear
 * time by RE2 (re2js, a pure-JS port): a pattern such as `^(a+)+$` cannot make the gateway's thread
 * backtrack for seconds on a crafted input, as the built-in RegExp would. Shaped like the part of a
 * RegExp zod's regex check uses (`lastIndex`, `test`, `toString`).
 */
export class LinearRegExp {
  lastIndex = 0;
  readonly flags = "";
  readonly global = false;
  readonly sticky = false;

  constructor(
    /** The pattern as the schema wrote it (ECMA-262 syntax). */
    readonly source: string,
    private readonly re: RE2JS,
  ) {}

  /** Whether `input` matches; false, never a long wait, when it is too long for this pattern (see MATCH_STEPS). */
  test(input: string): boolean {
    const text = String(input);
    if (text.length * this.re.programSize() > MATCH_STEPS) return false;
    return this.re.matcher(text).find();
  }

  toString(): string {
    return `/${this.source}/`;
  }
}

/**
 * Compiles an ECMA-262 pattern with RE2. `\uXXXX` escapes are rewritten to RE2's `\x{XXXX}`;
 * whatever RE2 has no linear-time form for (backreferences, lookahead and lookbehind) is refused
 * with RE2's reason, and the caller leaves that pattern unchecked (and says so).
 */
export function compileLinear(pattern: string): { regex: LinearRegExp } | { reason: string } {
  try {
    const re = RE2JS.compile(toRe2Syntax(pattern));
    if (re.programSize() > PROGRAM_LIMIT)
      return { reason: `it compiles to ${re.programSize()} instructions (limit ${PROGRAM_LIMIT})` };
    return { regex: new LinearRegExp(pattern, re) };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/** ECMA-262 `\uXXXX` → RE2 `\x{XXXX}`; every other escape pair is copied as it is. */
function toRe2Syntax(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const hex = /^u([0-9A-Fa-f]{4})/.exec(pattern.slice(i + 1, i + 6));
    if (hex) {
      out += `\\x{${hex[1]}}`;
      i += 5;
    } else {
      out += pattern.slice(i, i + 2);
      i++;
    }
  }
  return out;
}

/**
 * The first thing done with a model's snippet, before any parser, transpiler or checker sees it:
 * a small, self-contained lexer that refuses anything able to load or resolve a module on the host.
 *
 * Bun's transpiler evaluates macros at transpile time (`import { x } from "bun" with { type: "macro" }`
 * runs `x` on the host), so a snippet that reaches it with an import declaration is host code.
 * This check makes that impossible independently of the typecheck and of the transpiler's own
 * configuration (which disables macros as a second layer, see transpile.ts):
 *
 * - `import`, `export` and `require` are refused as identifiers anywhere in code (static and dynamic
 *   imports, `import.meta`, import attributes, `export` declarations, CommonJS), also when spelled
 *   with unicode escapes (`\u0069mport`), and inside regular-expression literals too;
 * - a `}` that would close the wrapper function (the snippet is a function BODY; a static import can
 *   only appear at the top level) is refused, and so are unbalanced brackets and unterminated
 *   strings, templates, comments and regular expressions;
 * - comment directives that configure module resolution (`/// <reference …>`, `@jsxImportSource`)
 *   are refused;
 * - where `/` could be read either as division or as the start of a regular expression and the
 *   reading cannot be settled from the previous token, the snippet is refused (add parentheses):
 *   a lexer that guesses wrong could hide code inside what it took for a string.
 *
 * It fails closed: anything it cannot lex is refused with a message naming the line.
 */

export interface PrecheckRefusal {
  /**
   * module: could load or resolve a module; escape: closes the wrapper function; ambiguous: a
   * construct this lexer will not guess at; syntax: not valid code (the parsers say it better,
   * and nothing that is not valid runs).
   */
  readonly kind: "module" | "escape" | "ambiguous" | "syntax";
  /** 1-based line in the model's code. */
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

const FORBIDDEN = new Map<string, string>(
  Object.entries({
    import:
      "`import` is not allowed: snippets cannot load modules (no import declarations, `import()`, `import.meta` or import attributes). Call tools through the global `tools` object.",
    export: "`export` is not allowed: the snippet is the body of a function, not a module. Return the value instead.",
    require: "`require` is not available: snippets cannot load modules. Call tools through the global `tools` object.",
  }),
);

/** Keywords after which an expression (so a regular expression) starts. */
const EXPRESSION_KEYWORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "extends",
]);
/**
 * Words that are keywords in some positions and plain identifiers in others (`of`, `yield`, `await`),
 * so `/` after them is refused rather than guessed.
 */
const AMBIGUOUS_WORDS = new Set(["of", "yield", "await"]);
/** `while (…)` ends a loop head or a do-while; `await (…)` is an operand or a `for await` head. */
const AMBIGUOUS_HEADS = new Set(["while", "await"]);
const NUMBER =
  /(?:0[xX][0-9a-fA-F_]*|0[oO][0-7_]*|0[bB][01_]*|(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?)n?/y;
/** Keywords whose parenthesised head is followed by a statement (so `/` after its `)` starts a regex). */
const STATEMENT_HEADS = new Set(["if", "for", "with"]);
/** Values / keywords after which `/` is division. */
const OPERAND_KEYWORDS = new Set(["this", "super", "null", "true", "false", "undefined"]);

/** The other punctuators: the longest run of operator characters that matters to this lexer (sticky: read at lastIndex). */
const PUNCTUATOR =
  /(?:\?\.(?![0-9])|=>|\+\+|--|\.\.\.|[!=]=?=?|<<=?|>>>?=?|[<>]=?|&&=?|\|\|=?|\?\?=?|\*\*=?|[-+*%&|^]=?|[.,;:?~@#])/y;

const DIRECTIVE = /^\/\/\/\s*<\s*(reference|amd-module|amd-dependency)\b|@jsx(ImportSource|Runtime|Frag)?\b/;

type Prev =
  | { kind: "none" }
  | { kind: "punct"; value: string; operandBefore: boolean }
  | { kind: "word"; value: string; afterDot: boolean }
  | { kind: "operand" }
  | { kind: "close"; value: ")" | "]" | "}"; opener: string };

interface Open {
  readonly char: "(" | "[" | "{" | "${";
  /** For `(`: the keyword before it (if/for/while/with…); for `{`: unused. */
  readonly head: string;
  readonly column: number;
}

const isLineTerminator = (c: string) => c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029";

// Character classes by table for ASCII (nearly every character of a snippet), by Unicode property
// otherwise: a regular expression per character made this lexer most of a run's transpile time.
const asciiTable = (re: RegExp) =>
  Uint8Array.from({ length: 128 }, (_, k) => (re.test(String.fromCharCode(k)) ? 1 : 0));
const ID_START = /[\p{ID_Start}$_]/u;
const ID_PART = /[\p{ID_Continue}$_\u200c\u200d]/u;
const ASCII_ID_START = asciiTable(ID_START);
const ASCII_ID_PART = asciiTable(ID_PART);
const ASCII_SPACE = asciiTable(/\s/u);
/** `c`: one code point (one or two UTF-16 units). */
export const isIdStart = (c: string) => {
  const k = c.charCodeAt(0);
  return k < 128 ? ASCII_ID_START[k] === 1 : ID_START.test(c);
};
export const isIdPart = (c: string) => {
  const k = c.charCodeAt(0);
  return k < 128 ? ASCII_ID_PART[k] === 1 : ID_PART.test(c);
};
/** JavaScript white space or a line terminator. */
export const isSpace = (c: string) => {
  const k = c.charCodeAt(0);
  if (k < 128) return ASCII_SPACE[k] === 1;
  return c === "\u00a0" || c === "\ufeff" || isLineTerminator(c) || /\s/u.test(c);
};
const isDigit = (c: string | undefined) => c !== undefined && c.length === 1 && c >= "0" && c <= "9";

/** Returns undefined when the snippet may go on to the typecheck / transpiler, else why not. */
export function precheckSnippet(code: string): PrecheckRefusal | undefined {
  let i = 0;
  const stack: Open[] = [];
  let prev: Prev = { kind: "none" };
  const at = (pos: number, message: string, kind: PrecheckRefusal["kind"] = "syntax"): PrecheckRefusal => {
    const before = code.slice(0, pos);
    const l = before.split(/\r\n|[\n\r\u2028\u2029]/).length;
    const lastBreak = Math.max(
      before.lastIndexOf("\n"),
      before.lastIndexOf("\r"),
      before.lastIndexOf("\u2028"),
      before.lastIndexOf("\u2029"),
    );
    return { kind, line: l, column: pos - lastBreak, message };
  };
  const operandBefore = () =>
    prev.kind === "operand" ||
    prev.kind === "close" ||
    (prev.kind === "word" && (prev.afterDot || !EXPRESSION_KEYWORDS.has(prev.value)));

  const readWord = (start: number): { word: string; end: number } | PrecheckRefusal => {
    // Nearly every word is plain ASCII: find its end, then take it in one slice.
    let j = start;
    for (let k = code.charCodeAt(j); k < 128 && (j === start ? ASCII_ID_START : ASCII_ID_PART)[k] === 1; )
      k = code.charCodeAt(++j);
    const next = code.charCodeAt(j);
    if (j > start && (Number.isNaN(next) || (next < 128 && next !== 92))) return { word: code.slice(start, j), end: j };
    j = start;
    let word = "";
    while (j < code.length) {
      const c = code[j]!;
      if (c === "\\") {
        const m = /^\\u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/.exec(code.slice(j, j + 10));
        const cp = m ? parseInt(m[1] ?? m[2]!, 16) : -1;
        if (!m || cp > 0x10ffff) return at(j, "a backslash in an identifier must start a unicode escape (\\uXXXX)");
        word += String.fromCodePoint(cp);
        j += m![0].length;
        continue;
      }
      const k = code.charCodeAt(j);
      if (k < 128) {
        if ((j === start ? ASCII_ID_START : ASCII_ID_PART)[k] !== 1) break;
        word += c;
        j++;
        continue;
      }
      const ch = String.fromCodePoint(code.codePointAt(j)!);
      if (j === start ? isIdStart(ch) : isIdPart(ch)) {
        word += ch;
        j += ch.length;
        continue;
      }
      break;
    }
    return { word, end: j };
  };

  /** Scans a quoted string starting at the quote; returns the index after the closing quote. */
  const readString = (start: number, quote: string): number | PrecheckRefusal => {
    let j = start + 1;
    while (j < code.length) {
      const c = code[j]!;
      if (c === "\\") {
        j += code[j + 1] === "\r" && code[j + 2] === "\n" ? 3 : 2;
        continue;
      }
      if (c === quote) return j + 1;
      if (c === "\n" || c === "\r") return at(start, "unterminated string literal");
      j++;
    }
    return at(start, "unterminated string literal");
  };

  /** Scans template text from `start` (just after ` or the } closing a substitution) to its end or to `${`. */
  const readTemplateText = (start: number): { end: number; substitution: boolean } | PrecheckRefusal => {
    let j = start;
    while (j < code.length) {
      const c = code[j]!;
      if (c === "\\") {
        j += 2;
        continue;
      }
      if (c === "`") return { end: j + 1, substitution: false };
      if (c === "$" && code[j + 1] === "{") return { end: j + 2, substitution: true };
      j++;
    }
    return at(start, "unterminated template literal");
  };

  const readRegex = (start: number): number | PrecheckRefusal => {
    let j = start + 1;
    let inClass = false;
    while (j < code.length) {
      const c = code[j]!;
      if (isLineTerminator(c)) return at(start, "unterminated regular expression");
      if (c === "\\") {
        if (j + 1 < code.length && isLineTerminator(code[j + 1]!)) return at(start, "unterminated regular expression");
        j += 2;
        continue;
      }
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) {
        j++;
        while (j < code.length && isIdPart(code[j]!)) j++;
        return j;
      }
      j++;
    }
    return at(start, "unterminated regular expression");
  };

  while (i < code.length) {
    const c = code[i]!;
    // whitespace and line terminators
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === "/" && code[i + 1] === "/") {
      let j = i + 2;
      while (j < code.length && !isLineTerminator(code[j]!)) j++;
      const text = code.slice(i, j);
      if (DIRECTIVE.test(text))
        return at(i, `comment directives (${text.trim().slice(0, 40)}) are not allowed in snippets.`, "module");
      i = j;
      continue;
    }
    if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      if (end < 0) return at(i, "unterminated /* comment");
      const text = code.slice(i, end + 2);
      if (/@jsx(ImportSource|Runtime|Frag)?\b/.test(text))
        return at(i, "JSX pragma comments are not allowed in snippets.", "module");
      i = end + 2;
      continue;
    }
    // Annex B HTML-like comments: some engines treat them as comments, so refuse rather than guess.
    if (c === "<" && code.startsWith("<!--", i))
      return at(i, "`<!--` is not allowed in snippets (write `< !--` if you mean a comparison).", "ambiguous");
    if (c === "-" && code.startsWith("-->", i) && !operandBefore())
      return at(
        i,
        "`-->` is not allowed here in snippets (write `-- >` if you mean a decrement and comparison).",
        "ambiguous",
      );

    if (c === '"' || c === "'") {
      const end = readString(i, c);
      if (typeof end !== "number") return end;
      i = end;
      prev = { kind: "operand" };
      continue;
    }
    if (c === "`") {
      const t = readTemplateText(i + 1);
      if ("message" in t) return t;
      if (t.substitution) stack.push({ char: "${", head: "", column: i });
      else prev = { kind: "operand" };
      i = t.end;
      if (t.substitution) prev = { kind: "punct", value: "${", operandBefore: false };
      continue;
    }
    if (c === "\\" || isIdStart(code.charCodeAt(i) < 128 ? c : String.fromCodePoint(code.codePointAt(i)!))) {
      const w = readWord(i);
      if ("message" in w) return w;
      if (w.end === i) return at(i, `unexpected character ${JSON.stringify(c)}`);
      const afterDot: boolean = prev.kind === "punct" && (prev.value === "." || prev.value === "?.");
      const reason = FORBIDDEN.get(w.word);
      // `x.import` / `{ import: 1 }` never load anything, but refusing them too keeps this check simple.
      if (reason) return at(i, reason, "module");
      prev = OPERAND_KEYWORDS.has(w.word) ? { kind: "operand" } : { kind: "word", value: w.word, afterDot };
      i = w.end;
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(code[i + 1]))) {
      // Strict on purpose: whatever follows a number is lexed as its own token (so `1import` is seen).
      NUMBER.lastIndex = i;
      i += NUMBER.exec(code)![0].length;
      prev = { kind: "operand" };
      continue;
    }
    if (c === "/") {
      const mode = slashMode(prev);
      if (mode === "ambiguous")
        return at(
          i,
          "this `/` could be a division or the start of a regular expression; wrap the expression in parentheses (or put the regular expression in a variable on its own line).",
          "ambiguous",
        );
      if (mode === "regex") {
        const end = readRegex(i);
        if (typeof end !== "number") return end;
        const body = code.slice(i, end);
        const word = /(?<![\p{ID_Continue}$])(import|export|require)(?![\p{ID_Continue}$])/u.exec(body);
        if (word)
          return at(
            i + word.index,
            `${FORBIDDEN.get(word[1]!)} (This also applies inside regular expressions: write [i]mport.)`,
            "module",
          );
        i = end;
        prev = { kind: "operand" };
        continue;
      }
      i += code[i + 1] === "=" ? 2 : 1;
      prev = { kind: "punct", value: "/", operandBefore: true };
      continue;
    }
    if (c === "(" || c === "[" || c === "{") {
      const head = prev.kind === "word" && !prev.afterDot ? prev.value : "";
      stack.push({ char: c, head, column: i });
      prev = { kind: "punct", value: c, operandBefore: false };
      i++;
      continue;
    }
    if (c === ")" || c === "]" || c === "}") {
      const open = stack.pop();
      if (!open) {
        return at(
          i,
          c === "}"
            ? "unbalanced braces: this `}` closes the snippet's function early. Your code is the body of one async function; keep its braces balanced."
            : `unbalanced brackets: this \`${c}\` has no matching opener.`,
          c === "}" ? "escape" : "syntax",
        );
      }
      if (open.char === "${") {
        if (c !== "}") return at(i, `unbalanced brackets: \`${c}\` inside a template substitution \`\${…}\`.`);
        const t = readTemplateText(i + 1);
        if ("message" in t) return t;
        if (t.substitution) {
          stack.push(open);
          prev = { kind: "punct", value: "${", operandBefore: false };
        } else prev = { kind: "operand" };
        i = t.end;
        continue;
      }
      const expected = open.char === "(" ? ")" : open.char === "[" ? "]" : "}";
      if (c !== expected) return at(i, `unbalanced brackets: expected \`${expected}\` but found \`${c}\`.`);
      prev = { kind: "close", value: c, opener: open.head };
      i++;
      continue;
    }
    PUNCTUATOR.lastIndex = i;
    const op = PUNCTUATOR.exec(code);
    if (!op) return at(i, `unexpected character ${JSON.stringify(c)}`);
    prev = { kind: "punct", value: op[0], operandBefore: operandBefore() };
    i += op[0].length;
  }
  if (stack.length > 0) {
    const open = stack[stack.length - 1]!;
    return at(
      open.char === "${" ? code.length : open.column,
      open.char === "${" ? "unterminated template literal" : `unbalanced brackets: \`${open.char}\` is never closed.`,
    );
  }
  return undefined;
}

/** How to read a `/` that is not a comment, from the token before it. */
function slashMode(prev: Prev): "regex" | "division" | "ambiguous" {
  switch (prev.kind) {
    case "none":
      return "regex";
    case "operand":
      return "division";
    case "word":
      if (prev.afterDot) return "division";
      if (AMBIGUOUS_WORDS.has(prev.value)) return "ambiguous";
      return EXPRESSION_KEYWORDS.has(prev.value) ? "regex" : "division";
    case "close":
      if (prev.value === "]") return "division";
      if (prev.value === ")")
        return STATEMENT_HEADS.has(prev.opener) ? "regex" : AMBIGUOUS_HEADS.has(prev.opener) ? "ambiguous" : "division";
      return "ambiguous"; // `}`: end of a block (regex) or of an object / function expression (division)
    case "punct":
      if (prev.value === "++" || prev.value === "--") return "ambiguous";
      // TypeScript's non-null assertion `x!` is an operand; a prefix `!` starts an expression.
      if (prev.value === "!" && prev.operandBefore) return "division";
      return "regex";
  }
}

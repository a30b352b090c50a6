import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isIdPart, isIdStart, isSpace, precheckSnippet } from "./precheck.ts";
import { SNIPPET_TRANSPILER_OPTIONS } from "./transpile.ts";

const refused = (code: string) => precheckSnippet(code);
const marker = () => {
  const dir = mkdtempSync(join(tmpdir(), "oa-precheck-"));
  return { dir, file: join(dir, "PWNED"), done: () => rmSync(dir, { recursive: true, force: true }) };
};

/** Each class: several spellings a model (or an attacker) could use. */
const MODULE_LOADING: Record<string, string[]> = {
  "static import / export (needs escaping the wrapper)": [
    'import fs from "node:fs";\nreturn fs;',
    'import { spawnSync } from "bun" with { type: "macro" };\nspawnSync(["id"]);',
    'import { spawnSync } from "bun" assert { type: "macro" };',
    'import * as m from "macro:bun";',
    'import type { X } from "y";',
    'import "side-effect";',
    "export const a = 1;",
    "export default 1;",
    'export * from "bun";',
    "}\nexport {};\nasync function g() {",
  ],
  "escaping the wrapper function": [
    '}\nimport { spawnSync } from "bun" with { type: "macro" };\nspawnSync(["touch", "/tmp/x"]);\nasync function g() {',
    "return 1; }\nconst leaked = 1;\n{",
    "})\n(",
    "}}}}",
    "const o = { a: 1 }}; {",
  ],
  "dynamic import and import.meta": [
    'const fs = await import("node:fs");',
    'const m = await import ("bun");',
    'await import(/* c */ "bun");',
    "const p = import.meta.path;",
    "const d = import\n.meta.dir;",
    'const f = (s: string) => import(s);\nawait f("bun");',
  ],
  "require and CommonJS": [
    'const fs = require("fs");',
    'const r = globalThis["require"] ?? require;',
    "require.resolve('x')",
    "module.require?.('x'); require",
  ],
  "unicode-escaped keywords": [
    '\\u0069mport("bun");',
    '\\u{69}mport("bun")',
    'const x = \\u0072equire("fs");',
    "\\u0065xport const a = 1;",
  ],
  "hidden from a naive lexer": [
    '// comment\u2028import("bun");',
    '// comment\u2029import("bun");',
    '// comment\rimport("bun");',
    "/* unterminated comment\nimport('bun')",
    '"unterminated\nimport("bun")',
    "`${`${import.meta.url}`}`",
    'const s = `${"}"}`; import("bun")',
    "const r = /import/;",
    'const r = /[/]"/; import("bun"); const q = "x";',
    '1import("bun")',
    '0x1import("bun")',
  ],
  "module-resolution directives": [
    '/// <reference path="/etc/passwd" />\nreturn 1;',
    "/** @jsxImportSource bun */\nreturn 1;",
    "// @jsx h\nreturn 1;",
  ],
  "ambiguous slashes a lexer could misread": [
    'let of = 4; const x = of / 1; const y = "/"; import("bun"); const z = "";',
    'const f = function () {} / 1; const y = "/"; const z = "";',
    'do {} while (x) /"/.test(y);',
    "const o = {} / 2;",
    "i++ / 2",
  ],
  "HTML-like comments": ["<!-- x\nreturn 1;", "x = 1;\n--> comment"],
  "malformed escapes": ["\\u{110000}mport()", "\\u{FFFFFF}", "\\x69mport('bun')", "a\\"],
  "unbalanced or unterminated": [
    "const a = (1;",
    "const a = [1;",
    "const a = `x",
    "const a = 'x",
    "const a = /x",
    "const a = (1]; ",
  ],
};

describe("precheckSnippet: refuses whatever could load or resolve a module on the host", () => {
  for (const [cls, payloads] of Object.entries(MODULE_LOADING)) {
    test(cls, () => {
      for (const code of payloads) {
        const r = refused(code);
        if (!r) throw new Error(`not refused: ${JSON.stringify(code)}`);
        expect(r.line).toBeGreaterThanOrEqual(1);
        expect(r.message.length).toBeGreaterThan(10);
      }
    });
  }

  test("the refusal names the line and says what to do", () => {
    expect(refused('const a = 1;\nconst fs = await import("node:fs");')).toEqual({
      kind: "module",
      line: 2,
      column: 18,
      message:
        "`import` is not allowed: snippets cannot load modules (no import declarations, `import()`, `import.meta` or import attributes). Call tools through the global `tools` object.",
    });
    expect(refused("return 1;\n}\nimport x from 'y';\n{")?.message).toStartWith(
      "unbalanced braces: this `}` closes the snippet's function early",
    );
    expect(refused("const a = 1;\nconst b = {} / 2;")).toMatchObject({
      line: 2,
      message: expect.stringContaining("wrap the expression in parentheses"),
    });
  });
});

test("the lexer's character classes (ASCII by table) agree with the Unicode properties for every code point", () => {
  const mismatches: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    const space =
      c === "\u00a0" || c === "\ufeff" || c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029" || /\s/u.test(c);
    if (isIdStart(c) !== /[\p{ID_Start}$_]/u.test(c)) mismatches.push(`start U+${cp.toString(16)}`);
    if (isIdPart(c) !== /[\p{ID_Continue}$_\u200c\u200d]/u.test(c)) mismatches.push(`part U+${cp.toString(16)}`);
    if (isSpace(c) !== space) mismatches.push(`space U+${cp.toString(16)}`);
  }
  expect(mismatches).toEqual([]);
});

describe("precheckSnippet: ordinary snippets pass", () => {
  const ORDINARY = [
    'const w = await tools.weather({ location: "Berlin" });\nreturn w;',
    "return \"import x from 'y'\";",
    "const msg = 'please export the report and import it';\nawait tools.chat.send({ text: msg });",
    "const s = `a ${1 + 1} b ${`nested ${'}'}`} c`;\nreturn s;",
    "const re = /^\\d+\\/[a-z]+$/i;\nreturn re.test('12/ab');",
    "if (!/^\\d+$/.test('12')) throw new Error('x');",
    "const half = (await tools.count({})) as number / 2;\nreturn half;",
    "const m = new Map<string, number>();\nm.set('a', 1);\nreturn m.get('a')! / 2;",
    "const xs = [1, 2, 3];\nreturn xs[0]! / xs.length + xs[1] / 2;",
    "let i = 0;\nwhile (i < 3) { i++; }\nfor (const x of [1, 2]) { i += x; }\nreturn i > 1 ? i / 2 : 0;",
    "// a comment with import in it\n/* and export here */\nreturn 1;",
    "interface Row { id: string; status: 'open' | 'closed' }\nconst rows = [] as Row[];\nenum Mode { Fast, Slow }\nreturn rows.filter((r): r is Row => r.status === 'open').length + Mode.Fast;",
    "class A { #x = 1; get x() { return this.#x; } static make() { return new A(); } }\nreturn A.make().x;",
    "const o = { a: { b: [1, { c: 2 }] } };\nconst { a: { b: [, { c }] } } = o as any;\nreturn c ?? o?.a?.b?.[0];",
    "try { await tools.x({}); } catch (e) { if (e instanceof ToolDeniedError) return 'denied'; throw e; } finally { console.log('done'); }",
    "const n = 1_000.5e+3 + 0xff + 0b1 + 0o7 + 10n.toString().length;\nreturn n;",
    "label: for (const a of [1]) { continue label; }\nreturn `${'`'}`;",
    "const a = 5, b = 2;\nreturn a-->b;",
    "return typeof /x/ === 'object' ? void /y/ : /z/;",
  ];
  test("a corpus of realistic snippets is not refused", () => {
    for (const code of ORDINARY) {
      const r = refused(code);
      if (r) throw new Error(`refused ${JSON.stringify(code)}: line ${r.line}, col ${r.column}: ${r.message}`);
    }
  });
});

describe("differential check against Bun's own parser", () => {
  // Random token soup (seeded, so the same every run): whatever the pre-check lets through, Bun's
  // transpiler must find no import, import.meta or require in it. A lexer that misreads a string,
  // comment, template or regex boundary shows up here.
  test("for 20,000 random snippets, nothing the pre-check accepts contains module loading for Bun", () => {
    const frags = [
      '"',
      "'",
      "`",
      "/",
      "//",
      "/*",
      "*/",
      "{",
      "}",
      "(",
      ")",
      "[",
      "]",
      "${",
      "import",
      '("bun")',
      ".meta",
      "x",
      " ",
      "\n",
      "\u2028",
      ";",
      "=",
      "if",
      "of",
      "return",
      "\\",
      "\\u0069mport",
      "1",
      ".",
      "!",
      "+",
      "++",
      "<",
      ">",
      "-->",
      "while",
      "=>",
      "export",
      "require",
      "a",
      "?",
    ];
    let seed = 0x9e3779b9 | 0;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % frags.length;
    };
    const transpiler = new Bun.Transpiler({ ...SNIPPET_TRANSPILER_OPTIONS, logLevel: "error" });
    const leaks: string[] = [];
    let accepted = 0;
    for (let n = 0; n < 20_000; n++) {
      let code = "";
      for (let k = 0, len = 1 + (next() % 14); k < len; k++) code += frags[next()];
      if (precheckSnippet(code)) continue;
      accepted++;
      const wrapped = `async function f() {\n${code}\n}\n`;
      let js: string;
      let found: unknown[];
      try {
        js = transpiler.transformSync(wrapped);
        found = transpiler.scanImports(wrapped);
      } catch {
        continue; // not valid code: nothing runs
      }
      const code_only = js.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`|\/\/[^\n]*/g, '""');
      if (found.length > 0 || /\bimport\s*[(.]|\brequire\s*\(/.test(code_only)) leaks.push(code);
    }
    expect(accepted).toBeGreaterThan(1_000);
    expect(leaks).toEqual([]);
  });
});

describe("the transpiler is configured so it cannot execute anything", () => {
  // Layer two: even a payload that reached Bun.Transpiler (the pre-check would stop it first) cannot
  // run a macro, because the runner's transpiler options disable macros. Real payloads, real marker file.
  test("a real macro payload is refused by the runner's transpiler options and has no effect", () => {
    const m = marker();
    try {
      const payloads = [
        `import { spawnSync } from "bun" with { type: "macro" };\nspawnSync(["touch", ${JSON.stringify(m.file)}]);`,
        `import { spawnSync } from "bun" assert { type: "macro" };\nspawnSync(["touch", ${JSON.stringify(m.file)}]);`,
        `async function f() {\n}\nimport { spawnSync } from "bun" with { type: "macro" };\nconst x = spawnSync(["touch", ${JSON.stringify(m.file)}]);\nasync function g() {\n}\n`,
        `import { writeFileSync } from "node:fs" with { type: "macro" };\nwriteFileSync(${JSON.stringify(m.file)}, "x");`,
      ];
      for (const src of payloads) {
        const transpiler = new Bun.Transpiler(SNIPPET_TRANSPILER_OPTIONS);
        expect(() => transpiler.transformSync(src)).toThrow("Macros are disabled");
        expect(existsSync(m.file)).toBe(false);
      }
    } finally {
      m.done();
    }
  });

  test("control: with Bun's default options the same payload DOES run on the host (why the options matter)", () => {
    const m = marker();
    try {
      const src = `import { spawnSync } from "bun" with { type: "macro" };\nspawnSync(["touch", ${JSON.stringify(m.file)}]);`;
      try {
        new Bun.Transpiler({ loader: "ts" }).transformSync(src);
      } catch {
        // Bun cannot inline spawnSync's result; the process ran anyway
      }
      expect(existsSync(m.file)).toBe(true);
    } finally {
      m.done();
    }
  });
});

import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition } from "@openassistant/sdk";
import { tempProject } from "../../test/plugin-fixtures.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { toolHistory } from "./index.ts";
import { workspaceTools } from "./workspace-tools.ts";

// Each source is checked in a child process (the real path to a card); the refused ones are parsed only.
setDefaultTimeout(180_000);

/** What follows each hostile line: a valid tool, and a type error that shows whether the file was compiled. */
const REST = `
import { defineTool, z } from "@openassistant/sdk";
const compiled: number = "a type error the check reports only when it compiles the file";
export default defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => ({ ok: true }) });
`;

/**
 * Every form that loads code, and spellings of each. [what, the first lines of the file, the first
 * problem expected: where, which form and why].
 */
const CORPUS: Array<[string, string, string]> = [
  ["require()", 'const a = require("dayjs");', "line 1:11: require is not allowed: the CommonJS loader loads any file"],
  [
    "module.require",
    'const a = module.require("dayjs");',
    "line 1:11: module is not allowed: the CommonJS module object reaches the loader",
  ],
  [
    "globalThis.require behind as any",
    'const a = (globalThis as any).require("dayjs");',
    "line 1:12: globalThis used as a value is not allowed: use its members directly (globalThis.<name>)",
  ],
  [
    "global.require",
    'const a = global.require("dayjs");',
    "line 1:18: .require is not allowed: the CommonJS loader loads any file",
  ],
  [
    "(0, require)",
    'const a = (0, require)("dayjs");',
    "line 1:15: require is not allowed: the CommonJS loader loads any file",
  ],
  [
    "aliased require",
    'const r = require;\nconst a = r("dayjs");',
    "line 1:11: require is not allowed: the CommonJS loader loads any file",
  ],
  [
    "require.resolve",
    'const p = require.resolve("dayjs");',
    "line 1:11: require is not allowed: the CommonJS loader loads any file",
  ],
  [
    "createRequire from node:module",
    'import { createRequire } from "node:module";',
    'line 1:10: importing "createRequire" is not allowed: the CommonJS loader loads any file',
  ],
  [
    "default import of bare module",
    'import Module from "module";',
    'line 1:20: imports "module" is not allowed: it loads any file (createRequire, Module._load); tools may not import it',
  ],
  [
    "process.mainModule",
    "const m = process.mainModule;",
    "line 1:19: .mainModule is not allowed: the CommonJS loader loads any file",
  ],
  [
    'process["mainModule"]',
    'const m = process["mainModule"];',
    'line 1:19: "mainModule" is not allowed: the CommonJS loader loads any file',
  ],
  [
    "process.getBuiltinModule",
    'const m = process.getBuiltinModule("node:module");',
    "line 1:19: .getBuiltinModule is not allowed: it loads builtins the check refuses (module, vm)",
  ],
  [
    "import.meta.require",
    'const a = import.meta.require("dayjs");',
    "line 1:11: import.meta.require is not allowed: only import.meta.dir, .dirname, .file, .filename, .path, .url, .main, .env may be used",
  ],
  [
    "import.meta.resolve",
    'const p = import.meta.resolve("../x.ts");',
    "line 1:11: import.meta.resolve is not allowed: only import.meta.dir, .dirname, .file, .filename, .path, .url, .main, .env may be used",
  ],
  [
    "import.meta as a value",
    "const meta: any = import.meta;",
    "line 1:19: import.meta used as a value is not allowed: only import.meta.dir, .dirname, .file, .filename, .path, .url, .main, .env may be used",
  ],
  [
    "Bun.plugin",
    'Bun.plugin({ name: "x", setup() {} });',
    "line 1:1: Bun.plugin is not allowed: Bun.plugin changes how modules load",
  ],
  [
    "globalThis.Bun.plugin",
    'globalThis.Bun.plugin({ name: "x", setup() {} });',
    "line 1:1: globalThis.Bun.plugin is not allowed: Bun.plugin changes how modules load",
  ],
  [
    "plugin imported from bun",
    'import { plugin } from "bun";',
    'line 1:10: importing "plugin" from "bun" is not allowed: Bun.plugin changes how modules load',
  ],
  [
    "namespace import of bun",
    'import * as B from "bun";',
    'line 1:8: a default or namespace import of "bun" is not allowed: import the names the tool uses',
  ],
  [
    "Bun.resolveSync",
    'const p = Bun.resolveSync("../x.ts", ".");',
    "line 1:11: Bun.resolveSync is not allowed: it resolves modules",
  ],
  [
    "new Function",
    "const f = new Function(\"return import('../x.ts')\");",
    "line 1:15: Function is not allowed: it runs code strings, which can import anything",
  ],
  [
    "eval",
    "eval(\"import('../x.ts')\");",
    "line 1:1: eval is not allowed: it runs code strings, which can import anything",
  ],
  [
    "indirect eval",
    "const e = (0, globalThis.eval);",
    "line 1:26: .eval is not allowed: it runs code strings, which can import anything",
  ],
  [
    ".constructor of a function",
    "const F = (async () => {}).constructor;",
    "line 1:28: .constructor is not allowed: it reaches the Function constructor; it runs code strings, which can import anything",
  ],
  [
    '["constructor"] with an escape',
    'const F = (() => {})["\\x63onstructor"];',
    'line 1:22: "constructor" is not allowed: it reaches the Function constructor; it runs code strings, which can import anything',
  ],
  [
    "getPrototypeOf",
    "const P = Object.getPrototypeOf(async () => {});",
    "line 1:18: .getPrototypeOf is not allowed: it walks prototypes to the Function constructor, which runs code strings",
  ],
  [
    "computed member of globalThis",
    'const a = (globalThis as { [k: string]: any })["req" + "uire"];',
    "line 1:12: globalThis used as a value is not allowed: use its members directly (globalThis.<name>)",
  ],
  [
    "globalThis aliased",
    "const g = globalThis;",
    "line 1:11: globalThis used as a value is not allowed: use its members directly (globalThis.<name>)",
  ],
  [
    "require spelled with a unicode escape",
    'const a = \\u0072equire("dayjs");',
    "line 1:11: require is not allowed: the CommonJS loader loads any file",
  ],
  [
    "import x = require()",
    'import x = require("dayjs");',
    'line 1:1: import … = … is not allowed: use a static import: import x from "package"',
  ],
  [
    "dynamic import() of a package",
    'const m = await import("dayjs");',
    "line 1:17: dynamic import() is not allowed: use a static import so the operator sees what the tool loads",
  ],
  [
    "dynamic import() of an expression",
    'const m = await import("da" + "yjs");',
    "line 1:17: dynamic import() is not allowed: use a static import so the operator sees what the tool loads",
  ],
  [
    "export * from",
    'export * from "dayjs";',
    'line 1:1: export … from "dayjs" is not allowed: a re-export loads another module',
  ],
  [
    "walks out of a package",
    'import x from "dayjs/../../x.ts";',
    "line 1:15: imports \"dayjs/../../x.ts\" is not allowed: a path inside a package may not contain '.', '..', empty or encoded segments",
  ],
  [
    "percent-encoded dot segments",
    'import x from "dayjs/%2e%2e/%2e%2e/x.ts";',
    "line 1:15: imports \"dayjs/%2e%2e/%2e%2e/x.ts\" is not allowed: a path inside a package may not contain '.', '..', empty or encoded segments",
  ],
  [
    "absolute path",
    'import x from "/etc/passwd";',
    'line 1:15: imports "/etc/passwd" is not allowed: assistant-written tools are single files; relative and absolute imports are not allowed',
  ],
  [
    "file: URL",
    'import x from "file:///etc/passwd";',
    'line 1:15: imports "file:///etc/passwd" is not allowed: a URL; only npm packages, node: and bun: modules can be imported',
  ],
  [
    "data: URL",
    'import x from "data:text/javascript,export default 1";',
    'line 1:15: imports "data:text/javascript,export default 1" is not allowed: a URL; only npm packages, node: and bun: modules can be imported',
  ],
  [
    "relative ./x",
    'import x from "./x.ts";',
    'line 1:15: imports "./x.ts" is not allowed: assistant-written tools are single files; relative and absolute imports are not allowed',
  ],
  [
    "relative ../x",
    'import x from "../../../etc/passwd";',
    'line 1:15: imports "../../../etc/passwd" is not allowed: assistant-written tools are single files; relative and absolute imports are not allowed',
  ],
  [
    "import type from a relative path",
    'import type { T } from "../secrets.ts";',
    'line 1:24: imports "../secrets.ts" is not allowed: assistant-written tools are single files; relative and absolute imports are not allowed',
  ],
  [
    "import() type",
    'type T = typeof import("../secrets.ts");',
    'line 1:10: an import("…") type is not allowed: it reads another file; import the type with a static import',
  ],
  [
    "/// <reference path>",
    '/// <reference path="../secrets.ts" />',
    'line 1:22: /// <reference path="../secrets.ts" /> is not allowed: it reads another file',
  ],
  [
    "/// <reference types>",
    '/// <reference types="../secrets" />',
    'line 1:23: /// <reference types="../secrets" /> is not allowed: it reads another file',
  ],
  [
    "declare module",
    'declare module "../secrets.ts" {}',
    'line 1:1: declare module "../secrets.ts" is not allowed: it declares another module',
  ],
  [
    "# package import",
    'import x from "#secrets";',
    'line 1:15: imports "#secrets" is not allowed: not an npm package name; only npm packages, node: and bun: modules can be imported',
  ],
  [
    "node:vm",
    'import { runInThisContext } from "node:vm";',
    'line 1:34: imports "node:vm" is not allowed: it runs code strings, which can import anything; tools may not import it',
  ],
  [
    "node:worker_threads",
    'import { Worker as W } from "node:worker_threads";',
    'line 1:10: importing "Worker" is not allowed: a Worker loads any file',
  ],
  ["new Worker", 'const w = new Worker("../x.ts");', "line 1:15: Worker is not allowed: a Worker loads any file"],
  [
    "dlopen imported from bun:ffi",
    'import { dlopen } from "bun:ffi";',
    'line 1:10: importing "dlopen" is not allowed: it loads native code',
  ],
  [
    "bun:ffi",
    'import "bun:ffi";',
    'line 1:8: imports "bun:ffi" is not allowed: native code is not allowed in assistant-written tools',
  ],
  [
    "a bun: module off the allow-list",
    'import "bun:internal-for-testing";',
    'line 1:8: imports "bun:internal-for-testing" is not allowed: the bun: modules a tool may import are bun:sqlite, bun:jsc, bun:test',
  ],
  [
    "a computed member of globalThis",
    'const a = globalThis["req" + "uire"];',
    "line 1:11: globalThis[…] is not allowed: a computed member of globalThis cannot be checked; use globalThis.<name>",
  ],
  [
    "process.dlopen",
    'process.dlopen({ exports: {} }, "/tmp/x.node");',
    "line 1:9: .dlopen is not allowed: it loads native code",
  ],
  [
    "SQLite loadExtension",
    'import { Database } from "bun:sqlite";\nnew Database(":memory:").loadExtension("/tmp/x.so");',
    "line 2:26: .loadExtension is not allowed: it loads native code into SQLite",
  ],
  [
    "import attributes",
    'import data from "dayjs" with { type: "text" };',
    "line 1:26: import attributes (with { ... }) is not allowed: they change how a module loads",
  ],
  [
    "another @openassistant package",
    'import { loadTools } from "@openassistant/core";',
    'line 1:27: imports "@openassistant/core" is not allowed: tools may import only @openassistant/sdk from OpenAssistant',
  ],
  [
    "@ts-ignore over a relative import",
    '// @ts-ignore\nimport x from "../x.ts";',
    'line 2:15: imports "../x.ts" is not allowed: assistant-written tools are single files; relative and absolute imports are not allowed',
  ],
  [
    "@ts-expect-error over require",
    '// @ts-expect-error\nconst a = require("../x.ts");',
    "line 2:11: require is not allowed: the CommonJS loader loads any file",
  ],
  [
    "@ts-nocheck and require",
    '// @ts-nocheck\nconst a = require("../x.ts");',
    "line 2:11: require is not allowed: the CommonJS loader loads any file",
  ],
  [
    "exports object",
    "exports.x = 1;",
    "line 1:1: exports is not allowed: the CommonJS module object reaches the loader",
  ],
  ["Bun.FFI", "const ffi = Bun.FFI;", "line 1:13: Bun.FFI is not allowed: it loads native code"],
  [
    "FFI imported from bun",
    'import { FFI } from "bun";',
    'line 1:10: importing "FFI" from "bun" is not allowed: it loads native code',
  ],
  [
    "Reflect.get with a built key",
    'const F = Reflect.get(async () => {}, "constr" + "uctor");',
    "line 1:11: Reflect is not allowed: it reads members by computed names, the Function constructor among them",
  ],
  [
    "process.execve",
    'process.execve("/bin/sh", ["sh"]);',
    "line 1:1: process.execve is not allowed: it replaces the gateway's process with another program",
  ],
  [
    "constructor by destructuring",
    "const { constructor: F } = async () => {};",
    "line 1:9: { constructor: … } is not allowed: it reaches the Function constructor; it runs code strings, which can import anything",
  ],
  [
    "mainModule destructured from process",
    "const { mainModule } = process;",
    "line 1:9: mainModule is not allowed: the CommonJS loader loads any file",
  ],
  [
    "require destructured from globalThis",
    "const { require: r } = globalThis;",
    "line 1:9: { require: … } is not allowed: the CommonJS loader loads any file",
  ],
];

describe("a tool file that loads anything but an allowed static import never reaches a card", () => {
  const p = tempProject();
  const tools = join(p.ws, "tools");
  mkdirSync(tools, { recursive: true });
  const write = indexToolTree(
    workspaceTools({
      toolsDir: tools,
      history: toolHistory(join(p.ws, "history")),
      install: async () => {},
      reload: async () => ({ problems: [], tools: [] }),
    }),
  ).get("writeTool") as ToolDefinition;
  const outcomes = new Map<string, { success: boolean; problems: string[] }>();

  beforeAll(async () => {
    // The approval card is posted only after this validation succeeds (the invoker's order).
    const queue = [...CORPUS];
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const [what, lines] = c;
        const parsed = await write.args.safeParseAsync({ path: "hostile.ts", source: lines + REST, reason: "r" });
        outcomes.set(what, {
          success: parsed.success,
          problems: parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
        });
      }
    };
    await Promise.all([worker(), worker(), worker()]);
  });

  test("the corpus has at least 30 forms", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  });

  test.each(CORPUS)(
    "%s: refused, naming line:column and the form, without compiling the file",
    (what, _lines, first) => {
      const outcome = outcomes.get(what)!;
      expect(outcome.success).toBe(false);
      expect(outcome.problems[0]).toBe(`source: ${first}`);
      // Refused before the typecheck: the file's type error is not reported, because it was never compiled.
      expect(outcome.problems.join("\n")).not.toMatch(/TS\d{4}/);
      expect(existsSync(join(tools, "hostile.ts"))).toBe(false);
    },
  );
});

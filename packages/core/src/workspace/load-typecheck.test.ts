import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { tempProject } from "../../test/plugin-fixtures.ts";
import { checkToolSource } from "./source-check.ts";
import { checkLoads } from "./load-rule.ts";

// What the load rule lets through is compiled in a child process: seconds each on a busy machine.
setDefaultTimeout(180_000);

describe("ordinary code is not caught by the rule", () => {
  const OK = `import { defineTool, z } from "@openassistant/sdk";
import { $ } from "bun";
import { Database } from "bun:sqlite";
import { readFileSync } from "fs";
import { join } from "node:path";
import utc from "dayjs/plugin/utc";
import type { Statement } from "bun:sqlite";
const { env } = process;
const labels = { constructor: "c", require: "r", module: "m" };
class Named { eval() { return labels.module; } name() { return "named"; } }
let when: Statement | undefined;
export default defineTool({
  description: "x",
  approval: "auto",
  args: z.object({ module: z.string(), exports: z.array(z.string()) }),
  run: async ({ module: name }) => ({
    dir: join(import.meta.dir, name), url: import.meta.url, home: env.HOME ?? process.env.HOME,
    size: Bun.file(import.meta.path).size, typed: typeof process, named: new Named().name(),
    db: new Database(":memory:").query("select 1 as one").get(), read: typeof readFileSync, sh: typeof $,
    utc: typeof utc, when: when === undefined,
  }),
});
`;
  test("global objects by member, import.meta.dir/url/path, builtins by bare name, package subpaths, member names", () => {
    const sf = ts.createSourceFile("t.ts", OK, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    expect(checkLoads(sf)).toEqual({ problems: [], packages: ["dayjs"] });
  });
  test("and it typechecks in the child", async () => {
    const p = tempProject();
    mkdirSync(join(p.ws, "tools"), { recursive: true });
    expect(await checkToolSource(join(p.ws, "tools", "ok.ts"), OK)).toMatchObject({
      problems: [],
      packages: ["dayjs"],
    });
  });
});

test("the typecheck never reads a file outside the SDK, the type libraries and node_modules, nor quotes one", async () => {
  // An installed package whose declarations point outside node_modules, at a file holding a secret.
  const SECRET = "s3cr3t-content-of-another-file";
  const p = tempProject({
    "outside/secret.d.ts": `declare const LEAKED: "${SECRET}";\n`,
    ".openassistant/node_modules/leaky-types/package.json": JSON.stringify({
      name: "leaky-types",
      types: "index.d.ts",
    }),
    ".openassistant/node_modules/leaky-types/index.d.ts": `/// <reference path="../../../outside/secret.d.ts" />\nexport declare const ok: number;\n`,
  });
  mkdirSync(join(p.ws, "tools"), { recursive: true });
  const source = `import { defineTool, z } from "@openassistant/sdk";
import { ok } from "leaky-types";
const n: number = LEAKED;
export default defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => ({ n, ok }) });
`;
  const r = await checkToolSource(join(p.ws, "tools", "leaky.ts"), source);
  expect(r.problems).toEqual(["line 3:19: TS2304 Cannot find name 'LEAKED'."]);
  expect(JSON.stringify(r)).not.toContain(SECRET);
});

test("a type error inside an imported package's source is not quoted to the model", async () => {
  const p = tempProject({
    ".openassistant/node_modules/leaky-source/package.json": JSON.stringify({
      name: "leaky-source",
      types: "index.ts",
    }),
    ".openassistant/node_modules/leaky-source/index.ts":
      "export const ok: number = s3cr3t_identifier_of_another_file;\n",
  });
  mkdirSync(join(p.ws, "tools"), { recursive: true });
  const source = `import { defineTool, z } from "@openassistant/sdk";
import { ok } from "leaky-source";
export default defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => ({ ok }) });
`;
  const r = await checkToolSource(join(p.ws, "tools", "uses.ts"), source);
  expect(r).toMatchObject({ problems: [], packages: ["leaky-source"] });
  expect(JSON.stringify(r)).not.toContain("s3cr3t");
});

describe("a member read by a computed key from a function or an untyped value (the key could be 'constructor')", () => {
  const p = tempProject();
  mkdirSync(join(p.ws, "tools"), { recursive: true });
  const file = join(p.ws, "tools", "keys.ts");
  const body = `import { defineTool, z } from "@openassistant/sdk";
const k = ["constr", "uctor"].join("");
const f = async () => {};
// @ts-ignore
const a = f[k];
const b = (f as any)[k];
const rows: Record<string, number> = { a: 1 };
const c = rows[k];
const d = [1, 2][Number("0")];
const e = (f as any)[0];
export default defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => ({ a, b, c, d, e }) });
`;
  const refusals = [
    `line 5:11: a computed member of a function is not allowed: its key could be "constructor", the way to the Function constructor; give the value a type or use a literal key`,
    `line 6:11: a computed member of an untyped value is not allowed: its key could be "constructor", the way to the Function constructor; give the value a type or use a literal key`,
  ];
  test("is refused under @ts-ignore and as any; a typed record, an array and a number key are not", async () => {
    expect((await checkToolSource(file, body)).problems).toEqual(refusals);
  });
  test("is refused under @ts-nocheck", async () => {
    const nocheck = `// @ts-nocheck\n${body}`;
    expect((await checkToolSource(file, nocheck)).problems).toEqual(
      refusals.map((r) => r.replace(/^line (\d+)/, (_, n) => `line ${Number(n) + 1}`)),
    );
  });
});

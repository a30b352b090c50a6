import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { typicalInput } from "@openassistant/testkit/mcp/typical-input.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { generateDeclarations } from "../../codemode/declarations.ts";
import { createProgramChecker } from "../../codemode/typecheck-program.ts";
import { loadTools } from "../../plugins/index.ts";
import { tempProject } from "../../../test/plugin-fixtures.ts";
import { flattenToolTree } from "../../tools/flatten.ts";
import { jsonInputOf } from "../json-schema-tool.ts";
import { closeMcpConnections } from "./index.ts";

// Each server starts in a child process: seconds on a busy machine.
setDefaultTimeout(90_000);
afterAll(() => closeMcpConnections());

const testkit = `${import.meta.dir}/../../../../testkit/src`;
const bin = (pkg: string) => Bun.resolveSync(`${pkg}/dist/index.js`, testkit);
const data = makeTempDir("mcp-reference");

/** The official reference servers from the npm registry, as stdio children (zod 4 and zod 3 builds). */
const SERVERS: Record<string, { args: string[]; env?: Record<string, string> }> = {
  everything: { args: [bin("@modelcontextprotocol/server-everything"), "stdio"] },
  everythingZod3: { args: [bin("server-everything-zod3"), "stdio"] },
  memory: { args: [bin("@modelcontextprotocol/server-memory")], env: { MEMORY_FILE_PATH: `${data}/memory.jsonl` } },
  filesystem: { args: [bin("@modelcontextprotocol/server-filesystem"), data] },
};

const checker = createProgramChecker();

describe("declarations of the reference MCP servers typecheck a typical call for every tool", () => {
  for (const [name, server] of Object.entries(SERVERS))
    test(name, async () => {
      const p = tempProject({
        ".openassistant/config.json": JSON.stringify({
          mcp: { servers: { [name]: { command: process.execPath, ...server, allowProcess: true } } },
        }),
      });
      const r = await loadTools({ ...p.opts, autoInstall: false });
      expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
      const tools = flattenToolTree(r.tree).filter((t) => t.path.startsWith(`${name}.`));
      expect(tools.length).toBeGreaterThan(3);
      const declarations = generateDeclarations(r.tree).text;
      expect(checker.checkDeclarations(declarations)).toEqual([]);
      const failures: string[] = [];
      for (const t of tools) {
        const input = typicalInput(jsonInputOf(t.definition)!.schema);
        const code = `const result = await tools.${t.path}(${JSON.stringify(input)});\nreturn result;`;
        const check = checker.check(code, declarations);
        if (!check.ok) failures.push(`${t.path}(${JSON.stringify(input)}): ${check.text}`);
      }
      expect(failures).toEqual([]);
    });
});

describe("what the declarations say a call returns", () => {
  test("a tool's outputSchema types its result; resources and prompts are typed tools of their own", async () => {
    const p = tempProject({
      ".openassistant/config.json": JSON.stringify({
        mcp: { servers: { everything: { command: process.execPath, ...SERVERS.everything, allowProcess: true } } },
      }),
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    const declarations = generateDeclarations(r.tree).text;
    const ok = (code: string) => checker.check(code, declarations);
    // getStructuredContent declares { temperature: number; conditions: string; humidity: number }.
    expect(
      ok(`const w = await tools.everything.getStructuredContent({ location: "Chicago" });
const t: number = w.temperature;
return t;`),
    ).toEqual({ ok: true });
    const wrong = ok(`const w = await tools.everything.getStructuredContent({ location: "Chicago" });
const t: string = w.temperature;
return t;`);
    expect(wrong.ok).toBe(false);
    expect(ok(`return (await tools.everything.$resources.list({})).resources.map((r) => r.uri);`)).toEqual({
      ok: true,
    });
    expect(
      ok(`const t = await tools.everything.$resources.read({ uri: "demo://resource/static/document/architecture.md" });
return t.contents[0]?.text;`),
    ).toEqual({ ok: true });
    expect(
      ok(`const p = await tools.everything.$prompts.get({ name: "simple-prompt" });
return p.messages.map((m) => m.role);`),
    ).toEqual({ ok: true });
  });
});

/**
 * Names from model code (`tools.a.b`, `$describe({ path })`, `$search({ query })`) never reach
 * Object.prototype: `constructor`, `__proto__`, `toString` … are unknown tools like any other name.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { defineTool, type ToolDefinition, z } from "@openassistant/sdk";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { createRedactor } from "../receipts/redact.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { createCodeModeRunner } from "./runner.ts";
import { discoveryTools } from "./tool-discovery.ts";
import { createToolInvoker } from "./tool-invoker.ts";

const KEYS = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "prototype"] as const;

const ran: string[] = [];
const tools = {
  notes: {
    list: defineTool({
      description: "List notes",
      approval: "auto",
      args: z.object({}),
      run: async () => (ran.push("notes.list"), ["a"]),
    }),
  },
};

/** Optional fields named like Object.prototype's members, left out by the caller. */
const memberFields = defineTool({
  description: "Optional fields named like Object.prototype's members",
  approval: "auto",
  args: z.object({
    toString: z.string().optional(),
    valueOf: z.number().optional(),
    opts: z.object({ hasOwnProperty: z.boolean().optional(), isPrototypeOf: z.string().default("d") }),
    data: z.unknown(),
  }),
  run: async (input) => ({
    own: Object.keys(input).sort(),
    opts: input.opts,
    plain: [input, input.opts, input.data].map((o) => Object.getPrototypeOf(o) === Object.prototype),
    data: String(Object.keys(input.data as object)),
  }),
});
const fieldTools = { fields: { members: memberFields } };

const db = openDatabase(":memory:");
const receipts = createSqliteReceiptStore(db);
const sandbox = createSandboxPool({ minIdle: 1 });
const runner = createCodeModeRunner({
  tools: { ...tools, ...fieldTools },
  receipts,
  requestApproval: async () => ({ decision: "approved", by: "alice" }),
  sandbox,
  redact: (t) => t,
});
beforeAll(() => sandbox.warmUp());
afterAll(async () => {
  await runner.close();
  await sandbox.close();
  db.close();
});

describe("tool paths from model code", () => {
  test("tools[key] and tools.notes[key] are not tools in the sandbox: calling one fails there, no call reaches the host", async () => {
    const code = `
      const seen = [];
      for (const k of ${JSON.stringify(KEYS)}) {
        seen.push([k, typeof tools[k], Object.hasOwn(tools, k), typeof tools.notes[k]]);
        try { await tools[k]({}); seen.push([k, "called"]); } catch (e) { seen.push([k, e.name]); }
        try { await tools.notes[k]({}); seen.push([k, "called"]); } catch (e) { seen.push([k, e.name]); }
      }
      return seen;`;
    const result = await runner.runPromise(code);
    expect(result.ok).toBe(true);
    const expected = KEYS.flatMap((k) => [
      [k, "undefined", false, "undefined"],
      [k, "TypeError"],
      [k, "TypeError"],
    ]);
    expect(JSON.parse(result.valueJson!)).toEqual(expected);
    expect(receipts.byRun(result.runId)).toEqual([]);
    expect(ran).toEqual([]);
  });

  test("a host call for such a path is an unknown tool: a failed receipt naming it, nothing runs", async () => {
    const map = indexToolTree(tools);
    const invoker = createToolInvoker({
      runId: "run_proto",
      sessionId: "s",
      code: "",
      tools: map,
      receipts,
      requestApproval: async () => ({ decision: "approved", by: "alice" }),
      policy: [],
      redact: createRedactor([]),
      approvalTimeoutMs: 60_000,
      toolTimeoutMs: 10_000,
      previewChars: 500,
      signal: new AbortController().signal,
      running: new Map(),
    });
    for (const k of KEYS)
      for (const path of [k, `notes.${k}`, `${k}.list`]) {
        const r = await invoker.invoke(path, "{}");
        expect(r).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL", message: `unknown tool "${path}"` } });
      }
    expect(ran).toEqual([]);
    const failed = receipts.byRun("run_proto").filter((r) => r.phase === "failed");
    expect(failed).toHaveLength(KEYS.length * 3);
  });
});

describe("tool inputs", () => {
  test("optional fields named toString, valueOf, hasOwnProperty … may be left out: zod does not find Object.prototype's", async () => {
    const result = await runner.runPromise(
      `return [await tools.fields.members({ opts: {}, data: { a: 1 } }), await tools.fields.members({ toString: "t", valueOf: 2, opts: { hasOwnProperty: true }, data: [] })];`,
    );
    expect(result.ok).toBe(true);
    expect(JSON.parse(result.valueJson!)).toEqual([
      { own: ["data", "opts"], opts: { isPrototypeOf: "d" }, plain: [true, true, true], data: "a" },
      {
        own: ["data", "opts", "toString", "valueOf"],
        opts: { hasOwnProperty: true, isPrototypeOf: "d" },
        plain: [true, true, false],
        data: "",
      },
    ]);
  });

  test("a wrong value for such a field is still refused, naming the field", async () => {
    const result = await runner.runPromise(`return await tools.fields.members({ toString: 5, opts: {}, data: 1 });`);
    expect(result.ok).toBe(false);
    expect(result.error?.message).toContain("toString");
    expect(result.error?.message).not.toContain("function");
  });
});

describe("discovery", () => {
  const discovery = indexToolTree(discoveryTools(() => tools));
  const describeTool = discovery.get("$describe") as ToolDefinition<{ path: string }>;
  const search = discovery.get("$search") as ToolDefinition<{ query: string; limit: number }>;

  test("$describe({ path }) of such a name is 'no tool or namespace', with or without tools.", async () => {
    for (const k of KEYS)
      for (const path of [k, `tools.${k}`, `notes.${k}`]) {
        const clean = path.replace(/^tools\./, "");
        await expect(describeTool.run({ path })).rejects.toThrow(
          `no tool or namespace "${clean}"; use tools.$search to find one`,
        );
      }
  });

  test("$search({ query }) with such a word answers like any other word", async () => {
    for (const k of KEYS) {
      const hits = (await search.run({ query: k, limit: 10 })) as Array<{ path: string }>;
      expect(Array.isArray(hits)).toBe(true);
      for (const h of hits) expect(h.path).toBe("tools.notes.list");
    }
  });
});

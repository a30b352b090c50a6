// Peer sandboxes for bench/sandbox.bench.ts, run under Node (isolated-vm is a Node addon).
// Reads one JSON command per line on stdin, answers one JSON line on stdout:
//   {"peer":"direct"|"ivm"|"ivm-context"|"code-mode","snippet":"six"|"thousand"|"empty","n":20,"pauseMs":50}
//   → {"samples":[ms, ...]}   (the same snippets and host tool as the Bun side)
// Started by the bench, never by the product. See BENCHMARKS.md "Peers".
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import ivm from "isolated-vm";
import { CodeModeUtcpClient } from "@utcp/code-mode";
import { addFunctionToUtcpDirectCall } from "@utcp/direct-call";

// The UTCP libraries print progress with console.log; stdout carries only this script's answers.
const answer = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
console.log = () => {};

const toolPaths = ["calendar.list", "calendar.get", "mail.search", "mail.get"];
const onToolCall = async (path, inputJson) => {
  const input = JSON.parse(inputJson);
  return { ok: true, json: JSON.stringify({ id: 7, path, title: "Standup", input }) };
};

// The snippets of bench/sandbox.bench.ts; `T` is how the peer spells the tools object.
const snippets = (T) => ({
  six: `
const a = await ${T}calendar.list({ day: 1 });
const b = await ${T}calendar.get({ id: a.id });
const c = await ${T}mail.search({ q: "invoice" });
const [d, e, f] = await Promise.all([${T}mail.get({ id: 1 }), ${T}mail.get({ id: 2 }), ${T}calendar.get({ id: 3 })]);
return { a: a.id, b: b.id, c: c.id, d: d.id, e: e.id, f: f.id };`,
  thousand: `let n = 0; for (let i = 0; i < 1000; i++) n += (await ${T}calendar.get({ id: i })).id; return n;`,
  empty: `return 1;`,
});

async function direct() {
  const call = async (path, input) => {
    const r = await onToolCall(path, JSON.stringify(input));
    return r.ok && r.json !== undefined ? JSON.parse(r.json) : undefined;
  };
  const a = await call("calendar.list", { day: 1 });
  const b = await call("calendar.get", { id: a.id });
  const c = await call("mail.search", { q: "invoice" });
  const [d, e, f] = await Promise.all([call("mail.get", { id: 1 }), call("mail.get", { id: 2 }), call("calendar.get", { id: 3 })]);
  return JSON.stringify({ a: a.id, b: b.id, c: c.id, d: d.id, e: e.id, f: f.id });
}

// isolated-vm: one isolate for all runs. Tool calls are async host References (so Promise.all
// overlaps); inputs and outputs cross as JSON text, like ours.
const isolate = new ivm.Isolate({ memoryLimit: 64 });
const hostCall = new ivm.Reference(async (path, json) => {
  const r = await onToolCall(path, json);
  return r.json;
});
const TOOLS_SETUP = `(() => {
const host = __host;
delete globalThis.__host;
globalThis.tools = {};
for (const path of ${JSON.stringify(toolPaths)}) {
  const [ns, name] = path.split(".");
  (tools[ns] ??= {})[name] = (input) =>
    host.apply(undefined, [path, JSON.stringify(input)], { result: { promise: true, copy: true } }).then(JSON.parse);
}
})();`;
function newIvmContext() {
  const context = isolate.createContextSync();
  context.global.setSync("__host", hostCall);
  context.evalSync(TOOLS_SETUP);
  return context;
}
const sharedContext = newIvmContext();
const ivmSnippets = snippets("tools.");
async function runIvm(code, freshContext) {
  const context = freshContext ? newIvmContext() : sharedContext;
  try {
    const script = await isolate.compileScript(`(async () => {${code}\n})().then((v) => JSON.stringify(v))`);
    return await script.run(context, { promise: true, copy: true, timeout: 5000 });
  } finally {
    if (freshContext) context.release();
  }
}

// @utcp/code-mode: its own client, tools registered as UTCP manuals called directly in-process.
for (const path of toolPaths) {
  addFunctionToUtcpDirectCall(`call_${path.replace(".", "_")}`, async (args) => JSON.parse((await onToolCall(path, JSON.stringify(args))).json));
}
const codeMode = await CodeModeUtcpClient.create(process.cwd(), null);
for (const ns of ["calendar", "mail"]) {
  const names = toolPaths.filter((p) => p.startsWith(`${ns}.`)).map((p) => p.split(".")[1]);
  addFunctionToUtcpDirectCall(`manual_${ns}`, async () => ({
    utcp_version: "1.0.1",
    manual_version: "1.0.0",
    tools: names.map((name) => ({
      name,
      description: `${ns} ${name}`,
      inputs: { type: "object", properties: {} },
      outputs: { type: "object", properties: {} },
      tags: [],
      tool_call_template: { call_template_type: "direct-call", callable_name: `call_${ns}_${name}` },
    })),
  }));
  await codeMode.registerManual({ name: ns, call_template_type: "direct-call", callable_name: `manual_${ns}` });
}
const codeModeSnippets = snippets("");
async function runCodeMode(code) {
  const { result, logs } = await codeMode.callToolChain(code, 5000, 64);
  if (logs.some((l) => l.startsWith("[ERROR]"))) throw new Error(logs.join("\n"));
  return result;
}

const runners = {
  direct: () => direct(),
  ivm: (s) => runIvm(ivmSnippets[s], false),
  "ivm-context": (s) => runIvm(ivmSnippets[s], true),
  "code-mode": (s) => runCodeMode(codeModeSnippets[s]),
};

// Check every peer computes what the Bun side computes before measuring anything.
const expected = { a: 7, b: 7, c: 7, d: 7, e: 7, f: 7 };
for (const [name, run] of Object.entries(runners)) {
  const got = await run("six");
  const value = typeof got === "string" ? JSON.parse(got) : got;
  if (JSON.stringify(value) !== JSON.stringify(expected)) throw new Error(`${name} returned ${JSON.stringify(got)}`);
}
if (JSON.parse(await runners.ivm("thousand")) !== 7000 || (await runners["code-mode"]("thousand")) !== 7000) throw new Error("thousand-call snippet is wrong");

answer({ ready: true, node: process.version, versions: { "isolated-vm": "5.0.4", "@utcp/code-mode": "1.2.12" } });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { peer, snippet, n, pauseMs } = JSON.parse(line);
  const run = runners[peer];
  const samples = [];
  for (let i = 0; i < n; i++) {
    if (pauseMs > 0) await sleep(pauseMs);
    const t0 = performance.now();
    await run(snippet);
    samples.push(performance.now() - t0);
  }
  answer({ samples });
}

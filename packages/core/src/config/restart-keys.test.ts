import { expect, test } from "bun:test";
import { keysNeedingRestart } from "./restart-keys.ts";

test("settings read at start are named by path; tool keys (plugins, config, tools, mcp, openapi) are not", () => {
  const started = {
    http: { port: 8787, approvers: ["ann"] },
    model: { name: "claude-sonnet-5-5" },
    tools: { clock: true },
    plugins: [],
    config: { a: { x: 1 } },
    mcp: { servers: {} },
    openapi: {},
  };
  const now = {
    http: { port: 8787, approvers: ["ann", "bob"] },
    model: { name: "claude-opus-5", effort: "low" },
    tools: { clock: false },
    plugins: ["./p"],
    config: { a: { x: 2 } },
    mcp: { servers: { s: { url: "http://127.0.0.1:1" } } },
    openapi: { x: { spec: "s.json" } },
    discord: { token: "t" },
  };
  expect(keysNeedingRestart(started, now)).toEqual(["discord", "http.approvers", "model.effort", "model.name"]);
  expect(keysNeedingRestart(started, structuredClone(started))).toEqual([]);
});

test("a tool source kind that reads its section once (config.workspace) needs a restart; the others reload", () => {
  const started = { workspace: { enabled: true }, plugins: [], openapi: {} };
  const now = { workspace: { enabled: false }, plugins: ["./p"], openapi: { x: { spec: "s.json" } } };
  expect(keysNeedingRestart(started, now)).toEqual(["workspace.enabled"]);
});

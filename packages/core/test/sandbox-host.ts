/** Test helpers: an `onToolCall` backed by plain functions, and the pids of sandbox children. */
import { readdirSync, readFileSync } from "node:fs";
import type { HostCallResult } from "../src/sandbox/types.ts";

export type FakeTool = (input: unknown) => unknown | Promise<unknown>;

export interface RecordedCall {
  readonly path: string;
  readonly inputJson: string;
  readonly startedAt: number;
  endedAt?: number;
}

export class ToolFailure extends Error {
  constructor(readonly crossing: { name: string; message: string; code?: string }) {
    super(crossing.message);
  }
}

export function fakeHost(tools: Record<string, FakeTool>) {
  const calls: RecordedCall[] = [];
  const onToolCall = async (path: string, inputJson: string): Promise<HostCallResult> => {
    const call: RecordedCall = { path, inputJson, startedAt: performance.now() };
    calls.push(call);
    try {
      const tool = tools[path];
      if (!tool) return { ok: false, error: { name: "ToolError", message: `no tool ${path}` } };
      const value = await tool(JSON.parse(inputJson));
      return { ok: true, json: value === undefined ? undefined : JSON.stringify(value) };
    } catch (e) {
      if (e instanceof ToolFailure) return { ok: false, error: e.crossing };
      throw e;
    } finally {
      call.endedAt = performance.now();
    }
  };
  return { onToolCall, calls, toolPaths: Object.keys(tools) };
}

/** Pids of the sandbox child processes of this (test) process, from /proc. */
export function sandboxChildren(): string[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("sandbox/child.ts");
      } catch {
        return false;
      }
    });
}

/** #34: a client session's turns get the gateway's tools plus `tools.client.*`; every other session the gateway's alone. */
import { describe, expect, test } from "bun:test";
import { defineTool, z, type ToolTree } from "@openassistant/sdk";
import { snapshotOf } from "../tools-source.ts";
import { toolsForSession } from "./session-tools.ts";

const tool = (description: string) =>
  defineTool({ description, approval: "auto", args: z.object({ q: z.string() }), run: async () => 1 });
const clientTree = { read_file: tool("Read a file on the laptop") } as ToolTree;

describe("tools for a session", () => {
  test("a small tree: the client's tools are declared in that session only, built once per registration", () => {
    const snapshot = snapshotOf({ notes: { read: tool("Read notes") } } as ToolTree);
    const other = toolsForSession(snapshot, "discord:dm:1", undefined);
    expect(other.declarations).toBe(snapshot.declarations.text);
    const mine = toolsForSession(snapshot, "client:laptop:cs_1", { tree: clientTree, version: 1 });
    expect(mine.declarations).toContain("read_file(input:");
    expect(mine.declarations).toContain("Read notes");
    expect(toolsForSession(snapshot, "client:laptop:cs_1", { tree: clientTree, version: 1 })).toBe(mine);
    expect(toolsForSession(snapshot, "client:laptop:cs_1", { tree: clientTree, version: 2 })).not.toBe(mine);
  });

  test("a tree too large to declare whole: discovery is made again over the merged tree and finds the client's tools", () => {
    const big: Record<string, Record<string, unknown>> = {};
    for (let n = 0; n < 31; n++) {
      big[`ns${n}`] = {};
      for (let i = 0; i < 100; i++) big[`ns${n}`]![`t${i}`] = tool(`Tool ${i} of namespace ${n}`);
    }
    const snapshot = snapshotOf(big as ToolTree);
    expect(snapshot.declarationsFor).toBeDefined();
    const mine = toolsForSession(snapshot, "client:laptop:cs_1", { tree: clientTree, version: 1 });
    expect(mine.declarations).toContain("client");
    const reached = mine.declarationsFor!("return await tools.client.read_file({ q: 'x' })");
    expect(reached.ok && reached.text).toContain("read_file(input:");
    expect(
      Object.keys(mine.tree)
        .filter((k) => k.startsWith("$"))
        .sort(),
    ).toEqual(["$describe", "$search"]);
  });
});

import { describe, expect, test } from "bun:test";
import { defineTool, z } from "@openassistant/sdk";
import { flattenToolTree, ToolTreeError } from "./flatten.ts";

const tool = defineTool({ description: "d", approval: "auto", args: z.object({}), run: async () => 1 });

describe("flattenToolTree", () => {
  test("a tool or group named then is refused at load time with a clear error", () => {
    expect(() => flattenToolTree({ ns: { then: tool, ok: tool } })).toThrow(ToolTreeError);
    expect(() => flattenToolTree({ ns: { then: tool } })).toThrow(
      'tool name "ns.then" cannot be used: it would make its parent a thenable, so awaiting or returning that group calls the tool; rename it (e.g. "thenDo")',
    );
    expect(() => flattenToolTree({ then: { x: tool } })).toThrow('tool name "then" cannot be used');
  });

  test("a tool named __proto__ (only possible as an own property, e.g. from JSON) is refused", () => {
    const ns = JSON.parse('{"__proto__": 1}') as Record<string, unknown>;
    // biome-ignore lint/suspicious/noProto: the test sets an own __proto__ property on purpose
    ns["__proto__"] = tool;
    expect(() => flattenToolTree({ ns } as never)).toThrow(
      'tool name "ns.__proto__" cannot be used: it sets an object\'s prototype',
    );
  });

  test("names of Object.prototype members are ordinary tools", () => {
    const ns = { constructor: tool, toString: tool, valueOf: tool, hasOwnProperty: tool, name: tool, length: tool };
    expect(flattenToolTree({ ns }).map((t) => t.path)).toEqual([
      "ns.constructor",
      "ns.hasOwnProperty",
      "ns.length",
      "ns.name",
      "ns.toString",
      "ns.valueOf",
    ]);
  });
});

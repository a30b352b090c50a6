import { expect, test } from "bun:test";
import type { ToolUseBlock } from "@anthropic-ai/sdk/resources/messages/messages";
import { MAX_CODE_CHARS, readExecuteInput } from "./execute-tool.ts";

const use = (input: unknown, name = "execute") => ({ type: "tool_use", id: "tu_1", name, input }) as ToolUseBlock;

test("execute input: code is required, must be a non-empty string within the size limit", () => {
  expect(readExecuteInput(use({ code: "return 1;" }))).toEqual({ ok: true, code: "return 1;" });
  expect(readExecuteInput(use({ code: "return 1;" }, "bash"))).toMatchObject({
    ok: false,
    error: expect.stringContaining('Unknown tool "bash"'),
  });
  expect(readExecuteInput(use("return 1"))).toMatchObject({
    ok: false,
    error: expect.stringContaining("got a string"),
  });
  expect(readExecuteInput(use({}))).toMatchObject({
    ok: false,
    error: expect.stringContaining('"code" field is missing'),
  });
  expect(readExecuteInput(use({ code: 5 }))).toMatchObject({
    ok: false,
    error: expect.stringContaining("must be a string, got a number"),
  });
  expect(readExecuteInput(use({ code: "  " }))).toMatchObject({
    ok: false,
    error: expect.stringContaining("is empty"),
  });
  const huge = "x;".repeat(MAX_CODE_CHARS / 2 + 1);
  expect(readExecuteInput(use({ code: huge }))).toMatchObject({
    ok: false,
    error: expect.stringContaining(`the limit is ${MAX_CODE_CHARS}`),
  });
});

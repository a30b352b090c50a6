import { describe, expect, test } from "bun:test";
import { StderrTail } from "./stderr-tail.ts";

describe("a stdio MCP server's stderr, kept for its failures", () => {
  test("configured env values are redacted, also when a secret arrives split across chunks", () => {
    const tail = new StderrTail(["svc-key-4f9a8b7c6d5e"]);
    tail.push("connecting with svc-key-4f9a");
    tail.push("8b7c6d5e\nready\n");
    expect(tail.read()).toBe("connecting with [redacted]\nready");
    expect(tail.explain("could not connect")).toBe(
      "could not connect\nThe server's stderr (last lines, redacted):\nconnecting with [redacted]\nready",
    );
  });

  test("token shapes (a bearer header, an Anthropic key) are redacted without being configured", () => {
    const tail = new StderrTail([]);
    tail.push("GET /v1 Authorization: Bearer abcdefgh12345678\nkey sk-ant-api03-abcdefghijkl\n");
    expect(tail.read()).toBe("GET /v1 Authorization: Bearer [redacted]\nkey [redacted]");
  });

  test("only the last lines are kept, whole: a secret is never cut in two at the front", () => {
    const secret = "svc-key-4f9a8b7c6d5e";
    const tail = new StderrTail([secret], 100);
    for (let i = 0; i < 1_000; i++) tail.push(`line ${i} ${secret}\n`);
    const text = tail.read();
    expect(text.length).toBeLessThanOrEqual(100);
    expect(text.endsWith("line 999 [redacted]")).toBe(true);
    for (const line of text.split("\n")) expect(line).toMatch(/^line \d+ \[redacted\]$/);
  });

  test("a server that writes nothing adds nothing to the message", () => {
    expect(new StderrTail([]).explain("could not connect")).toBe("could not connect");
  });
});

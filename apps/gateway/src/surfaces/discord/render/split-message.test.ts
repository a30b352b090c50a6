import { describe, expect, test } from "bun:test";
import { splitMessage } from "./split-message.ts";

function fencesBalanced(chunk: string): boolean {
  return chunk.split("\n").filter((l) => /^ {0,3}```/.test(l)).length % 2 === 0;
}

describe("splitMessage", () => {
  test("short text is one message, empty text is none", () => {
    expect(splitMessage("hello")).toEqual(["hello"]);
    expect(splitMessage("   ")).toEqual([]);
  });

  test("splits prose at line breaks within the limit and loses nothing", () => {
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i} ${"x".repeat(20)}`);
    const text = lines.join("\n");
    const chunks = splitMessage(text, 2000);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(2000);
    expect(chunks.join("\n")).toBe(text);
  });

  test("a code block cut in two is closed and reopened with its language", () => {
    const code = Array.from({ length: 200 }, (_, i) => `const v${i} = ${i}; // ${"c".repeat(10)}`).join("\n");
    const text = `Here is the code:\n\`\`\`ts\n${code}\n\`\`\`\nDone.`;
    const chunks = splitMessage(text, 2000);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(2000);
      expect(fencesBalanced(c)).toBe(true);
    }
    for (const c of chunks.slice(1)) {
      if (c.includes("const v")) expect(c.startsWith("```ts\n")).toBe(true);
    }
    // Every code line survives exactly once.
    const all = chunks.join("\n");
    for (let i = 0; i < 200; i++) expect(all.split(`const v${i} = ${i};`).length - 1).toBe(1);
    expect(chunks.at(-1)!.endsWith("Done.")).toBe(true);
  });

  test("a single line longer than the limit is cut into pieces, preferring spaces", () => {
    const words = Array.from({ length: 1000 }, (_, i) => `w${i}`).join(" ");
    const chunks = splitMessage(words, 500);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(500);
    expect(chunks.join(" ").split(" ")).toEqual(words.split(" "));
  });

  test("a long unbroken line inside a code block keeps fences balanced", () => {
    const text = "```\n" + "a".repeat(5000) + "\n```";
    const chunks = splitMessage(text, 1000);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(1000);
      expect(fencesBalanced(c)).toBe(true);
      expect(c.startsWith("```")).toBe(true);
    }
    expect(
      chunks
        .join("")
        .replace(/```\n?/g, "")
        .replace(/\n/g, ""),
    ).toBe("a".repeat(5000));
  });

  test("an unclosed fence in the source is closed in the last message", () => {
    const text = "```py\n" + Array.from({ length: 100 }, () => "print(1)".padEnd(30, " ")).join("\n");
    const chunks = splitMessage(text, 500);
    for (const c of chunks) expect(fencesBalanced(c)).toBe(true);
  });

  test("a block opened with a longer fence is closed with it, never pushing a message over the limit", () => {
    const text =
      "`````md\n" + Array.from({ length: 300 }, (_, i) => `row ${i} ${"r".repeat(20)}`).join("\n") + "\n`````\nafter";
    const chunks = splitMessage(text, 2000);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(2000);
    for (const c of chunks.slice(0, -1)) expect(c.endsWith("\n`````")).toBe(true);
    const long = "``````\n" + "q".repeat(5000) + "\n``````";
    for (const c of splitMessage(long, 1000)) expect(c.length).toBeLessThanOrEqual(1000);
  });

  test("a shorter fence or one with text after it inside a block does not end the block", () => {
    const inner = ["`````md", "```inner```", "```", "still code", "`````"].join("\n");
    const text = `${inner}\n${"prose ".repeat(400)}`;
    const chunks = splitMessage(text, 2000);
    expect(chunks[0]!.startsWith(inner)).toBe(true);
    // The prose after the block is not wrapped in a code block.
    for (const c of chunks.slice(1)) expect(c.startsWith("`")).toBe(false);
  });

  test("a message never ends with an empty code block (the opener moves to the next message)", () => {
    const text = `${"p".repeat(1990)}\n\`\`\`ts\n${"c".repeat(100)}\n\`\`\``;
    const chunks = splitMessage(text, 2000);
    expect(chunks).toEqual(["p".repeat(1990), `\`\`\`ts\n${"c".repeat(100)}\n\`\`\``]);
  });

  test("random mixes of fences, long lines and prose: every message within the limit, non-empty, nothing lost", () => {
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const pieces = [
      "```",
      "```ts",
      "````",
      "~~~",
      "``` x",
      "```a```",
      "word ".repeat(50),
      "y".repeat(2500),
      "",
      "  ```py",
      "text",
    ];
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: 5 + rand(40) }, () => pieces[rand(pieces.length)]!);
      const text = lines.join("\n");
      const chunks = splitMessage(text, 2000);
      for (const c of chunks) {
        expect(c.length).toBeLessThanOrEqual(2000);
        expect(c.trim().length).toBeGreaterThan(0);
      }
      const letters = (s: string) => s.replace(/[^a-z]/g, "").length;
      expect(letters(chunks.join(""))).toBeGreaterThanOrEqual(letters(text));
    }
  });
});

import { describe, expect, test } from "bun:test";
import { omittedMarker } from "./cut.ts";
import { cutText, escapeInvisible, graphemeBoundary, hasInvisible } from "./index.ts";

describe("cutText", () => {
  test("leaves text that fits untouched", () => {
    expect(cutText("hello", 5)).toBe("hello");
  });

  test("says how much was left out and stays within the limit", () => {
    const out = cutText("a".repeat(5000), 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out).toEndWith(omittedMarker(5000 - out.indexOf("…")));
    expect(out).toContain("more characters");
  });

  const clusters = [
    ["ZWJ family", "👨‍👩‍👧‍👦"],
    ["flag", "🇫🇷"],
    ["combining marks", "e\u0301\u0302"],
    ["skin tone", "👍🏽"],
    ["astral", "𝄞"],
  ] as const;
  for (const [name, cluster] of clusters) {
    test(`never splits a ${name}, at any limit`, () => {
      const text = `ab${cluster.repeat(30)}`;
      for (let max = 0; max <= text.length; max++) {
        const out = cutText(text, max, { marker: () => "" });
        expect(out.length).toBeLessThanOrEqual(max);
        // What is kept is whole clusters: removing them leaves nothing but the prefix.
        expect(out.slice(2).split(cluster).join("")).toBe("");
        expect(out.startsWith("ab".slice(0, Math.min(2, max)))).toBe(true);
      }
    });
  }

  test("a limit smaller than the marker keeps only what fits", () => {
    expect(cutText("abcdefghij", 3)).toBe("abc");
  });

  test("cuts a Zalgo stack longer than the segment window on a code-point boundary", () => {
    const text = `x${"\u0301".repeat(1000)}`;
    const at = graphemeBoundary(text, 500);
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThanOrEqual(500);
  });

  test("never leaves a lone surrogate when the window starts inside a pair", () => {
    const text = "😀".repeat(200);
    for (const max of [129, 130, 131, 255, 256, 257]) {
      const out = cutText(text, max, { marker: () => "" });
      expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out)).toBe(false);
    }
  });
});

describe("escapeInvisible", () => {
  const payloads: Array<[string, string, string]> = [
    ["right-to-left override", "rm -rf /\u202Etxt.exe", "\\u{202E}"],
    ["bidi isolate", "a\u2066b\u2069", "\\u{2066}"],
    ["zero-width space", "ad\u200Bmin", "\\u{200B}"],
    ["zero-width joiner", "a\u200Db", "\\u{200D}"],
    ["byte-order mark", "\uFEFFx", "\\u{FEFF}"],
    ["escape sequence", "\u001b[2J", "\\u{001B}"],
    ["carriage return", "ok\rfake", "\\u{000D}"],
    ["C1 control", "a\u0085b", "\\u{0085}"],
    ["line separator", "a\u2028b", "\\u{2028}"],
    ["lone high surrogate", "a\ud800b", "\\u{D800}"],
    ["lone low surrogate", "a\udc00b", "\\u{DC00}"],
    ["tag character", "a\u{E0041}b", "\\u{E0041}"],
  ];
  for (const [name, input, shown] of payloads) {
    test(`shows a ${name}`, () => {
      const out = escapeInvisible(input);
      expect(out).toContain(shown);
      expect(hasInvisible(out)).toBe(false);
      expect(hasInvisible(input)).toBe(true);
    });
  }

  test("keeps newlines, tabs, emoji and ordinary text", () => {
    const text = "line 1\n\tline 2 👨‍👩‍👧 café";
    expect(escapeInvisible(text)).toBe(text);
    // A joiner is kept only between two pictographs; next to letters it is shown.
    expect(escapeInvisible("👨\u200Dx")).toBe("👨\\u{200D}x");
    expect(escapeInvisible("x\u200D👨")).toBe("x\\u{200D}👨");
  });
});

import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { formatIssues, redactBounded, REPORT_MAX_CHARS, REPORT_MAX_ISSUES } from "./validation-report.ts";

describe("formatIssues", () => {
  test("200,000 wrong-typed items: the first issues, then how many more, within the cap", () => {
    const result = z.object({ items: z.array(z.string()) }).safeParse({ items: new Array(200_000).fill(0) });
    const report = formatIssues(result.error!.issues);
    expect(report.length).toBeLessThanOrEqual(REPORT_MAX_CHARS);
    expect(report.startsWith("items.0: ")).toBe(true);
    expect(report.split("; items.").length).toBe(REPORT_MAX_ISSUES);
    expect(report).toEndWith("; … and 199,980 more issues");
  });

  test("few issues are listed whole; a root issue is named (input)", () => {
    expect(formatIssues([{ path: [], message: "expected object" }])).toBe("(input): expected object");
    expect(
      formatIssues([
        { path: ["a", 0], message: "x" },
        { path: ["b"], message: "y" },
      ]),
    ).toBe("a.0: x; b: y");
  });

  test("a huge path or message is cut on a grapheme boundary with a marker; the total stays capped", () => {
    const issues = Array.from({ length: 5 }, () => ({ path: ["😀".repeat(10_000)], message: "bad" }));
    const report = formatIssues(issues);
    expect(report.length).toBeLessThanOrEqual(REPORT_MAX_CHARS);
    expect(report).toContain("more characters");
    expect((report as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true);
  });
});

describe("redactBounded", () => {
  const redact = (t: string) => t.replaceAll("s3cret-token", "[redacted]");
  test("redacts, then cuts; the marker counts what was left out of the original", () => {
    expect(redactBounded("short s3cret-token", 100, redact)).toBe("short [redacted]");
    const out = redactBounded(`s3cret-token ${"x".repeat(10_000_000)}`, 200, redact);
    expect(out.length).toBeLessThanOrEqual(200);
    expect(out.startsWith("[redacted] x")).toBe(true);
    expect(out).toMatch(/… 9,999,\d{3} more characters$/);
  });
  test("a secret straddling the pre-cut never survives in part", () => {
    const text = "a".repeat(799) + "s3cret-token" + "b".repeat(100);
    const out = redactBounded(text, 200, redact);
    expect(out).not.toContain("s3cret");
  });
});

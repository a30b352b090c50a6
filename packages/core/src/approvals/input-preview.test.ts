import { describe, expect, test } from "bun:test";
import { createRedactor } from "../receipts/redact.ts";
import { hasInvisible } from "../text/index.ts";
import {
  INPUT_TOO_LARGE,
  MAX_INPUT_JSON,
  approvalInput,
  flattenInput,
  previewInputJson,
  renderInputPreview,
  requestInputPreview,
} from "./input-preview.ts";

const preview = (value: unknown, maxChars: number) => renderInputPreview(flattenInput(value), { maxChars });

describe("flattenInput", () => {
  test("names nested fields a.b[2].c, quotes keys that are not identifiers, keeps input order", () => {
    const flat = flattenInput({ a: { b: [1, 2, { c: true }] }, "x y": null, "": "empty key", list: [], obj: {} });
    expect(flat.fields).toEqual([
      { path: "a.b[0]", value: "1" },
      { path: "a.b[1]", value: "2" },
      { path: "a.b[2].c", value: "true" },
      { path: '["x y"]', value: "null" },
      { path: '[""]', value: '"empty key"' },
      { path: "list", value: "[]" },
      { path: "obj", value: "{}" },
    ]);
    expect(flat.total).toBe(7);
  });

  test("a non-object input is one field; BigInt, Date, Map and cycles do not throw", () => {
    expect(flattenInput("hi").fields).toEqual([{ path: "(input)", value: '"hi"' }]);
    const o: Record<string, unknown> = { n: 10n, at: new Date(0), m: new Map([["k", 1]]) };
    o.self = o;
    expect(flattenInput(o).fields).toEqual([
      { path: "n", value: '"10n"' },
      { path: "at", value: '"1970-01-01T00:00:00.000Z"' },
      { path: "m.k", value: "1" },
      { path: "self", value: '"[circular]"' },
    ]);
  });

  test("very deep and very wide inputs are counted without overflowing the stack", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const flat = flattenInput({ deep });
    expect(flat.total).toBe(1);
    expect(flat.fields[0]!.path.startsWith("deep[0][0]")).toBe(true);
    const wide = flattenInput({ items: Array.from({ length: 100_000 }, (_, i) => i) }, 50);
    expect(wide.fields).toHaveLength(50);
    expect(wide.total).toBe(100_000);
  });
});

describe("renderInputPreview", () => {
  test("a field after a long one stays visible; the long one says how much was cut", () => {
    const out = preview({ body: "x".repeat(5000), to: "attacker@evil.example", cc: "me@example.com" }, 500);
    expect(out.length).toBeLessThanOrEqual(500);
    const lines = out.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^body: "x+… [\d,]+ more characters$/);
    expect(lines[1]).toBe('to: "attacker@evil.example"');
    expect(lines[2]).toBe('cc: "me@example.com"');
    const kept = lines[0]!.length - 'body: "'.length + 1 - /… [\d,]+ more characters$/.exec(lines[0]!)![0].length;
    expect(Number(/… ([\d,]+) more/.exec(lines[0]!)![1]!.replace(/,/g, ""))).toBe(5002 - kept);
  });

  test("short fields are shown whole and long ones share what is left", () => {
    const out = preview({ a: "y".repeat(3000), b: "short", c: "z".repeat(3000) }, 700);
    const [a, b, c] = out.split("\n");
    expect(b).toBe('b: "short"');
    expect(Math.abs(a!.length - c!.length)).toBeLessThanOrEqual(2);
    expect(out.length).toBeGreaterThan(650); // the budget is used, not wasted
  });

  test("hundreds of fields: each shown one has its name and a prefix, the rest are counted", () => {
    const input = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [`field_${i}`, `value ${i} ${"v".repeat(100)}`]),
    );
    const out = preview(input, 3000);
    expect(out.length).toBeLessThanOrEqual(3000);
    const lines = out.split("\n");
    const note = lines.pop()!;
    const hidden = Number(/^… and ([\d,]+) more fields not shown$/.exec(note)![1]!.replace(/,/g, ""));
    expect(lines.length + hidden).toBe(400);
    lines.forEach((line, i) => expect(line.startsWith(`field_${i}: "value ${i}`)).toBe(true));
  });

  test("every field of 60 long ones gets its name and a prefix within a card-sized budget", () => {
    const input = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, "w".repeat(2000)]));
    const lines = preview(input, 3500).split("\n");
    expect(lines).toHaveLength(60);
    lines.forEach((line, i) => expect(line).toMatch(new RegExp(`^f${i}: "w+… [\\d,]+ more characters$`)));
  });

  test("never exceeds the budget, whatever the budget and the input", () => {
    const inputs = [
      { a: 1 },
      { long: "q".repeat(10_000), n: [1, 2, 3], nested: { deep: { er: "x".repeat(300) } } },
      Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`.repeat(40), i])),
      { emoji: "👨‍👩‍👧".repeat(500), bidi: "\u202E".repeat(300) },
    ];
    for (const input of inputs) {
      for (const max of [0, 1, 5, 20, 40, 80, 200, 500, 1000, 4000]) {
        const out = preview(input, max);
        expect({ max, length: out.length <= max }).toEqual({ max, length: true });
        expect((out as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true);
      }
    }
  });

  test("a huge field name is cut with a marker and cannot take the whole budget", () => {
    const out = preview({ ["k".repeat(5000)]: 1, after: "seen" }, 400);
    expect(out).toContain("more characters");
    expect(out).toContain('after: "seen"');
  });

  test("bidi overrides, zero-width and control characters are escaped in names and values", () => {
    const input = {
      ["ad\u200Bmin"]: "rm -rf /\u202Etxt.exe",
      note: "a\u2066b\u2069c\u200Dd\uFEFF",
      ["x\u202Ey"]: { ["\u0007"]: 1 },
    };
    const out = preview(input, 2000);
    expect(hasInvisible(out)).toBe(false);
    expect(out).toContain('["ad\\u{200B}min"]: "rm -rf /\\u{202E}txt.exe"');
    expect(out).toContain("\\u{2066}");
    expect(out).toContain("\\u{200D}");
    expect(out).toContain("\\u{FEFF}");
    expect(out).toContain('["x\\u{202E}y"]');
  });

  test("an empty input is shown as such", () => {
    expect(preview({}, 100)).toBe("(input): {}");
  });
});

describe("approvalInput", () => {
  const SECRET = "wx-live-7f3c9a1e5b2d4c6f8a0e";
  const redact = createRedactor([SECRET]);

  test("secrets are redacted in keys and values before anything is cut; inputJson is the whole input", () => {
    const input = {
      pad: "p".repeat(600),
      url: `https://x.example/?key=${encodeURIComponent(SECRET)}`,
      [SECRET]: Buffer.from(SECRET).toString("base64"),
      after: "visible",
    };
    const { inputPreview, inputJson } = approvalInput(input, redact, 300);
    expect(inputPreview.length).toBeLessThanOrEqual(300);
    expect(inputPreview).toContain('after: "visible"');
    const full = JSON.parse(inputJson) as Record<string, unknown>;
    expect(Object.keys(full)).toEqual(["pad", "url", "[redacted]", "after"]);
    expect(full.pad).toBe("p".repeat(600));
    expect(full.url).toBe("https://x.example/?key=[redacted]");
    expect(full["[redacted]"]).toBe("[redacted]");
    for (const text of [inputPreview, inputJson]) expect(text).not.toContain(SECRET.slice(8));
  });

  test("previewInputJson renders any budget from the stored JSON, and shows non-JSON text escaped", () => {
    const { inputJson } = approvalInput({ a: "x".repeat(900), b: 2 }, redact, 100);
    expect(previewInputJson(inputJson, { maxChars: 200 })).toMatch(/^a: "x+… [\d,]+ more characters\nb: 2$/);
    expect(previewInputJson("not json \u202E", { maxChars: 100 })).toBe("not json \\u{202E}");
  });

  test("an input too large to keep whole: the JSON is cut and says so, the stored preview still lists every field", () => {
    const input = { big: "x".repeat(MAX_INPUT_JSON + 100_000), after: "seen\u202E" };
    const request = approvalInput(input, redact, 500);
    expect(request.inputJson.length).toBeLessThanOrEqual(MAX_INPUT_JSON);
    expect(request.inputJson.endsWith(INPUT_TOO_LARGE)).toBe(true);
    const shown = requestInputPreview(request, { maxChars: 3500 });
    expect(shown).toMatch(/^big: "x+… [\d,]+ more characters\nafter: "seen\\u\{202E\}"$/);
    expect(shown.length).toBeGreaterThan(3000);
    // A record from before inputJson existed: its stored text, escaped and cut.
    expect(requestInputPreview({ inputPreview: `a: "${"y".repeat(50)}\u200B"` }, { maxChars: 30 })).toMatch(
      /^a: "y+… [\d,]+ more characters$/,
    );
  });
});

import { describe, expect, test } from "bun:test";
import { DISCORD_LIMITS, echo, fitMessage, fitModal, fitThreadName } from "./fit.ts";

const FAMILY = "👨‍👩‍👧‍👦"; // one grapheme, 11 UTF-16 units
const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe("fitMessage", () => {
  test("content over 2000 is cut on a grapheme boundary and says how much was left out", () => {
    const out = fitMessage({ content: FAMILY.repeat(400) });
    expect(out.content.length).toBeLessThanOrEqual(DISCORD_LIMITS.content);
    expect(out.content).toContain("more characters");
    expect(out.content.replace(/… [\d,]+ more characters$/, "").replaceAll(FAMILY, "")).toBe("");
  });

  test("embeds: every field within its limit and the total within 6000", () => {
    const big = "é\u0301".repeat(3000);
    const out = fitMessage({
      embeds: [
        {
          title: big,
          description: big,
          footer: { text: big },
          fields: Array.from({ length: 30 }, () => ({ name: big, value: big })),
        },
        { description: big },
      ],
    });
    const [a, b] = out.embeds as Array<Record<string, any>>;
    expect(a!.title.length).toBeLessThanOrEqual(256);
    expect(a!.fields.length).toBeLessThanOrEqual(25);
    for (const f of a!.fields) expect(f.value.length).toBeLessThanOrEqual(1024);
    const total = [a!, b!].reduce(
      (n, e) =>
        n +
        (e.title?.length ?? 0) +
        (e.description?.length ?? 0) +
        (e.footer?.text?.length ?? 0) +
        (e.fields ?? []).reduce((m: number, f: any) => m + f.name.length + f.value.length, 0),
      0,
    );
    expect(total).toBeLessThanOrEqual(6000);
  });

  test("components: at most 5 rows of 5, duplicate or over-long custom ids dropped, labels cut", () => {
    const btn = (id: string) => ({ type: 2, style: 1, label: "L".repeat(100), custom_id: id });
    const out = fitMessage({
      components: Array.from({ length: 7 }, (_, r) => ({
        type: 1,
        components: [
          btn(`a${r}`),
          btn(`a${r}`),
          btn("x".repeat(101)),
          ...Array.from({ length: 6 }, (_, i) => btn(`r${r}b${i}`)),
        ],
      })),
    });
    const rows = out.components as Array<{ components: Array<{ custom_id: string; label: string }> }>;
    expect(rows).toHaveLength(5);
    for (const r of rows) {
      expect(r.components.length).toBeLessThanOrEqual(5);
      expect(new Set(r.components.map((c) => c.custom_id)).size).toBe(r.components.length);
      for (const c of r.components) expect(c.label.length).toBeLessThanOrEqual(80);
    }
  });

  test("a lone surrogate becomes U+FFFD; an empty message gets text", () => {
    expect(wellFormed(fitMessage({ content: "half \ud83d" }).content)).toBe(true);
    expect(fitMessage({ content: "" }).content).toBe("(empty)");
  });
});

describe("fitModal, thread names, echoes", () => {
  test("modal title and text-input label ≤ 45, max_length ≤ 4000", () => {
    const m = fitModal({
      custom_id: "m",
      title: "T".repeat(60),
      components: [
        { type: 1, components: [{ type: 4, custom_id: "r", label: "L".repeat(60), style: 2, max_length: 9000 }] },
      ],
    });
    expect(m.title.length).toBeLessThanOrEqual(45);
    expect(m.components[0]!.components[0]!.label.length).toBeLessThanOrEqual(45);
    expect(m.components[0]!.components[0]!.max_length).toBe(4000);
  });

  test("thread names fit 100 and never split an emoji; echoes are short and one line", () => {
    const name = fitThreadName(FAMILY.repeat(30));
    expect(name.length).toBeLessThanOrEqual(100);
    expect(wellFormed(name)).toBe(true);
    expect(fitThreadName("   ")).toBe("Conversation");
    const e = echo(`${"x".repeat(5000)}\n\`code\``);
    expect(e.length).toBeLessThanOrEqual(60);
    expect(e).not.toContain("\n");
  });
});

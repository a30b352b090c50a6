import { describe, expect, test } from "bun:test";
import { findForbiddenKey, forbiddenKeyMessage, mayHaveForbiddenKey } from "./plain-input.ts";

describe("findForbiddenKey", () => {
  test("finds own __proto__ / constructor / prototype keys at any depth, naming the path", () => {
    const cases: Array<[string, string]> = [
      ['{"__proto__": {"polluted": true}}', "__proto__"],
      ['{"constructor": {"prototype": {"polluted": true}}}', "constructor"],
      ['{"a": {"b": {"prototype": 1}}}', "a.b.prototype"],
      ['{"list": [1, {"ok": 2}, {"x": {"__proto__": null}}]}', "list[2].x.__proto__"],
      ['[{"__proto__": {}}]', "[0].__proto__"],
      ['{"a": [[[{"constructor": "x"}]]]}', "a[0][0][0].constructor"],
    ];
    for (const [json, path] of cases) expect(findForbiddenKey(JSON.parse(json))).toBe(path);
  });

  test("plain data passes, including the words as values and as parts of longer keys", () => {
    for (const json of [
      '{"a": "__proto__", "b": ["constructor", "prototype"]}',
      '{"__proto__x": 1, "my_constructor": 2, "Prototype": 3}',
      "null",
      "42",
      '"s"',
      "[]",
      "{}",
    ])
      expect(findForbiddenKey(JSON.parse(json))).toBeUndefined();
  });

  test("deep nesting does not overflow the stack", () => {
    const depth = 50_000;
    const json = '{"a":'.repeat(depth) + '{"__proto__": 1}' + "}".repeat(depth);
    expect(findForbiddenKey(JSON.parse(json))).toEndWith(".a.__proto__");
  });

  test("the message names the field and what to do, and stays bounded", () => {
    expect(forbiddenKeyMessage("a.b.__proto__")).toBe(
      'a.b.__proto__: a key named "__proto__" is not accepted in tool inputs (keys named __proto__, constructor or prototype are refused so they cannot reach a tool\'s objects); rename the field',
    );
    expect(forbiddenKeyMessage(`${"x.".repeat(5_000)}constructor`).length).toBeLessThan(400);
  });
});

describe("mayHaveForbiddenKey (the text test before the walk)", () => {
  const forbiddenTexts = [
    '{"__proto__": {"polluted": true}}',
    '{"a": [{"constructor": {"prototype": 1}}]}',
    // Escapes spell a forbidden key without writing it: each is caught by its backslash.
    '{"\\u005f_proto__": {"polluted": true}}',
    '{"constr\\u0075ctor": 1}',
    '{"a": {"\\u0070rototype": 1}}',
    '{"\\u005F\\u005Fproto\\u005F\\u005F": 1}',
  ];

  test("every text whose value has a forbidden key passes the test, escaped spellings included", () => {
    for (const json of forbiddenTexts) {
      expect(findForbiddenKey(JSON.parse(json))).toBeDefined();
      expect(mayHaveForbiddenKey(json)).toBe(true);
    }
  });

  test("it agrees with the walk on generated inputs: never false where the walk finds a key", () => {
    const words = ["__proto__", "constructor", "prototype", "proto", "construct", "a", "_", "id", "Prototype"];
    const escaped = (w: string) => [...w].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    // mulberry32: seeded, so a failure reproduces.
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n) | 0;
    };
    const key = () => {
      const w = words[rand(words.length)]!;
      const i = rand(w.length + 1);
      // Sometimes one character of the key is written as an escape.
      return rand(4) === 0 ? `${w.slice(0, i)}${escaped(w.slice(i, i + 1))}${w.slice(i + 1)}` : w;
    };
    const value = (depth: number): string => {
      const pick = depth > 3 ? rand(3) : rand(5);
      if (pick === 0) return String(rand(100));
      if (pick === 1) return `"${key()}"`;
      if (pick === 2) return "null";
      if (pick === 3) return `[${Array.from({ length: rand(3) }, () => value(depth + 1)).join(",")}]`;
      return `{${Array.from({ length: rand(3) }, () => `"${key()}":${value(depth + 1)}`).join(",")}}`;
    };
    let found = 0;
    let foundEscaped = 0;
    for (let i = 0; i < 5_000; i++) {
      const json = value(0);
      const walk = findForbiddenKey(JSON.parse(json));
      if (walk !== undefined) {
        found++;
        // The key the walk found, spelled only with an escape: nothing but the backslash gives it away.
        if (!json.includes(`"${walk.slice(walk.lastIndexOf(".") + 1)}"`)) foundEscaped++;
        expect(mayHaveForbiddenKey(json)).toBe(true);
      }
    }
    // The generator does produce forbidden keys, escaped and not, so the agreement means something.
    expect(found).toBeGreaterThan(200);
    expect(foundEscaped).toBeGreaterThan(20);
  });

  test("plain inputs without the words or a backslash skip the walk", () => {
    for (const json of ['{"id": 7}', '{"text": "a proto type"}', "[]", '{"a": {"b": [1, 2, "c"]}}'])
      expect(mayHaveForbiddenKey(json)).toBe(false);
  });
});

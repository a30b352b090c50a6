import { describe, expect, test } from "bun:test";
import { findForbiddenKey, forbiddenKeyMessage } from "./plain-input.ts";

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

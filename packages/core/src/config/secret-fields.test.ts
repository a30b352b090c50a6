import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { secretValuesByKeyName, secretValuesBySchema } from "./secret-fields.ts";

describe("secretValuesBySchema", () => {
  test("records, unions, arrays, pattern properties and local $refs; `secret` or `writeOnly` marks", () => {
    const schema = {
      type: "object",
      $defs: { cred: { type: "string", writeOnly: true } },
      properties: {
        name: { type: "string" },
        pin: { type: "string", secret: true },
        keys: { type: "array", items: { $ref: "#/$defs/cred" } },
        headers: { type: "object", additionalProperties: { type: "string", secret: true } },
        auth: {
          oneOf: [
            { type: "object", properties: { kind: { const: "a" }, token: { type: "string", secret: true } } },
            { type: "object", properties: { kind: { const: "b" }, user: { type: "string" } } },
          ],
        },
        nested: { type: "object", patternProperties: { "^s_": { secret: true } } },
      },
    };
    const value = {
      name: "plain",
      pin: "1234",
      keys: ["k-one", "k-two"],
      headers: { a: "h-one" },
      auth: { kind: "a", token: "t-one", user: "not-secret" },
      nested: { s_deep: { x: "deep-one" }, other: "plain-too" },
    };
    expect(secretValuesBySchema(schema, value).sort()).toEqual(
      ["1234", "deep-one", "h-one", "k-one", "k-two", "t-one"].sort(),
    );
  });

  test("a zod schema's .meta({ secret: true }) fields, and a schema that does not fit the value, find nothing else", () => {
    const schema = z.toJSONSchema(z.object({ pin: z.string().meta({ secret: true }).optional(), region: z.string() }));
    expect(secretValuesBySchema(schema, { pin: "-starts-with-dash", region: "eu" })).toEqual(["-starts-with-dash"]);
    expect(secretValuesBySchema(schema, ["pin"])).toEqual([]);
    expect(secretValuesBySchema(undefined, { pin: "x" })).toEqual([]);
  });
});

test("secretValuesByKeyName: every string under a key that says credential, at any depth", () => {
  expect(
    secretValuesByKeyName({
      weather: {
        apiKey: "k1",
        endpoint: "https://x",
        nested: [{ password: "p1" }],
        credentials: { user: "u", pass: "p2" },
      },
      other: { clientSecret: "s1", region: "eu" },
    }).sort(),
  ).toEqual(["k1", "p1", "p2", "s1", "u"].sort());
});

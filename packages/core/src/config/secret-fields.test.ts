import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { configSchema } from "./schema.ts";
import {
  configSecretValues,
  marksSecret,
  SECRET_KEY,
  secretValuesByKeyName,
  secretValuesBySchema,
} from "./secret-fields.ts";

/** Every string field of a JSON Schema, as a path (`*` for a record's values), and whether it is marked secret. */
function stringFields(node: unknown, path: string[] = []): Array<{ path: string; marked: boolean }> {
  const s = node as Record<string, unknown>;
  if (!s || typeof s !== "object") return [];
  if (s.type === "string") return [{ path: path.join("."), marked: marksSecret(s) }];
  const out: Array<{ path: string; marked: boolean }> = [];
  for (const key of ["anyOf", "oneOf", "allOf"])
    for (const branch of (s[key] as unknown[] | undefined) ?? []) out.push(...stringFields(branch, path));
  for (const [k, sub] of Object.entries((s.properties as Record<string, unknown>) ?? {}))
    out.push(...stringFields(sub, [...path, k]));
  if (s.additionalProperties && typeof s.additionalProperties === "object")
    out.push(...stringFields(s.additionalProperties, [...path, "*"]));
  if (s.items) out.push(...stringFields(s.items, [...path, "[]"]));
  return out;
}

describe("the config's credentials are marked in its schema", () => {
  const fields = stringFields(z.toJSONSchema(configSchema, { unrepresentable: "any", io: "input" }));

  test("exactly these fields are credentials (a new one must be marked and listed here)", () => {
    expect([...new Set(fields.filter((f) => f.marked).map((f) => f.path))].sort()).toEqual([
      "discord.token",
      "http.token",
      "mcp.servers.*.env.*",
      "mcp.servers.*.headers.*",
      "mcp.servers.*.oauth.clientSecret",
      "openapi.*.auth.token",
      "openapi.*.auth.value",
      "storage.url",
    ]);
  });

  test("every string field whose name says credential is marked", () => {
    const unmarked = fields.filter((f) => SECRET_KEY.test(f.path.split(".").at(-1)!) && !f.marked).map((f) => f.path);
    expect(unmarked).toEqual([]);
  });

  test("the values of the marked fields are what the config's secrets are", () => {
    const config = configSchema.parse({
      discord: { token: "d-tok" },
      http: { token: "h-tok" },
      openapi: {
        a: { spec: "a.json", auth: { type: "header", name: "X-Key", value: "oa-hdr" } },
        b: { spec: "b.json", auth: { type: "query", name: "key", value: "oa-qry" } },
        c: { spec: "c.json", auth: { type: "bearer", token: "oa-bearer" } },
      },
      mcp: {
        servers: {
          web: {
            url: "http://127.0.0.1:1/mcp",
            headers: { "x-k": "mcp-hdr" },
            oauth: { clientId: "id", clientSecret: "mcp-cs" },
          },
          cli: { command: "srv", env: { K: "mcp-env" } },
        },
      },
      model: { system: "be brief" },
    });
    expect(configSecretValues(config).sort()).toEqual(
      ["d-tok", "h-tok", "mcp-cs", "mcp-env", "mcp-hdr", "oa-bearer", "oa-hdr", "oa-qry"].sort(),
    );
  });
});

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

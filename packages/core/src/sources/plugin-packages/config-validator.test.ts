import { expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { jsonFromFreshProcess } from "@openassistant/testkit/fresh-process.ts";
import { compileConfigSchema } from "./config-validator.ts";

const SCHEMA = {
  type: "object",
  properties: {
    timezone: { type: "string", minLength: 1 },
    defaultDurationMinutes: { type: "integer", minimum: 5, default: 30 },
    tags: { type: "array", uniqueItems: true, items: { type: "string", maxLength: 8 } },
    owner: { $ref: "#/definitions/person" },
  },
  required: ["timezone"],
  additionalProperties: false,
  definitions: { person: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
};

const INPUTS: unknown[] = [
  { timezone: "Europe/Oslo" },
  { timezone: "" },
  { timezone: "UTC", defaultDurationMinutes: 2, extra: true },
  { timezone: "UTC", tags: ["a", "a", "much too long"] },
  { timezone: "UTC", owner: {} },
  { defaultDurationMinutes: "30" },
  "not an object",
];

/** What a validator does with each input: its verdict, its errors, and the defaults it filled in. */
function behaviour(validate: ReturnType<typeof compileConfigSchema>) {
  return INPUTS.map((input) => {
    const copy = structuredClone(input);
    const ok = validate(copy);
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${e.message}`);
    return { ok, errors, value: copy };
  });
}

const cacheFiles = (dir: string) =>
  existsSync(join(dir, "config-validators")) ? readdirSync(join(dir, "config-validators")) : [];

test("a cached validator behaves exactly like a freshly compiled one", () => {
  const dir = makeTempDir("oa-validators-");
  const compiled = compileConfigSchema(SCHEMA);
  const first = compileConfigSchema(SCHEMA, { dir, write: true });
  expect(cacheFiles(dir)).toHaveLength(1);
  const cached = compileConfigSchema(SCHEMA, { dir, write: true });
  expect(cached).not.toBe(first);
  expect(behaviour(cached)).toEqual(behaviour(compiled));
  expect(behaviour(first)).toEqual(behaviour(compiled));
  // Defaults are filled in, errors name the field.
  expect(behaviour(cached)[0]!.value).toEqual({ timezone: "Europe/Oslo", defaultDurationMinutes: 30 });
  expect(behaviour(cached)[2]!.errors).toContain("/defaultDurationMinutes minimum must be >= 5");
});

test("a process that finds the validator cached does not import Ajv's compiler", async () => {
  const dir = makeTempDir("oa-validators-");
  compileConfigSchema(SCHEMA, { dir, write: true });
  const script = `
    const { compileConfigSchema } = await import(${JSON.stringify(join(import.meta.dir, "config-validator.ts"))});
    const v = compileConfigSchema(${JSON.stringify(SCHEMA)}, { dir: ${JSON.stringify(dir)}, write: false });
    const loaded = Object.keys(require.cache).filter((k) => k.includes("/ajv/dist/") && !k.includes("/runtime/"));
    console.log(JSON.stringify({ ok: v({ timezone: "UTC" }), loaded }));`;
  expect(await jsonFromFreshProcess(script, { cwd: import.meta.dir })).toEqual({ ok: true, loaded: [] });
});

test("a broken cache file is compiled again; list mode reads the cache but never writes it", () => {
  const dir = makeTempDir("oa-validators-");
  compileConfigSchema(SCHEMA, { dir: join(dir, "ro"), write: false });
  expect(cacheFiles(join(dir, "ro"))).toEqual([]);

  compileConfigSchema(SCHEMA, { dir, write: true });
  const [file] = cacheFiles(dir);
  writeFileSync(join(dir, "config-validators", file!), "module.exports = ;");
  const again = compileConfigSchema(SCHEMA, { dir, write: true });
  expect(behaviour(again)).toEqual(behaviour(compileConfigSchema(SCHEMA)));
  // Rewritten: the next process loads a working one.
  expect(behaviour(compileConfigSchema(SCHEMA, { dir, write: false }))).toEqual(behaviour(compileConfigSchema(SCHEMA)));
});

test("a different schema gets its own file", () => {
  const dir = makeTempDir("oa-validators-");
  compileConfigSchema(SCHEMA, { dir, write: true });
  compileConfigSchema({ ...SCHEMA, required: [] }, { dir, write: true });
  expect(cacheFiles(dir)).toHaveLength(2);
  expect(compileConfigSchema({ ...SCHEMA, required: [] }, { dir, write: false })({})).toBe(true);
});

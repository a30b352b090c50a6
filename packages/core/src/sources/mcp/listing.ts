import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { prepareJsonSchema } from "../schema-limits.ts";
import { DESCRIPTION_LIMIT, type Refusal, REFUSED, SOURCE_LIMITS } from "../source-budget.ts";
import type { JobResult } from "../source-thread-protocol.ts";
import { LISTING_META } from "./listing-off-thread.ts";

/**
 * The source worker's part of an MCP `tools/list` answer (listing-off-thread.ts hands it over):
 * the message is parsed and checked against the SDK's own `ListToolsResultSchema` here, and what
 * goes back to the SDK on the gateway's thread is the same message with an empty tool list and
 * `_meta[LISTING_META]` naming the job whose items are the tools. `McpConnection.listTools` then
 * pulls them in bounded chunks. A message that is not a valid listing becomes a JSON-RPC error.
 */
export interface ListingInput {
  /** One server-sent event as received, with the blank line that ends it (`events`), or the whole JSON body. */
  readonly bytes: Uint8Array;
  readonly events: boolean;
  /** The id of the `tools/list` request this answers. */
  readonly requestId: string | number;
  readonly server: string;
  /**
   * What becomes of a message that does not answer the request: over HTTP it is on the listing's
   * own stream and is left out ("refuse"); over stdio it may be anything the server sends, and is
   * handed back to be read as before ("keep").
   */
  readonly others?: "refuse" | "keep";
}

export interface ListingHead {
  /** What the SDK reads instead of `bytes` (an event with its blank line). */
  readonly text: string;
  /** False when the message was not the answer and `others` is "keep": read `bytes` as they were. */
  readonly answered: boolean;
}

export function reduceListing(input: ListingInput, job: number): JobResult {
  const received = new TextDecoder().decode(input.bytes);
  let tools: unknown[] = [];
  let answered = false;
  const reduce = (message: unknown): unknown => {
    const m = message as { id?: unknown; result?: unknown; error?: { message?: unknown } } | null;
    if (m === null || typeof m !== "object" || m.id !== input.requestId) return undefined;
    answered = true;
    if (!("result" in m)) return refusal(m.id, `an error: ${String(m.error?.message ?? "(no message)")}`);
    const parsed = ListToolsResultSchema.safeParse(m.result);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
      return refusal(m.id, `something that is not a tool list: ${issue?.message ?? "invalid"}${where}`);
    }
    tools = parsed.data.tools.map(screenTool);
    return { ...m, result: { ...parsed.data, tools: [], _meta: { ...parsed.data._meta, [LISTING_META]: { job } } } };
  };
  const refusal = (id: unknown, what: string) => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32603, message: `MCP server "${input.server}" answered tools/list with ${what}`.slice(0, 1_000) },
  });
  let text = input.events ? reduceEvent(received, reduce) : reduceJson(received, reduce);
  // A large message that is not the answer (a notification, a request to the client) is not the
  // gateway's to parse on its thread: an event is left out, a JSON body answers the request.
  if (!answered && input.others === "keep") return { head: { text: "", answered } satisfies ListingHead, items: [] };
  if (!answered)
    text = input.events
      ? `: a message of ${input.bytes.byteLength} bytes that does not answer tools/list was left out\n\n`
      : JSON.stringify(refusal(input.requestId, "a message that does not answer it"));
  return { head: { text, answered } satisfies ListingHead, items: tools };
}

/** Characters of a title or description kept: the gateway cuts them to `DESCRIPTION_LIMIT` itself. */
const TEXT_KEPT = DESCRIPTION_LIMIT + 256;
/** Characters of a refused tool's name kept: enough for the diagnostic, which shows 200. */
const NAME_KEPT = 256;

/**
 * A tool as it crosses to the gateway's thread: one past a per-tool limit (its name, its input
 * schema) as a stub carrying the refusal (`SourceBudget.admit` reports it in order with the
 * source's other limits), an output schema past the limits as a plain object schema, its title
 * and description cut near the length the gateway keeps. What crosses is then bounded per tool.
 */
function screenTool(tool: Tool): Tool {
  const limits = SOURCE_LIMITS;
  const refused = (refusal: Refusal): Tool =>
    ({ name: tool.name.slice(0, NAME_KEPT), inputSchema: { type: "object" }, [REFUSED]: refusal }) as Tool;
  if (tool.name.length > limits.nameLength)
    return refused({
      stage: "name",
      reason: `its name has ${tool.name.length} characters (limit ${limits.nameLength})`,
    });
  const input = prepareJsonSchema(tool.inputSchema, limits.schema);
  if (!input.ok) return refused({ stage: "schema", reason: input.limit });
  const out: Tool = { ...tool };
  if (typeof out.title === "string") out.title = out.title.slice(0, TEXT_KEPT);
  if (typeof out.description === "string") out.description = out.description.slice(0, TEXT_KEPT);
  if (out.outputSchema !== undefined && !prepareJsonSchema(out.outputSchema, limits.schema).ok)
    Object.assign(out, { outputSchema: { type: "object" }, [REFUSED]: { stage: "output", reason: "past the limits" } });
  return out;
}

function reduceJson(text: string, reduce: (m: unknown) => unknown): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return ""; // not JSON: left out (see reduceListing)
  }
  return JSON.stringify(Array.isArray(body) ? body.map(reduce).filter((m) => m !== undefined) : reduce(body));
}

/**
 * One event of an event stream (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * its `data` lines joined are the message; the other fields are kept as they were.
 */
function reduceEvent(text: string, reduce: (m: unknown) => unknown): string {
  const lines = text.split(/\r\n|\r|\n/);
  const data: string[] = [];
  const kept: string[] = [];
  for (const line of lines) {
    if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    else if (line.length > 0) kept.push(line);
  }
  let message: unknown;
  try {
    message = JSON.parse(data.join("\n"));
  } catch {
    return ""; // not JSON: left out (see reduceListing)
  }
  const reduced = reduce(message);
  return reduced === undefined ? "" : `${[...kept, `data: ${JSON.stringify(reduced)}`].join("\n")}\n\n`;
}

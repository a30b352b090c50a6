/**
 * The source worker (started by source-thread.ts): parses and checks what a tool source sends
 * whole, off the gateway's thread. Each job's items are held here and sent in chunks on request.
 */
import { parentPort } from "node:worker_threads";
import {
  nextChunk,
  type JobResult,
  type SourceJob,
  type ThreadReply,
  type ThreadRequest,
} from "./source-thread-protocol.ts";

/**
 * Jobs whose items were not all pulled. An MCP listing the SDK gave up on is never pulled: past
 * `HELD_LIMIT` the oldest go (a job being pulled is far younger than 64 others).
 */
const held = new Map<number, { items: readonly unknown[]; at: number }>();
const HELD_LIMIT = 64;

async function run(job: SourceJob, id: number): Promise<JobResult> {
  if (job.kind === "openapi") return (await import("./openapi/parse-spec.ts")).parseSpecJob(job.input);
  if (job.kind === "declaration") return (await import("../codemode/declarations-job.ts")).declarationJob(job.input);
  return (await import("./mcp/listing.ts")).reduceListing(job.input, id);
}

function chunk(id: number): ThreadReply {
  const h = held.get(id);
  if (!h) return { t: "error", id, message: "the source worker no longer holds these items (read them sooner)" };
  const items = nextChunk(h.items, h.at);
  h.at += items.length;
  const done = h.at >= h.items.length;
  if (done) held.delete(id);
  return { t: "items", id, items, done };
}

const port = parentPort!;
port.on("message", async (m: ThreadRequest) => {
  if (m.t === "release") return void held.delete(m.id);
  if (m.t === "more") return port.postMessage(chunk(m.id));
  try {
    const result = await run(m.job, m.id);
    if (result.items.length > 0) held.set(m.id, { items: result.items, at: 0 });
    for (const old of held.keys()) if (held.size > HELD_LIMIT) held.delete(old);
    port.postMessage({ t: "head", id: m.id, head: result.head, count: result.items.length } satisfies ThreadReply);
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    const hint = (e as { hint?: unknown }).hint;
    port.postMessage({
      t: "error",
      id: m.id,
      message: e.message,
      ...(typeof hint === "string" ? { hint } : {}),
    } satisfies ThreadReply);
  }
});

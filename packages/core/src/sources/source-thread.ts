import { Worker } from "node:worker_threads";
import type { SourceJob, ThreadReply, ThreadRequest } from "./source-thread-protocol.ts";

/**
 * The gateway's side of the source worker (source-worker.ts): a thread that parses what a tool
 * source sends whole (an OpenAPI spec, an MCP server's `tools/list` message) and checks it, so
 * that work whose size someone else decides never runs on the gateway's event loop. What comes
 * back is a small head, then the items (operations, tools) in chunks of at most `CHUNK_CHARS` of
 * JSON each, one chunk per request: receiving one is a bounded stretch of work, and the event loop
 * runs between chunks (other conversations, Discord acknowledgements, `/health`).
 */
export interface OffThreadResult<H> {
  readonly head: H;
  /** Names the held items for `pullItems` (an MCP listing is pulled after the SDK has its answer). */
  readonly id: number;
  readonly count: number;
}

let thread: SourceThread | undefined;

/** Runs `job` on the source worker (started on first use); its items stay there until pulled. */
export function runOffThread<H>(job: SourceJob, transfer: ArrayBuffer[] = []): Promise<OffThreadResult<H>> {
  thread ??= new SourceThread();
  return thread.run(job, transfer) as Promise<OffThreadResult<H>>;
}

/** The items of a job, chunk by chunk, the event loop let in between chunks. */
export async function* pullItems<I>(id: number, count: number): AsyncGenerator<I[]> {
  if (count === 0) return;
  const t = thread;
  if (!t) throw new Error("the source worker stopped before its items were read");
  for (;;) {
    const { items, done } = await t.more(id);
    yield items as I[];
    if (done) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Every item of a job, in order (chunked as `pullItems`). */
export async function allItems<I>(id: number, count: number): Promise<I[]> {
  const out: I[] = [];
  for await (const chunk of pullItems<I>(id, count)) for (const item of chunk) out.push(item);
  return out;
}

/** Lets the worker drop a job's items nobody will read. */
export function releaseItems(id: number): void {
  thread?.release(id);
}

type Waiter = { resolve(reply: ThreadReply): void; reject(error: Error): void };

class SourceThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiter>();
  private next = 0;

  constructor() {
    this.worker = new Worker(new URL("./source-worker.ts", import.meta.url));
    // Idle, the thread does not keep the process alive; a job in flight does (see `ask`).
    this.worker.unref();
    this.worker.on("message", (reply: ThreadReply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      this.refIfBusy();
      if (reply.t === "error")
        w.reject(Object.assign(new Error(reply.message), reply.hint ? { hint: reply.hint } : {}));
      else w.resolve(reply);
    });
    const fail = (error: Error) => {
      if (thread === this) thread = undefined;
      for (const w of this.waiting.values()) w.reject(new Error(`the source worker stopped: ${error.message}`));
      this.waiting.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`exit code ${code}`)));
  }

  async run(job: SourceJob, transfer: ArrayBuffer[]): Promise<OffThreadResult<unknown>> {
    const id = ++this.next;
    const reply = await this.ask({ t: "job", id, job }, id, transfer);
    if (reply.t !== "head") throw new Error("the source worker answered a job without its head");
    return { head: reply.head, id, count: reply.count };
  }

  async more(id: number): Promise<{ items: unknown[]; done: boolean }> {
    const reply = await this.ask({ t: "more", id }, id);
    if (reply.t !== "items") throw new Error("the source worker answered without items");
    return reply;
  }

  release(id: number): void {
    this.worker.postMessage({ t: "release", id } satisfies ThreadRequest);
  }

  private ask(request: ThreadRequest, id: number, transfer: ArrayBuffer[] = []): Promise<ThreadReply> {
    return new Promise<ThreadReply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.refIfBusy();
      this.worker.postMessage(request, transfer);
    });
  }

  private refIfBusy(): void {
    if (this.waiting.size > 0) this.worker.ref();
    else this.worker.unref();
  }
}

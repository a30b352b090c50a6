/**
 * Raw round trip between two Bun processes over each transport the sandbox could use, with the
 * shapes of a tool crossing (parent: an answer; child: the next call). No VM, no pool: what the
 * transport alone costs per crossing. Transports are interleaved in rounds (this VM is noisy).
 */
import { join } from "node:path";
import type { FileSink, Subprocess } from "bun";
import { printTable, quantiles } from "./lib.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";

const CHILD = join(import.meta.dir, "transport.child.ts");
const N = 2000;
const ROUNDS = 5;
const answer = (seq: number) => ({
  t: "res",
  seq,
  r: [[seq, '{"id":7,"path":"calendar.get","title":"Standup","input":{"id":1}}']],
});

interface Channel {
  roundTrip(seq: number): Promise<unknown>;
  close(): Promise<void>;
}

function ndjsonReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async () => {
    for (;;) {
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return JSON.parse(line) as unknown;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the echo child closed its output");
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

const spawnChild = (args: string[], extra: Record<string, unknown>) =>
  Bun.spawn([process.execPath, "--smol", CHILD, ...args], { stderr: "inherit", ...extra }) as Subprocess;

const transports: Record<string, () => Promise<Channel>> = {
  "Bun IPC, json (the pool's)": async () => ipc("json"),
  "Bun IPC, advanced": async () => ipc("advanced"),
  "stdin/stdout pipes, NDJSON": async () => {
    const proc = spawnChild(["pipe"], { stdin: "pipe", stdout: "pipe" });
    const sink = proc.stdin as FileSink;
    const next = ndjsonReader(proc.stdout as ReadableStream<Uint8Array>);
    return {
      roundTrip(seq) {
        sink.write(`${JSON.stringify(answer(seq))}\n`);
        sink.flush();
        return next();
      },
      close: () => stop(proc),
    };
  },
  "unix socket, NDJSON": async () => {
    const path = join(makeTempDir("oa-bench-transport-"), "s.sock");
    let resolve: (m: unknown) => void = () => {};
    let connected!: (socket: Bun.Socket) => void;
    const socketReady = new Promise<Bun.Socket>((r) => (connected = r));
    let buffered = "";
    const server = Bun.listen({
      unix: path,
      socket: {
        open: (socket) => connected(socket),
        data(_socket, data) {
          buffered += data.toString();
          const nl = buffered.indexOf("\n");
          if (nl < 0) return;
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          resolve(JSON.parse(line));
        },
      },
    });
    const proc = spawnChild(["socket", path], { stdin: "ignore", stdout: "ignore" });
    const socket = await socketReady;
    return {
      roundTrip(seq) {
        const reply = new Promise((r) => (resolve = r));
        socket.write(`${JSON.stringify(answer(seq))}\n`);
        return reply;
      },
      async close() {
        await stop(proc);
        server.stop(true);
      },
    };
  },
  "stdin pipe, blocking read in the child; IPC back": async () => {
    let resolve: (m: unknown) => void = () => {};
    const proc = spawnChild(["sync-stdin"], {
      stdin: "pipe",
      stdout: "ignore",
      serialization: "json",
      ipc: (m: unknown) => resolve(m),
    });
    proc.send({ start: true });
    const sink = proc.stdin as FileSink;
    return {
      roundTrip(seq) {
        const reply = new Promise((r) => (resolve = r));
        sink.write(`${JSON.stringify(answer(seq))}\n`);
        sink.flush();
        return reply;
      },
      close: () => stop(proc),
    };
  },
};

function ipc(serialization: "json" | "advanced"): Channel {
  let resolve: (m: unknown) => void = () => {};
  const proc = spawnChild(["ipc"], {
    stdin: "ignore",
    stdout: "ignore",
    serialization,
    ipc: (m: unknown) => resolve(m),
  });
  return {
    roundTrip(seq) {
      const reply = new Promise((r) => (resolve = r));
      proc.send(answer(seq));
      return reply;
    },
    close: () => stop(proc),
  };
}

async function stop(proc: Subprocess) {
  proc.kill();
  await proc.exited;
}

/** µs per round trip (wall) and the parent's CPU µs per round trip, after a warm-up. */
async function measure(open: () => Promise<Channel>): Promise<{ wall: number; cpu: number }> {
  const channel = await open();
  for (let i = 0; i < 300; i++) await channel.roundTrip(i);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await channel.roundTrip(i);
  const wall = ((performance.now() - t0) / N) * 1000;
  const cpu = process.cpuUsage(cpu0);
  await channel.close();
  return { wall, cpu: (cpu.user + cpu.system) / N };
}

const samples = new Map(Object.keys(transports).map((name) => [name, { wall: [] as number[], cpu: [] as number[] }]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, open] of Object.entries(transports)) {
    const { wall, cpu } = await measure(open);
    samples.get(name)!.wall.push(wall / 1000);
    samples.get(name)!.cpu.push(cpu / 1000);
  }
}
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
printTable(
  `Raw round trip per transport (${N} sequential round trips × ${ROUNDS} interleaved rounds; median of rounds)`,
  [...samples].map(([name, s]) => ({
    transport: name,
    "wall per round trip": us(quantiles(s.wall).median),
    "best round": us(quantiles(s.wall).min),
    "parent CPU per round trip": us(quantiles(s.cpu).median),
  })),
);

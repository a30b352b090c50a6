/**
 * Echo child for bench/transport.bench.ts: answers each message with a tool-call-shaped reply over
 * the transport named in argv[2] ("ipc", "pipe", "socket" <path>, "sync-stdin").
 */
import { readSync } from "node:fs";

const reply = (seq: number) => ({ t: "wait", ack: seq, c: [[seq, "calendar.get", '{"id":1}']] });
const mode = process.argv[2];

/** Newline-delimited JSON from a stream of chunks; calls `onLine` for each complete line. */
function lines(onLine: (line: string) => void) {
  let buffered = "";
  return (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf("\n");
    }
  };
}

if (mode === "ipc") {
  process.on("message", (m: { seq: number }) => process.send!(reply(m.seq)));
} else if (mode === "pipe") {
  const out = Bun.stdout.writer();
  const feed = lines((line) => {
    out.write(`${JSON.stringify(reply((JSON.parse(line) as { seq: number }).seq))}\n`);
    out.flush();
  });
  const decoder = new TextDecoder();
  for await (const chunk of Bun.stdin.stream()) feed(decoder.decode(chunk, { stream: true }));
} else if (mode === "socket") {
  let feed: (chunk: string) => void = () => {};
  await Bun.connect({
    unix: process.argv[3]!,
    socket: {
      open(socket) {
        feed = lines((line) => socket.write(`${JSON.stringify(reply((JSON.parse(line) as { seq: number }).seq))}\n`));
      },
      data: (_socket, data) => feed(data.toString()),
    },
  });
} else if (mode === "sync-stdin") {
  // Answers arrive on stdin and are read with a blocking read (no event loop); replies go over IPC.
  const buffer = Buffer.alloc(64 * 1024);
  const feed = lines((line) => process.send!(reply((JSON.parse(line) as { seq: number }).seq)));
  process.on("message", () => {
    for (;;) {
      const n = readSync(0, buffer, 0, buffer.length, null);
      if (n === 0) process.exit(0);
      feed(buffer.toString("utf8", 0, n));
    }
  });
}

/** Echo thread for bench/wake.bench.ts: answers each message with a tool-call-shaped reply. */
declare const self: Worker;
self.onmessage = (e: MessageEvent<{ seq: number }>) =>
  postMessage({ t: "wait", ack: e.data.seq, c: [[e.data.seq, "calendar.get", '{"id":1}']] });

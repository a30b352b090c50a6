/**
 * An HTTP server on 127.0.0.1 that records every request exactly as it arrived (the request
 * target as sent, every header, the body's bytes as text) and answers `{ "ok": true }`. Tests
 * compare what an OpenAPI tool sent with what the spec says it must send.
 */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query as the client sent them (percent-encoding untouched). */
  readonly target: string;
  readonly headers: Headers;
  readonly body: string;
  /** For a multipart body: its parts, name → values (a file part as `{ type, name, text }`). */
  readonly parts?: Array<[string, string | { type: string; filename: string; text: string }]>;
}

export interface Recorder {
  readonly url: string;
  readonly requests: RecordedRequest[];
  last(): RecordedRequest;
  close(): Promise<void>;
}

export function startRecorder(): Recorder {
  const requests: RecordedRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const type = req.headers.get("content-type") ?? "";
      const copy = req.clone();
      const body = await req.text();
      let parts: RecordedRequest["parts"];
      if (type.startsWith("multipart/form-data")) {
        parts = [];
        for (const [name, value] of (await copy.formData()).entries())
          parts.push([
            name,
            typeof value === "string" ? value : { type: value.type, filename: value.name, text: await value.text() },
          ]);
      }
      requests.push({
        method: req.method,
        target: `${u.pathname}${u.search}`,
        headers: req.headers,
        body,
        ...(parts ? { parts } : {}),
      });
      return Response.json({ ok: true });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    last: () => {
      const r = requests.at(-1);
      if (!r) throw new Error("the recorder has received no request");
      return r;
    },
    close: async () => {
      await server.stop(true);
    },
  };
}

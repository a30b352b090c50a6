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
      const body = await req.text();
      const boundary = /^multipart\/form-data;\s*boundary=(.+)$/i.exec(type)?.[1];
      const parts = boundary ? multipartParts(body, boundary) : undefined;
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

/**
 * The parts of a multipart/form-data body (RFC 7578 §4), read from its text: each part's name,
 * and for a part with a filename or a content type its type, filename and text. (Bun's own
 * `formData()` drops a part's content type, which is what these tests look at.)
 */
function multipartParts(body: string, boundary: string): NonNullable<RecordedRequest["parts"]> {
  const parts: NonNullable<RecordedRequest["parts"]> = [];
  for (const chunk of body.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith("--")) break;
    const end = chunk.indexOf("\r\n\r\n");
    const head = chunk.slice(2, end);
    const text = chunk.slice(end + 4, chunk.endsWith("\r\n") ? -2 : undefined);
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? "";
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    const type = /^content-type:\s*(.*)$/im.exec(head)?.[1]?.trim();
    parts.push([
      name,
      filename === undefined && type === undefined ? text : { type: type ?? "", filename: filename ?? "", text },
    ]);
  }
  return parts;
}

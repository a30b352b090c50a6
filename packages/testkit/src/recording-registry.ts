/** Test helper: a fake npm registry on 127.0.0.1 that records every request path and answers 404. */
export function startRecordingRegistry(): { url: string; requests: string[]; stop(): void } {
  const requests: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      requests.push(decodeURIComponent(new URL(req.url).pathname));
      return new Response(JSON.stringify({ error: "not found" }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, requests, stop: () => server.stop(true) };
}

/**
 * The client connection's messages (#34), one JSON object per WebSocket text frame. Client → gateway
 * messages are parsed here and nothing else is trusted; docs/client-tools.md has the whole exchange.
 */
export type ClientMessage =
  | { readonly type: "open"; readonly resume?: { readonly session: string; readonly key: string } }
  | { readonly type: "register"; readonly tools: unknown }
  | { readonly type: "message"; readonly id: string; readonly text: string }
  | {
      readonly type: "result";
      readonly call: string;
      readonly ok: boolean;
      readonly value?: unknown;
      readonly error?: string;
    }
  | { readonly type: "leave" };

/** Longest chat message a client may send (characters), as a Discord message's 4,000 and then some. */
export const MAX_CLIENT_TEXT = 32_000;
/** Longest request id (the client's own, echoed back). */
const MAX_ID = 100;

/** The message, or why the frame is not one (a sentence for the client). */
export function parseClientMessage(frame: string): ClientMessage | { readonly problem: string } {
  let m: unknown;
  try {
    m = JSON.parse(frame);
  } catch {
    return { problem: "a frame must be one JSON object" };
  }
  if (typeof m !== "object" || m === null || Array.isArray(m)) return { problem: "a frame must be one JSON object" };
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case "open": {
      const r = o.resume as Record<string, unknown> | undefined;
      if (r === undefined) return { type: "open" };
      if (typeof r !== "object" || r === null || typeof r.session !== "string" || typeof r.key !== "string")
        return { problem: "open.resume must be { session, key } as the gateway gave them" };
      return { type: "open", resume: { session: r.session, key: r.key } };
    }
    case "register":
      return { type: "register", tools: o.tools };
    case "message":
      if (typeof o.id !== "string" || o.id === "" || o.id.length > MAX_ID)
        return { problem: `message.id must be a string of 1-${MAX_ID} characters` };
      if (typeof o.text !== "string" || o.text.length > MAX_CLIENT_TEXT)
        return { problem: `message.text must be a string of at most ${MAX_CLIENT_TEXT} characters` };
      return { type: "message", id: o.id, text: o.text };
    case "result":
      if (typeof o.call !== "string" || typeof o.ok !== "boolean")
        return { problem: "result must be { call, ok, value } or { call, ok: false, error }" };
      return {
        type: "result",
        call: o.call,
        ok: o.ok,
        value: o.value,
        ...(typeof o.error === "string" ? { error: o.error } : {}),
      };
    case "leave":
      return { type: "leave" };
    default:
      return {
        problem: `unknown message type ${JSON.stringify(String(o.type)).slice(0, 40)}; expected open, register, message, result or leave`,
      };
  }
}

import type { Json } from "./types.ts";

/** An error Discord would return: HTTP status + JSON `{ message, code, errors? }`. */
export class DiscordHttpError extends Error {
  /** Caused by a fault the test switched on (DMs closed, missing permission): expected by that test. */
  switched = false;

  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: Json,
  ) {
    super(message);
  }

  asSwitched(): this {
    this.switched = true;
    return this;
  }

  toBody(): Json {
    return this.errors
      ? { message: this.message, code: this.code, errors: this.errors }
      : { message: this.message, code: this.code };
  }
}

export const unknownChannel = () => new DiscordHttpError(404, 10003, "Unknown Channel");
export const unknownMessage = () => new DiscordHttpError(404, 10008, "Unknown Message");
export const unknownGuild = () => new DiscordHttpError(404, 10004, "Unknown Guild");
export const unknownUser = () => new DiscordHttpError(404, 10013, "Unknown User");
export const unknownMember = () => new DiscordHttpError(404, 10007, "Unknown Member");
export const unknownWebhook = () => new DiscordHttpError(404, 10015, "Unknown Webhook");
export const unknownInteraction = () => new DiscordHttpError(404, 10062, "Unknown interaction");
export const unknownCommand = () => new DiscordHttpError(404, 10063, "Unknown application command");
export const unauthorized = () => new DiscordHttpError(401, 0, "401: Unauthorized");

/** 400 Invalid Form Body with Discord's nested `_errors` shape for one field. */
export function invalidFormBody(field: string, code: string, message: string): DiscordHttpError {
  const errors: Json = {};
  let cursor = errors;
  const parts = field.split(".");
  parts.forEach((part, i) => {
    if (i === parts.length - 1) cursor[part] = { _errors: [{ code, message }] };
    else cursor = cursor[part] = {};
  });
  return new DiscordHttpError(400, 50035, "Invalid Form Body", errors);
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  if (status === 204) return new Response(null, { status, headers });
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

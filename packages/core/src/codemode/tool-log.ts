import type { ToolContext } from "@openassistant/sdk";

/** Per redactor, each tool's `ctx.log` (the same for every call of that tool). */
const loggers = new WeakMap<(text: string) => string, Map<string, ToolContext["log"]>>();

export function loggersFor(redact: (text: string) => string): (path: string) => ToolContext["log"] {
  let byPath = loggers.get(redact);
  if (!byPath) loggers.set(redact, (byPath = new Map()));
  const cache = byPath;
  return (path) => {
    let log = cache.get(path);
    if (!log) cache.set(path, (log = toolLogger(path, redact)));
    return log;
  };
}

/** `ctx.log` of a tool: lines to the gateway's log, prefixed with the tool path, secrets redacted. */
function toolLogger(path: string, redact: (text: string) => string): ToolContext["log"] {
  const at =
    (level: "info" | "warn" | "error") =>
    (message: string, ...details: unknown[]) =>
      console[level](
        redact(
          `[tools.${path}] ${message}${details.length ? ` ${details.map((d) => (typeof d === "string" ? d : JSON.stringify(d))).join(" ")}` : ""}`,
        ),
      );
  return Object.freeze({ info: at("info"), warn: at("warn"), error: at("error") });
}

/**
 * JavaScript evaluated inside every fresh QuickJS context before the snippet runs.
 *
 * It receives three host functions (`hostCall`, `hostLog`, `hostDone`) as arguments, so the
 * snippet can never name them, and returns the helpers the host drives the run with. It captures
 * the built-ins it needs up front, so a snippet that overwrites `JSON`, `Error` or
 * `String.prototype` only breaks itself: only strings ever reach the host.
 *
 * Wire formats (kept cheap: one string per crossing, no JSON re-encoding of payloads):
 * - hostCall("<id>\n<path>\n<inputJson>")
 * - settleAll("<id>:<kind>:<length>:<payload>" repeated), kind v = JSON value, u = undefined,
 *   e = JSON {name, message, code}
 * - hostDone(kind, text): "ok" + JSON | "none" | "big" + length | "oom" | "stack" | "script" + description
 */
export const PRELUDE_SOURCE = String.raw`(function (hostCall, hostLog, hostDone) {
  "use strict";
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const create = Object.create;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const keys = Object.keys;
  const StringOf = String;
  const ErrorClass = Error;
  const PromiseClass = Promise;
  const WeakSetClass = WeakSet;
  const RangeErrorClass = RangeError;
  const uncurry = (f) => Function.prototype.call.bind(f);
  const indexOf = uncurry(String.prototype.indexOf);
  const slice = uncurry(String.prototype.slice);
  const then = uncurry(Promise.prototype.then);
  const InternalErrorClass = typeof InternalError === "function" ? InternalError : undefined;
  const SNIPPET_LINE = /snippet\.js:(\d+)(:\d+)?/g;
  const hidden = (value) => ({ value, writable: true, configurable: true, enumerable: false });

  class ToolError extends ErrorClass {
    constructor(message, code) {
      super(message);
      if (code !== undefined) defineProperty(this, "code", hidden(code));
    }
  }
  class ToolDeniedError extends ToolError {}
  class ToolInputError extends ToolError {}
  for (const [C, name] of [[ToolError, "ToolError"], [ToolDeniedError, "ToolDeniedError"], [ToolInputError, "ToolInputError"]]) {
    defineProperty(C.prototype, "name", hidden(name));
    defineProperty(globalThis, name, { value: C, writable: false, configurable: false, enumerable: false });
  }

  function makeError(name, message, code, path) {
    const C = name === "ToolDeniedError" ? ToolDeniedError : name === "ToolInputError" ? ToolInputError : ToolError;
    const error = new C(message, code);
    defineProperty(error, "name", hidden(name));
    defineProperty(error, "stack", hidden("    at tools." + path + " (host)\n"));
    return error;
  }

  // ---- tool calls -------------------------------------------------------------------------
  const pending = create(null);
  let nextId = 0;

  let maxInputChars = Infinity;
  function configure(limit) {
    maxInputChars = limit;
  }

  function callTool(path, input) {
    let json;
    try {
      json = input === undefined ? "null" : stringify(input);
    } catch (e) {
      return PromiseClass.reject(makeError("ToolInputError", "tools." + path + ": the input cannot be converted to JSON (" + describe(e) + ")", undefined, path));
    }
    if (typeof json !== "string") {
      return PromiseClass.reject(makeError("ToolInputError", "tools." + path + ": the input must be a JSON value (got " + typeof input + ")", undefined, path));
    }
    if (json.length > maxInputChars) {
      return PromiseClass.reject(makeError("ToolInputError", "tools." + path + ": the input is " + json.length + " characters of JSON; the limit is " + maxInputChars, undefined, path));
    }
    const id = ++nextId;
    return new PromiseClass((resolve, reject) => {
      pending[id] = { resolve, reject, path };
      hostCall(id + "\n" + path + "\n" + json);
    });
  }

  function settleOne(id, kind, payload) {
    const call = pending[id];
    if (call === undefined) return;
    delete pending[id];
    let value;
    try {
      value = kind === "u" ? undefined : parse(payload);
    } catch (e) {
      call.reject(makeError("ToolError", "tools." + call.path + " returned invalid JSON", undefined, call.path));
      return;
    }
    if (kind === "e") call.reject(makeError(StringOf(value.name), StringOf(value.message), value.code, call.path));
    else call.resolve(value);
  }

  function settleAll(batch) {
    let i = 0;
    while (i < batch.length) {
      const a = indexOf(batch, ":", i);
      const b = indexOf(batch, ":", a + 1);
      const c = indexOf(batch, ":", b + 1);
      const end = c + 1 + +slice(batch, b + 1, c);
      settleOne(+slice(batch, i, a), slice(batch, a + 1, b), slice(batch, c + 1, end));
      i = end;
    }
  }

  function buildTools(pathsJson) {
    const root = { children: create(null) };
    for (const path of parse(pathsJson)) {
      let node = root;
      for (const part of path.split(".")) {
        node = node.children[part] || (node.children[part] = { children: create(null) });
      }
      node.path = path;
    }
    const build = (node) => {
      let target;
      if (node.path !== undefined) {
        const path = node.path;
        target = (input) => callTool(path, input);
        defineProperty(target, "name", { value: path, configurable: true });
      } else {
        target = create(null);
      }
      for (const key of keys(node.children)) {
        defineProperty(target, key, { value: build(node.children[key]), enumerable: true, writable: false, configurable: false });
      }
      return freeze(target);
    };
    defineProperty(globalThis, "tools", { value: build(root), enumerable: true, writable: false, configurable: false });
  }

  // ---- console ----------------------------------------------------------------------------
  let logsFull = false;
  function jsonReplacer() {
    const seen = new WeakSetClass();
    return function (key, value) {
      if (typeof value === "bigint") return StringOf(value) + "n";
      if (typeof value === "object" && value !== null) {
        if (seen.has(value)) return "[Circular]";
        seen.add(value);
      }
      return value;
    };
  }
  function format(value) {
    switch (typeof value) {
      case "string": return value;
      case "function": return "[Function: " + (value.name || "anonymous") + "]";
      case "bigint": return StringOf(value) + "n";
      case "object":
        if (value === null) return "null";
        if (value instanceof ErrorClass) return describe(value, true);
        try {
          const text = stringify(value, jsonReplacer());
          return text === undefined ? StringOf(value) : text;
        } catch (e) {
          return "[object]";
        }
      default: return StringOf(value);
    }
  }
  const makeLog = (level) => function () {
    if (logsFull) return;
    let line = "";
    for (let i = 0; i < arguments.length; i++) line += (i ? " " : "") + format(arguments[i]);
    if (!hostLog(level, line)) logsFull = true;
  };
  const consoleObject = create(null);
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    defineProperty(consoleObject, level, { value: makeLog(level), enumerable: true });
  }
  defineProperty(globalThis, "console", { value: freeze(consoleObject), writable: true, configurable: true, enumerable: false });

  // ---- results and errors -----------------------------------------------------------------
  function describe(error, withStack) {
    try {
      if (error !== null && typeof error === "object" && "message" in error) {
        const name = error.name === undefined ? "Error" : StringOf(error.name);
        let text = name + ": " + StringOf(error.message);
        const stack = withStack ? error.stack : undefined;
        if (typeof stack === "string" && stack.length > 0) {
          const lines = stack.split("\n").filter((l) => l.length > 0 && l.indexOf("at <eval>") < 0).slice(0, 10);
          text += "\n" + lines.join("\n").slice(0, 1500);
        }
        return text.replace(SNIPPET_LINE, (_, line, col) => "snippet.js:" + (line - 1) + (col || ""));
      }
      return "Uncaught " + format(error);
    } catch (e) {
      return "Uncaught exception (it could not be described)";
    }
  }

  /** "oom" | "stack" | "script", a newline, then the description. */
  function classify(error) {
    let kind = "script";
    try {
      const message = error !== null && typeof error === "object" ? error.message : undefined;
      const internal = InternalErrorClass !== undefined && error instanceof InternalErrorClass;
      if (internal && message === "out of memory") kind = "oom";
      else if ((internal && message === "stack overflow") || (error instanceof RangeErrorClass && message === "Maximum call stack size exceeded")) kind = "stack";
    } catch (e) {}
    return kind + "\n" + describe(error, true);
  }

  /** Reports how the snippet's main promise settled; the return value leaves as JSON text. */
  function watch(main, maxOutputLength) {
    then(main, (value) => {
      let json;
      try {
        json = value === undefined ? undefined : stringify(value);
      } catch (e) {
        hostDone("script", "The return value cannot be converted to JSON: " + describe(e, false));
        return;
      }
      if (typeof json !== "string") hostDone("none", "");
      else if (json.length > maxOutputLength) hostDone("big", StringOf(json.length));
      else hostDone("ok", json);
    }, (error) => {
      const text = classify(error);
      const newline = indexOf(text, "\n");
      hostDone(slice(text, 0, newline), slice(text, newline + 1));
    });
  }

  return { buildTools, settleAll, classify, watch, configure };
})`;

/**
 * JavaScript evaluated inside every fresh QuickJS context before the snippet runs.
 *
 * It receives three host functions (`hostCall`, `hostLog`, `hostDone`) as arguments, so the
 * snippet can never name them, and returns the helpers the host drives the run with. It captures
 * the built-ins it needs up front, so a snippet that overwrites `JSON`, `Error` or
 * `String.prototype` only breaks itself: only strings ever reach the host.
 *
 * Wire formats (kept cheap: one string per crossing, no JSON re-encoding of payloads):
 * - hostCall("<id>\n<path>\n<inputJson>"[, "<t>[*<n>],..."]): the clock values the snippet read
 *   since its previous call ride along, a value read n times in a row as t*n (none: no second argument)
 * - settleAll("<id>:<kind>:<length>:<payload>" repeated), kind v = JSON value, u = undefined,
 *   e = JSON {name, message, code}
 * - settleValue(id, json): one answer that is a JSON value (the usual crossing, no batch to parse)
 * - hostDone(kind, text): "ok" + JSON | "none" | "big" + length | "oom" | "stack" | "script" + description
 */
export const PRELUDE_SOURCE = String.raw`(function (hostCall, hostLog, hostDone) {
  "use strict";
  const uncurry = (f) => Function.prototype.call.bind(f);
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
  const weakAdd = uncurry(WeakSet.prototype.add);
  const weakHas = uncurry(WeakSet.prototype.has);
  const weakDelete = uncurry(WeakSet.prototype.delete);
  const MapClass = Map;
  const SetClass = Set;
  const TypeErrorClass = TypeError;
  const arrayFrom = Array.from;
  const RangeErrorClass = RangeError;
  const indexOf = uncurry(String.prototype.indexOf);
  const slice = uncurry(String.prototype.slice);
  const then = uncurry(Promise.prototype.then);
  const InternalErrorClass = typeof InternalError === "function" ? InternalError : undefined;
  const SNIPPET_LINE = /snippet\.js:(\d+)(:\d+)?/g;
  const hidden = (value) => ({ value, writable: true, configurable: true, enumerable: false });
  // Error descriptions cross to the host and reach the model: bounded, whatever the snippet throws.
  const MAX_NAME = 100;
  const MAX_MESSAGE = 2000;
  const clip = (text, max) => (text.length > max ? slice(text, 0, max) + "… (" + (text.length - max) + " more characters)" : text);

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
  let maxLogValues = 65536;
  // Math.random from a generator seeded by the host on every run: a VM restored from a snapshot
  // would otherwise repeat QuickJS's own sequence run after run (xorshift128, 53-bit doubles).
  let r0 = 0x9e3779b9, r1 = 0x7f4a7c15, r2 = 0x85ebca6b, r3 = 0xc2b2ae35;
  function next32() {
    const t = r0 ^ (r0 << 11);
    r0 = r1; r1 = r2; r2 = r3;
    r3 = (r3 ^ (r3 >>> 19) ^ t ^ (t >>> 8)) >>> 0;
    return r3;
  }
  function random() {
    return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
  }
  defineProperty(Math, "random", { value: random, writable: true, configurable: true, enumerable: false });

  // The clock (Date.now, new Date(), Date()): every value read is reported to the host with the
  // next tool call, so a resumed run can be given the same values in the same order (clockReplay)
  // and take the same path. Past the replayed values it is the real clock again. Values are kept
  // as runs (value, times read in a row): a busy-wait on Date.now reads one value thousands of times.
  const NativeDate = Date;
  const nativeNow = Date.now;
  const construct = Reflect.construct;
  let replayRuns = [], replayAt = 0, replayLeft = 0;
  let lastRead = 0, lastCount = 0, clockReads = "";
  function now() {
    let t;
    if (replayAt < replayRuns.length) {
      t = replayRuns[replayAt][0];
      if (--replayLeft <= 0) {
        replayAt++;
        replayLeft = replayAt < replayRuns.length ? replayRuns[replayAt][1] : 0;
      }
    } else t = nativeNow();
    if (lastCount > 0 && t === lastRead) lastCount++;
    else {
      endClockRun();
      lastRead = t;
      lastCount = 1;
    }
    return t;
  }
  function endClockRun() {
    if (lastCount === 0) return;
    const run = lastCount > 1 ? lastRead + "*" + lastCount : StringOf(lastRead);
    clockReads = clockReads === "" ? run : clockReads + "," + run;
    lastCount = 0;
  }
  function ClockDate(...args) {
    if (new.target === undefined) return StringOf(new NativeDate(now()));
    return construct(NativeDate, args.length === 0 ? [now()] : args, new.target);
  }
  defineProperty(ClockDate, "prototype", { value: NativeDate.prototype, writable: false, configurable: false, enumerable: false });
  defineProperty(ClockDate, "now", hidden(now));
  defineProperty(ClockDate, "parse", hidden(NativeDate.parse));
  defineProperty(ClockDate, "UTC", hidden(NativeDate.UTC));
  defineProperty(NativeDate.prototype, "constructor", hidden(ClockDate));
  defineProperty(globalThis, "Date", hidden(ClockDate));

  function configure(limit, logBytes, s0, s1, s2, s3, clock) {
    replayRuns = clock === undefined ? [] : parse(clock);
    replayAt = 0;
    replayLeft = replayRuns.length > 0 ? replayRuns[0][1] : 0;
    lastCount = 0;
    clockReads = "";
    r0 = s0 >>> 0 || 1; r1 = s1 >>> 0; r2 = s2 >>> 0; r3 = s3 >>> 0;
    for (let i = 0; i < 8; i++) next32();
    maxInputChars = limit;
    // Every value printed adds at least one byte to the log, so a value with more parts than the
    // log can hold is not walked to the end (that only burnt the snippet's CPU budget).
    if (logBytes > 0) maxLogValues = logBytes + 16;
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
      endClockRun();
      if (clockReads === "") hostCall(id + "\n" + path + "\n" + json);
      else {
        const reads = clockReads;
        clockReads = "";
        hostCall(id + "\n" + path + "\n" + json, reads);
      }
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

  function settleValue(id, json) {
    settleOne(id, "v", json);
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
  /**
   * For console output: BigInt, Map and Set shown, and "[Circular]" only for a reference back to
   * an ancestor (an object seen twice side by side is printed twice). No prototype methods are
   * used, so a snippet that patches Array.prototype does not change what its logs say.
   */
  const tooBig = {};
  const MAX_LOG_DEPTH = 64;
  function jsonReplacer() {
    const ancestors = [];
    const onPath = new WeakSetClass();
    let depth = 0;
    let values = 0;
    return function (key, value) {
      if (++values > maxLogValues) throw tooBig;
      // "this" is the object holding "key": drop the ancestors below it.
      while (depth > 0 && ancestors[depth - 1] !== this) weakDelete(onPath, ancestors[--depth]);
      if (typeof value === "bigint") return StringOf(value) + "n";
      if (typeof value === "symbol") return StringOf(value);
      if (typeof value === "function") return "[Function: " + (value.name || "anonymous") + "]";
      if (typeof value === "object" && value !== null) {
        if (weakHas(onPath, value)) return "[Circular]";
        if (depth > MAX_LOG_DEPTH) return "[nested too deep]";
        if (value instanceof MapClass) value = { ["Map(" + value.size + ")"]: arrayFrom(value) };
        else if (value instanceof SetClass) value = { ["Set(" + value.size + ")"]: arrayFrom(value) };
        ancestors[depth++] = value;
        weakAdd(onPath, value);
      }
      return value;
    };
  }

  /**
   * For return values: plain JSON, except values JSON would silently turn into {} or drop at the
   * top level, which fail with a hint instead of reaching the model as an empty answer.
   */
  function strictReplacer() {
    let root = true;
    return function (key, value) {
      if (typeof value === "object" && value !== null) {
        if (value instanceof MapClass) throw new TypeErrorClass("a Map is not JSON (it would become {}); return Object.fromEntries(map) or [...map] instead");
        if (value instanceof SetClass) throw new TypeErrorClass("a Set is not JSON (it would become {}); return [...set] instead");
      } else if (root && (typeof value === "function" || typeof value === "symbol")) {
        throw new TypeErrorClass("the snippet returned a " + typeof value + " (did you forget to call it?); return JSON data instead");
      }
      root = false;
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
          return e === tooBig ? "[object with over " + maxLogValues + " values: too large to log; log a slice or a summary]" : "[object]";
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
        const name = error.name === undefined ? "Error" : clip(StringOf(error.name), MAX_NAME);
        let text = name + ": " + clip(StringOf(error.message), MAX_MESSAGE);
        const stack = withStack ? error.stack : undefined;
        if (typeof stack === "string" && stack.length > 0) {
          const lines = stack.split("\n").filter((l) => l.length > 0 && l.indexOf("at <eval>") < 0).slice(0, 10);
          text += "\n" + lines.join("\n").slice(0, 1500);
        }
        return text.replace(SNIPPET_LINE, (_, line, col) => "snippet.js:" + (line - 1) + (col || ""));
      }
      return "Uncaught " + clip(format(error), MAX_MESSAGE);
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
        json = value === undefined ? undefined : stringify(value, strictReplacer());
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

  return { buildTools, settleAll, settleValue, classify, watch, configure };
})`;

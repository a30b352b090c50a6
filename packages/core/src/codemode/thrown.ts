/** What of a thrown value may leave the host: `crossing` for the sandbox, `recorded` for receipts and logs. */
export interface ThrownValue {
  readonly crossing: string;
  readonly recorded: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]{0,63}$/;

/**
 * Thrown values can carry host data (an HTTP client error holds its request headers, a cause
 * holds paths). Only an Error's `message` crosses, recorded with its `name`; never its stack,
 * cause or other properties. Anything else thrown is described by its type alone.
 */
export function describeThrown(e: unknown, who = "the tool"): ThrownValue {
  try {
    if (isError(e)) {
      const message = typeof e.message === "string" ? e.message : "";
      const name = typeof e.name === "string" && IDENTIFIER.test(e.name) ? e.name : "Error";
      // A plain Error's name adds nothing; a subclass's name (TypeError, HttpError…) does.
      return {
        crossing: message || name,
        recorded: !message ? name : name === "Error" ? message : `${name}: ${message}`,
      };
    }
  } catch {
    // a hostile getter on name/message: fall through to the generic description
  }
  const generic = `${who} failed with a non-Error value (${typeOf(e)})`;
  return { crossing: generic, recorded: generic };
}

function isError(e: unknown): e is Error {
  const isErrorFn = (Error as { isError?: (v: unknown) => boolean }).isError;
  return e instanceof Error || (typeof isErrorFn === "function" && isErrorFn(e));
}

function typeOf(e: unknown): string {
  if (e === null) return "null";
  if (typeof e !== "object" && typeof e !== "function") return typeof e;
  try {
    const name: unknown = Object.getPrototypeOf(e)?.constructor?.name;
    if (typeof name === "string" && IDENTIFIER.test(name) && name !== "Object" && name !== "Function")
      return `${typeof e} ${name}`;
  } catch {
    // a Proxy or getter that throws: the type alone will do
  }
  return typeof e;
}

import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";

/** Runs `work` as an Effect that fails with what it threw (the original error, for the caller to report). */
export const attempt = <A>(work: () => A | Promise<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: async () => work(), catch: (e) => e });

/**
 * A resource of the gateway: opened now, closed when the gateway's scope closes (shutdown, or a
 * start that fails after it), in reverse order of opening. A close that throws is logged and the
 * next one still runs.
 */
export const resource = <A>(
  name: string,
  open: () => A | Promise<A>,
  close: (a: A) => unknown,
  log: (line: string) => void,
): Effect.Effect<A, unknown, Scope.Scope> =>
  Effect.acquireRelease(attempt(open), (a) => releasing(name, () => close(a), log));

/** A close step added to the scope now (it runs before everything opened earlier is closed). */
export const onClose = (
  name: string,
  close: () => unknown,
  log: (line: string) => void,
): Effect.Effect<void, never, Scope.Scope> => Effect.addFinalizer(() => releasing(name, close, log));

const releasing = (name: string, close: () => unknown, log: (line: string) => void): Effect.Effect<void> =>
  Effect.promise(async () => {
    try {
      await close();
    } catch (e) {
      log(`closing ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  });

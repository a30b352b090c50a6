/**
 * Objects keyed by names from outside (tool and plugin ids, operationIds, config keys, request
 * text): only own keys count. `obj[name]` would find `constructor`, `toString` or `__proto__` on
 * Object.prototype, and `obj[name] = v` with `__proto__` would set the prototype instead.
 */

/** `obj[key]` when `key` is the object's own property, else undefined. */
export function ownValue<T>(obj: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** `target[key] = value` as an own property, even for `__proto__`. */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

// No phase of the translator writes to an IR object once built (translator-layer.ts), and neither do the Envoy
// builders: their memos key on IR objects (envoy/built-once.ts). Under test (ENVOY_INGRESS_FREEZE_IR=1, which
// scripts/test.js sets) the translator freezes what it hands from one phase to the next and what it returns, so
// a write to it throws a TypeError where it happens instead of changing a memoized object behind the memo's back.
// Outside tests this costs nothing.

/** Whether this process freezes the IR (read once: tests set it before anything runs). */
export const freezesIr = typeof process !== 'undefined' && process.env['ENVOY_INGRESS_FREEZE_IR'] === '1';

/**
 * Freezes `value` and every plain object and array it holds, also as values of a Map (the translator's
 * collections, which stay writable themselves). Instances of other classes (HtpasswdUsers, PrivateKey) are opaque
 * values with state of their own and stay as they are.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map) {
    for (const member of value.values()) deepFreeze(member);
    return value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  Object.freeze(value);
  for (const member of Object.values(value as object)) deepFreeze(member);
  return value;
}

/** `value`, deep-frozen under test. */
export function frozenInTests<T>(value: T): T {
  return freezesIr ? deepFreeze(value) : value;
}


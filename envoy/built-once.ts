// The same IR object always gives the same JSON object. An incremental build reuses the IR objects of hosts,
// clusters and endpoints that did not change; memoised builders then hand the snapshot cache the very JSON it
// encoded last time, which it recognises without encoding it again (SnapshotCache's JSON-object check). IR
// objects are never mutated once built, and neither is the JSON: sharing them is safe.

/** `build`, remembered per input object (weakly: nothing is kept alive for the memo's sake). */
export function builtOnce<I extends object, O>(build: (input: I) => O): (input: I) => O {
  const made = new WeakMap<I, O>();
  return (input) => {
    let output = made.get(input);
    if (output === undefined) {
      output = build(input);
      made.set(input, output);
    }
    return output;
  };
}

/**
 * `build`, remembered for its last call by a key (a value, not an identity) that must capture everything the
 * output depends on: for outputs whose inputs are new objects in every build (the listeners depend on IR route
 * tables and TLS servers) but whose relevant parts rarely change. The same JSON object then lets the snapshot
 * cache skip encoding it (1.4 MB of TLS filter chains at 10,000 Ingresses, on every route change).
 */
export function builtForSameKey<A extends unknown[], O>(keyOf: (...args: A) => string, build: (...args: A) => O): (...args: A) => O {
  let last: { key: string; output: O } | undefined;
  return (...args) => {
    const key = keyOf(...args);
    if (last?.key !== key) last = { key, output: build(...args) };
    return last.output;
  };
}

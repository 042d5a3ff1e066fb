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

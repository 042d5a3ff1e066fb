// Provenance: which object a piece of the IR came from, as plain data (kind, namespace, name), so problems can be
// reported on that object and `explain` can show it, without the IR knowing Kubernetes types.
export interface SourceRef<Kind extends string = string> {
  /** The object's kind, e.g. `Ingress` or `Secret`. */
  kind: Kind;
  namespace: string;
  name: string;
}

/**
 * Which path of its Ingress a route serves: `spec.rules[rule].http.paths[path]`, the numbers diagnostics and
 * `explain` name it by ("rule 0 path 1").
 */
export interface RulePathRef {
  rule: number;
  path: number;
}

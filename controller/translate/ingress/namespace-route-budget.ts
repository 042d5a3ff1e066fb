// A route budget per namespace (issue 25, item 5): one tenant's Ingresses cannot grow the shared route table past
// what Envoy holds for everyone. Paths are counted as written, oldest Ingress first within each namespace; an
// Ingress that would take its namespace past the budget is refused whole (its rules, TLS entries and default
// backend), with a diagnostic, so the older ones keep being served and other namespaces are untouched.
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import { type Ingress, refOf } from '../shared/kube-objects.js';
import { Reason } from '../shared/reasons.js';

/** Paths an Ingress writes (holes left by host ownership do not count). */
export function pathsOf(ingress: Ingress): number {
  let paths = 0;
  (ingress.spec?.rules ?? []).forEach((rule) => {
    paths += rule.http?.paths?.length ?? 0;
  });
  return paths;
}

/** Whether some namespace writes more paths than `budget` in `ingresses` (the splice then declines). */
export function exceedsRouteBudget(ingresses: readonly Ingress[], budget: number): boolean {
  const used = new Map<string, number>();
  for (const ingress of ingresses) {
    const namespace = namespaceOf(ingress.metadata);
    const total = (used.get(namespace) ?? 0) + pathsOf(ingress);
    if (total > budget) return true;
    used.set(namespace, total);
  }
  return false;
}

/** `ingresses` (oldest first) with those past their namespace's budget refused whole. */
export function enforceRouteBudget(ingresses: readonly Ingress[], budget: number, diagnostics: Diagnostic[]): Ingress[] {
  const used = new Map<string, number>();
  return ingresses.map((ingress) => {
    const namespace = namespaceOf(ingress.metadata);
    const paths = pathsOf(ingress);
    const before = used.get(namespace) ?? 0;
    if (before + paths <= budget) {
      used.set(namespace, before + paths);
      return ingress;
    }
    diagnostics.push({
      object: refOf(ingress),
      severity: 'Warning',
      reason: Reason.NamespaceRouteBudgetExceeded,
      message: `Ingress not served: its ${paths} paths would take namespace ${namespace} past its route budget of ${budget} (${before} used by older Ingresses; --namespace-route-budget)`,
    });
    const { defaultBackend: _refused, ...spec } = ingress.spec ?? {};
    return { ...ingress, spec: { ...spec, rules: [], tls: [] } };
  });
}

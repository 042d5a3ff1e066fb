// allowedRoutes.namespaces: which namespaces' routes a listener admits. Same (the spec's default) and All need
// nothing else; Selector matches the route's Namespace labels (the Namespace kind, labels only). A namespace whose
// object is not known (not read yet, or gone) has no labels: it matches only selectors that require none.
import { namespaceOf } from '../shared/kinds.js';
import type { LabelSelector, Namespace } from '../shared/kube-objects.js';
import type { AcceptedListener } from './listener-acceptance.js';

/** Kubernetes label selector semantics: every matchLabels pair and every matchExpression must hold (empty: all). */
export function matchesLabelSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, expression.key);
    const value = labels[expression.key];
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In':
        if (!has || value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (has && value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        // An operator the API does not define: admit nothing rather than guess (tenant safety).
        return false;
    }
  }
  return true;
}

/** A listener's namespace admission, over the Namespaces' labels. */
export function namespaceAdmission(namespaces: readonly Namespace[]): (listener: AcceptedListener, namespace: string) => boolean {
  const labels = new Map(namespaces.map((n) => [n.metadata.name, n.metadata.labels ?? {}]));
  return (listener, namespace) => {
    const rule = listener.listener.allowedRoutes?.namespaces;
    const from = rule?.from ?? 'Same';
    if (from === 'All') return true;
    // Same: the namespace of the object the listener is written in (a ListenerSet's own, not its Gateway's).
    if (from === 'Same') return namespace === namespaceOf((listener.set ?? listener.gateway).metadata);
    // Selector without a selector: the CRD's validation refuses it; admit none if one gets through.
    if (from !== 'Selector' || rule?.selector === undefined) return false;
    return matchesLabelSelector(rule.selector, labels.get(namespace) ?? {});
  };
}

// The per-namespace route budget (--namespace-route-budget) for Gateway API routes, as for Ingresses: one tenant's
// routes cannot grow the shared route table past what Envoy holds for everyone. Routes are counted in the
// translator's order (oldest first) within their namespace, each by the Envoy routes it writes (its placed matches,
// at least one, times its hostnames, at least one). A route that would take its namespace past the budget is not
// served anywhere: Accepted False on every parent (NamespaceRouteBudgetExceeded), not counted in attachedRoutes; the
// older routes and other namespaces are untouched. Ingresses and Gateway API routes each have the budget: a
// namespace's Ingresses cannot push its older routes out, nor the reverse.
import { namespaceOf } from '../shared/kinds.js';
import { Reason } from '../shared/reasons.js';
import type { AttachableRoute, RouteAttachment } from './route-attachment.js';

export interface RouteBudget {
  /** `attachment` when the route fits its namespace's budget (which it then uses); else the same parents, refused. */
  admit(route: AttachableRoute, attachment: RouteAttachment, placedMatches: number): RouteAttachment;
}

/** The Envoy routes a route writes: its placed matches (at least one) on each of its hostnames (at least one). */
export function routesWritten(route: AttachableRoute, placedMatches: number): number {
  const hostnames = route.kind === 'TCPRoute' ? 0 : (route.spec?.hostnames?.length ?? 0);
  return Math.max(1, placedMatches) * Math.max(1, hostnames);
}

/** A budget of `budget` routes per namespace, used as routes are admitted (call in the translator's order). */
export function routeBudget(budget: number): RouteBudget {
  const used = new Map<string, number>();
  return {
    admit(route, attachment, placedMatches) {
      // A route served nowhere writes nothing.
      if (attachment.hostsByBinding.size === 0) return attachment;
      const namespace = namespaceOf(route.metadata);
      const written = routesWritten(route, placedMatches);
      const before = used.get(namespace) ?? 0;
      if (before + written <= budget) {
        used.set(namespace, before + written);
        return attachment;
      }
      const refusal = {
        reason: Reason.NamespaceRouteBudgetExceeded,
        message: `${route.kind} not served: its ${written} routes would take namespace ${namespace} past its route budget of ${budget} (${before} used by older routes; --namespace-route-budget)`,
      };
      return {
        ours: true,
        parents: attachment.parents.map((parent) => ({ ...parent, listeners: [], attachedUnserved: [], refusal: parent.refusal ?? refusal })),
        hostsByBinding: new Map(),
      };
    },
  };
}

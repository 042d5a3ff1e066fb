// TLSRoute and TCPRoute rules -> where their connections go: the backendRefs (Services) by weight. An invalid
// backendRef (the same reasons as an HTTPRoute's, the ReferenceGrant `from` being the route's kind) keeps its share
// of the weight, and those connections are closed (the spec: rejected).
import type { ServiceIndex } from '../shared/backend.js';
import { namespaceOf } from '../shared/kinds.js';
import type { ReferenceGrant, TCPRoute, TLSRoute } from '../shared/kube-objects.js';
import { resolveWeightedBackends } from './backend-refs.js';
import type { TranslatedRules } from './httproute-rules.js';

export function translateL4RouteRules(route: TLSRoute | TCPRoute, services: ServiceIndex, grants: readonly ReferenceGrant[]): TranslatedRules {
  const namespace = namespaceOf(route.metadata);
  // A TLSRoute has one rule (the spec's maximum); a TCPRoute's rules have no matches to tell them apart, so their
  // backendRefs are one set.
  const refs = (route.spec?.rules ?? []).flatMap((rule) => rule.backendRefs ?? []);
  const resolved = resolveWeightedBackends(refs, namespace, services, grants, route.kind);
  return {
    matches: [],
    clusters: resolved.clusters,
    services: refs.filter((ref) => (ref.kind ?? 'Service') === 'Service' && (ref.group ?? '') === '').map((ref) => `${ref.namespace ?? namespace}/${ref.name}`),
    problems: resolved.invalid.map((problem) => ({ kind: 'backend' as const, reason: problem.reason, message: `${problem.message}; its share of the connections is closed` })),
    stream: { backends: resolved.backends, ...(resolved.invalidWeight > 0 ? { errorWeight: resolved.invalidWeight } : {}) },
  };
}

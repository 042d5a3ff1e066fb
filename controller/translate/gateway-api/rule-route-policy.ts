// A RoutePolicy (route-policies.ts) on one rule of an HTTPRoute or a GRPCRoute: the rule's forward action with the
// policy's access control, authentication and cookie affinity, or a 500 when the policy asks for access control it
// cannot give (fail closed). A rule that already answers by itself (a redirect, a 500) is left as it is.
import type { AffinityCookieIR, ClusterIR, RouteActionIR } from '../../../ir/index.js';
import { nginxBackendKey } from '../shared/nginx-backend-key.js';
import { GatewayReason } from './reasons.js';
import type { AffinitySettings, AppliedRoutePolicy, RoutePolicyFields } from './route-policies.js';

export interface RuleWithRoutePolicy {
  action: RouteActionIR;
  /** The policy's route policy fields (merged into the rule's RoutePolicyIR), and its cookie. */
  fields: RoutePolicyFields & { affinityCookie?: AffinityCookieIR };
  /** Clusters the rule needs besides its backends': the sticky backend's (`~ring-hash`), the authorization service's. */
  clusters: ClusterIR[];
  /** The rule's problems (httproute-rules.ts RuleProblem, kind `policy`: reported, not a route condition). */
  problems: { kind: 'policy'; reason: string; message: string }[];
}

/**
 * Cookie affinity on a rule with one backend: balanced mode hashes the cookie's key (ring hash, in a cluster of its
 * own `~ring-hash`), persistent mode pins the endpoint (Envoy stateful session). The cookie's Path is `rulePath`
 * unless the policy names one, as nginx's is the location's.
 */
function withAffinity(
  action: Extract<RouteActionIR, { kind: 'forward' }>,
  affinity: AffinitySettings,
  rulePath: string,
  clusters: readonly ClusterIR[],
): { action: RouteActionIR; cluster: ClusterIR; cookie: AffinityCookieIR } | { problem: string } {
  const cluster = clusters.find((c) => c.name === action.cluster);
  if (action.split !== undefined || cluster === undefined) return { problem: 'sessionAffinity needs a rule with one backendRef' };
  const sticky: ClusterIR = affinity.persistent === true || cluster.loadBalancer !== undefined ? cluster : { ...cluster, name: `${cluster.name}~ring-hash`, loadBalancer: 'ring-hash' };
  return {
    action: { ...action, cluster: sticky.name },
    cluster: sticky,
    cookie: { ...affinity, path: affinity.path ?? rulePath, backends: [{ cluster: sticky.name, key: nginxBackendKey(cluster.service) }] },
  };
}

/**
 * `attached`: the policy the lookup found for the rule; `ruleName`: how messages call the rule; `rulePath`: the
 * affinity cookie's default Path; `backendClusters`: the clusters of the rule's backendRefs.
 */
export function applyRoutePolicy(attached: AppliedRoutePolicy | undefined, action: RouteActionIR, ruleName: string, rulePath: string, backendClusters: readonly ClusterIR[]): RuleWithRoutePolicy {
  const unchanged: RuleWithRoutePolicy = { action, fields: {}, clusters: [], problems: [] };
  if (attached === undefined || action.kind !== 'forward') return unchanged;
  const name = `RoutePolicy ${attached.policy.namespace}/${attached.policy.name}`;
  if ('refused' in attached) {
    return {
      ...unchanged,
      action: { kind: 'direct', status: 500 },
      problems: [{ kind: 'policy', reason: GatewayReason.RoutePolicyNotAccepted, message: `${ruleName}: ${name} is not accepted (${attached.refused}); the rule answers 500 until it is fixed` }],
    };
  }
  const applied: RuleWithRoutePolicy = { action, fields: { ...attached.fields }, clusters: [], problems: [] };
  if (attached.affinity !== undefined) {
    const sticky = withAffinity(action, attached.affinity, rulePath, backendClusters);
    if ('problem' in sticky) {
      applied.problems.push({ kind: 'policy', reason: GatewayReason.UnsupportedValue, message: `${ruleName}: ${name}: ${sticky.problem}; the rule is served without session affinity` });
    } else {
      applied.action = sticky.action;
      applied.clusters.push(sticky.cluster);
      applied.fields.affinityCookie = sticky.cookie;
    }
  }
  // The authorization service's cluster (externalAuth).
  if (attached.cluster !== undefined) applied.clusters.push(attached.cluster);
  return applied;
}

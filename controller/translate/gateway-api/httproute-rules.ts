// HTTPRoute rule translation: a route's rules -> IR routes, one per rule and match, with what the precedence reads,
// and the problems found (for diagnostics and the route's status conditions).
import type { ClusterIR, RouteActionIR, RouteIR, RoutePolicyIR, TcpChainIR } from '../../../ir/index.js';
import type { ServiceIndex } from '../shared/backend.js';
import { namespaceOf } from '../shared/kinds.js';
import { type HTTPRoute, type HTTPRouteMatch, type HTTPRouteRule, type ReferenceGrant, refOf } from '../shared/kube-objects.js';
import { type BackendTlsContext, resolveBackendRef, resolveRuleBackends } from './backend-refs.js';
import { GatewayReason } from './reasons.js';
import { translateFilters } from './route-filters.js';
import { type MatchIR, defaultMatch, translateMatch } from './route-matches.js';
import type { RoutePolicyLookup } from './route-policies.js';
import { applyRoutePolicy } from './rule-route-policy.js';
import { translateRulePolicy } from './rule-policy.js';
import type { RankedMatch } from './route-precedence.js';

/** One match of one rule of one route, ready to be ranked and placed on its hosts. */
export interface PlacedMatch extends RankedMatch {
  ir: RouteIR;
}

/** A problem of one rule: a backendRef (ResolvedRefs) or the rule itself (a dropped match, a filter answered 500). */
export interface RuleProblem {
  /** `policy`: a backend whose BackendTLSPolicy is not accepted (reported, not a route condition). */
  kind: 'backend' | 'rule' | 'policy';
  reason: string;
  message: string;
}

export interface TranslatedRules {
  matches: PlacedMatch[];
  /** Services the rules need, by cluster name (merged into the translation's clusters). */
  clusters: ClusterIR[];
  /** `namespace/name` of every Service a backendRef names, also in another namespace (a later grant serves it). */
  services: string[];
  /** In the order found. */
  problems: RuleProblem[];
  /** TLSRoute, TCPRoute: where their connections go (l4-route-rules.ts); they have no `matches`. */
  stream?: Pick<TcpChainIR, 'backends' | 'errorWeight'>;
}

/** The affinity cookie's default Path: the rule's first path, as nginx's is the location's. */
function cookiePath(rule: HTTPRouteRule): string {
  const first = rule.matches?.[0]?.path;
  return first !== undefined && (first.type === undefined || first.type === 'PathPrefix' || first.type === 'Exact') && first.value !== undefined ? first.value : '/';
}

export function translateHttpRouteRules(route: HTTPRoute, services: ServiceIndex, grants: readonly ReferenceGrant[], backendTls?: BackendTlsContext, routePolicies?: RoutePolicyLookup): TranslatedRules {
  const namespace = namespaceOf(route.metadata);
  const placed: PlacedMatch[] = [];
  const clusters: ClusterIR[] = [];
  const referenced: string[] = [];
  const problems: RuleProblem[] = [];
  for (const [r, rule] of (route.spec?.rules ?? []).entries()) {
    // A named rule (rules[].name) is called by its name too in what is reported.
    const ruleName = rule.name === undefined ? `rule ${r}` : `rule ${r} (${rule.name})`;
    const refs = rule.backendRefs ?? [];
    const mirrorRefs = (rule.filters ?? []).flatMap((f) => (f.type === 'RequestMirror' && f.requestMirror !== undefined ? [f.requestMirror.backendRef] : []));
    for (const ref of [...refs, ...mirrorRefs]) if ((ref.kind ?? 'Service') === 'Service' && (ref.group ?? '') === '') referenced.push(`${ref.namespace ?? namespace}/${ref.name}`);
    const matches: { m: number; match: HTTPRouteMatch; ir: MatchIR }[] = [];
    for (const [m, match] of (rule.matches === undefined || rule.matches.length === 0 ? [defaultMatch] : rule.matches).entries()) {
      const translated = translateMatch(match);
      if (translated.valid) matches.push({ m, match, ir: translated.match });
      else problems.push({ kind: 'rule', reason: GatewayReason.UnsupportedValue, message: `${ruleName} match ${m}: ${translated.error}; this match is not served` });
    }
    const filters = translateFilters(rule.filters ?? [], matches.map((x) => x.ir.path), {
      resolveBackend: (ref) => resolveBackendRef(ref, namespace, services, grants, 'HTTPRoute', backendTls),
    });
    const rulePolicy = translateRulePolicy(rule);
    let action: RouteActionIR;
    let policy: RoutePolicyIR | undefined;
    if (!filters.valid) {
      problems.push({ kind: 'rule', reason: GatewayReason.UnsupportedFilter, message: `${ruleName}: ${filters.error}; the rule answers 500` });
      action = { kind: 'direct', status: 500 };
    } else if (!rulePolicy.valid) {
      problems.push({ kind: 'rule', reason: GatewayReason.UnsupportedValue, message: `${ruleName}: ${rulePolicy.error}; the rule answers 500` });
      action = { kind: 'direct', status: 500 };
    } else if (filters.redirect !== undefined) {
      // A redirect answers every request of the rule itself: its backendRefs are not used.
      action = filters.redirect;
    } else {
      const backends = resolveRuleBackends(refs, namespace, services, grants, 'HTTPRoute', backendTls);
      for (const problem of backends.invalid) problems.push({ kind: problem.policy ? 'policy' : 'backend', reason: problem.reason, message: `${ruleName}: ${problem.message}` });
      for (const message of backends.refused) problems.push({ kind: 'rule', reason: GatewayReason.UnsupportedFilter, message: `${ruleName}: ${message}` });
      // A mirror's invalid backendRef: ResolvedRefs False too (the spec), the mirror dropped.
      for (const problem of filters.invalid) problems.push({ kind: problem.policy ? 'policy' : 'backend', reason: problem.reason, message: `${ruleName}: ${problem.message}` });
      clusters.push(...backends.clusters);
      action = backends.action;
      // A RoutePolicy (route-policies.ts) on this rule, or on the whole route: its access control and authentication.
      const applied = applyRoutePolicy(routePolicies?.('HTTPRoute', namespace, route.metadata.name, rule.name), action, ruleName, cookiePath(rule), backends.clusters);
      problems.push(...applied.problems);
      action = applied.action;
      if (action.kind === 'forward') {
        const combined: RoutePolicyIR = {
          ...filters.policy,
          ...rulePolicy.policy,
          ...(backends.websocket ? { websocket: true as const } : {}),
          ...applied.fields,
        };
        clusters.push(...filters.clusters, ...applied.clusters);
        if (Object.keys(combined).length > 0) policy = combined;
      }
    }
    for (const { m, match, ir: translated } of matches) {
      const { path, headers, queryParams, rankedPath } = translated;
      const ir: RouteIR = {
        name: `httproute/${namespace}/${route.metadata.name}/rule/${r}/match/${m}`,
        match: path,
        ...(headers.length > 0 ? { headers } : {}),
        ...(queryParams.length > 0 ? { queryParams } : {}),
        action,
        source: refOf(route),
        rulePath: { rule: r, path: m },
        ...(policy === undefined ? {} : { policy }),
      };
      placed.push({
        path: rankedPath,
        method: match.method !== undefined,
        headers: headers.length - (match.method !== undefined ? 1 : 0),
        queryParams: queryParams.length,
        route,
        rule: r,
        match: m,
        ir,
      });
    }
  }
  return { matches: placed, clusters, services: referenced, problems };
}

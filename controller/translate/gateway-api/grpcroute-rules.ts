// GRPCRoute rule translation: a route's rules -> IR routes (one per rule and match) on the same HTTP listeners as
// HTTPRoutes. A gRPC call is an HTTP/2 POST to `/<service>/<method>`, so a method match is a path match:
// - Exact service and method: the exact path `/<service>/<method>`; service only: every method of it (`/<service>/`);
//   method only: that method of any service (RE2 `/[^/]+/<method>`);
// - RegularExpression: RE2 `/<service>/<method>`, each part `[^/]+` when absent.
// Header matches as HTTPRoute's. Filters: header modifiers both ways and request mirrors (the GRPCRoute set); on a
// backendRef, the header modifiers (backend-filters.ts). Backends
// are spoken to over HTTP/2 (backend-refs.ts). A RoutePolicy (route-policies.ts) applies as on an HTTPRoute rule;
// its denials are Envoy local replies, which Envoy answers a gRPC request with as gRPC (trailers-only, grpc-status). The precedence (the GRPCRoute spec: the longest service, then the
// longest method, then most header matches) ranks an exact service+method like an Exact path, a service alone like a
// prefix and a method alone or a regex like a regex, each by its length.
import type { ClusterIR, HeaderMatchIR, PathMatchIR, RouteActionIR, RouteIR, RoutePolicyIR } from '../../../ir/index.js';
import type { ServiceIndex } from '../shared/backend.js';
import { namespaceOf } from '../shared/kinds.js';
import { type GRPCRoute, type GRPCRouteMatch, type ReferenceGrant, refOf } from '../shared/kube-objects.js';
import { type BackendTlsContext, resolveBackendRef, resolveRuleBackends } from './backend-refs.js';
import type { PlacedMatch, RuleProblem, TranslatedRules } from './httproute-rules.js';
import { GatewayReason } from './reasons.js';
import { regexError } from './regex-check.js';
import { translateFilters } from './route-filters.js';
import type { RoutePolicyLookup } from './route-policies.js';
import type { RankedMatch } from './route-precedence.js';
import { applyRoutePolicy } from './rule-route-policy.js';

/** The filter types the GRPCRoute spec allows (ExtensionRef is not served: the rule answers 500, as for HTTPRoute). */
const grpcFilterTypes = new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestMirror']);

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

interface GrpcMatchIR {
  path: PathMatchIR;
  rankedPath: RankedMatch['path'];
  headers: HeaderMatchIR[];
}

type TranslatedGrpcMatch = { valid: true; match: GrpcMatchIR } | { valid: false; error: string };

export function translateGrpcMatch(match: GRPCRouteMatch): TranslatedGrpcMatch {
  const method = match.method;
  let path: PathMatchIR;
  let rankedPath: RankedMatch['path'];
  if (method === undefined || (method.service === undefined && method.method === undefined)) {
    if (method !== undefined && (method.type ?? 'Exact') === 'Exact') return { valid: false, error: 'a method match names neither service nor method' };
    path = { kind: 'prefix', path: '/' };
    rankedPath = { type: 'PathPrefix', value: '/' };
  } else if ((method.type ?? 'Exact') === 'Exact') {
    for (const part of [method.service, method.method]) {
      if (part !== undefined && !/^[^/]+$/.test(part)) return { valid: false, error: `method match ${JSON.stringify(part)} contains "/"` };
    }
    if (method.service !== undefined && method.method !== undefined) {
      path = { kind: 'exact', path: `/${method.service}/${method.method}` };
      rankedPath = { type: 'Exact', value: path.path };
    } else if (method.service !== undefined) {
      path = { kind: 'prefix', path: `/${method.service}` };
      rankedPath = { type: 'PathPrefix', value: `/${method.service}/` };
    } else {
      const regex = `/[^/]+/${escapeRegex(method.method as string)}`;
      path = { kind: 'regex', path: regex, regex };
      rankedPath = { type: 'RegularExpression', value: `/${method.method as string}` };
    }
  } else {
    for (const part of [method.service, method.method]) {
      const error = part === undefined ? undefined : regexError(part);
      if (error !== undefined) return { valid: false, error: `method ${error}` };
    }
    const regex = `/${method.service ?? '[^/]+'}/${method.method ?? '[^/]+'}`;
    path = { kind: 'regex', path: regex, regex };
    rankedPath = { type: 'RegularExpression', value: `/${method.service ?? ''}/${method.method ?? ''}` };
  }
  const headers: HeaderMatchIR[] = [];
  const seen = new Set<string>();
  for (const header of match.headers ?? []) {
    const name = header.name.toLowerCase();
    if (seen.has(name)) continue;
    seen.add(name);
    const kind = header.type === 'RegularExpression' ? 'regex' : 'exact';
    if (kind === 'regex') {
      const error = regexError(header.value);
      if (error !== undefined) return { valid: false, error: `header ${header.name}: ${error}` };
    }
    headers.push({ name, kind, value: header.value });
  }
  return { valid: true, match: { path, rankedPath, headers } };
}

/**
 * The affinity cookie's default Path (a RoutePolicy's sessionAffinity): the service or method path of the rule's first
 * match, as nginx's is the location's (a gRPC Ingress path is `/<service>` or `/<service>/<method>`); otherwise `/`.
 */
function cookiePath(first: GrpcMatchIR | undefined): string {
  return first !== undefined && (first.path.kind === 'exact' || first.path.kind === 'prefix') ? first.path.path : '/';
}

export function translateGrpcRouteRules(route: GRPCRoute, services: ServiceIndex, grants: readonly ReferenceGrant[], backendTls?: BackendTlsContext, routePolicies?: RoutePolicyLookup): TranslatedRules {
  const namespace = namespaceOf(route.metadata);
  const placed: PlacedMatch[] = [];
  const clusters: ClusterIR[] = [];
  const referenced: string[] = [];
  const problems: RuleProblem[] = [];
  for (const [r, rule] of (route.spec?.rules ?? []).entries()) {
    const ruleName = rule.name === undefined ? `rule ${r}` : `rule ${r} (${rule.name})`;
    const refs = rule.backendRefs ?? [];
    const mirrorRefs = (rule.filters ?? []).flatMap((f) => (f.type === 'RequestMirror' && f.requestMirror !== undefined ? [f.requestMirror.backendRef] : []));
    for (const ref of [...refs, ...mirrorRefs]) if ((ref.kind ?? 'Service') === 'Service' && (ref.group ?? '') === '') referenced.push(`${ref.namespace ?? namespace}/${ref.name}`);
    const matches: { m: number; ir: GrpcMatchIR }[] = [];
    for (const [m, match] of (rule.matches === undefined || rule.matches.length === 0 ? [{}] : rule.matches).entries()) {
      const translated = translateGrpcMatch(match);
      if (translated.valid) matches.push({ m, ir: translated.match });
      else problems.push({ kind: 'rule', reason: GatewayReason.UnsupportedValue, message: `${ruleName} match ${m}: ${translated.error}; this match is not served` });
    }
    const unsupported = (rule.filters ?? []).find((f) => !grpcFilterTypes.has(f.type));
    const filters = unsupported === undefined
      ? translateFilters(rule.filters ?? [], matches.map((x) => x.ir.path), { resolveBackend: (ref) => resolveBackendRef(ref, namespace, services, grants, 'GRPCRoute', backendTls) })
      : { valid: false as const, error: `filter ${unsupported.type} is not supported on a GRPCRoute` };
    let action: RouteActionIR;
    let policy: RoutePolicyIR | undefined;
    if (!filters.valid) {
      problems.push({ kind: 'rule', reason: GatewayReason.UnsupportedFilter, message: `${ruleName}: ${filters.error}; the rule answers 500` });
      action = { kind: 'direct', status: 500 };
    } else {
      const backends = resolveRuleBackends(refs, namespace, services, grants, 'GRPCRoute', backendTls);
      for (const problem of backends.invalid) problems.push({ kind: problem.policy ? 'policy' : 'backend', reason: problem.reason, message: `${ruleName}: ${problem.message}` });
      for (const message of backends.refused) problems.push({ kind: 'rule', reason: GatewayReason.UnsupportedFilter, message: `${ruleName}: ${message}` });
      for (const problem of filters.invalid) problems.push({ kind: problem.policy ? 'policy' : 'backend', reason: problem.reason, message: `${ruleName}: ${problem.message}` });
      clusters.push(...backends.clusters);
      // A RoutePolicy on this rule (sectionName: rules[].name) or on the whole route.
      const applied = applyRoutePolicy(routePolicies?.('GRPCRoute', namespace, route.metadata.name, rule.name), backends.action, ruleName, cookiePath(matches[0]?.ir), backends.clusters);
      problems.push(...applied.problems);
      action = applied.action;
      if (action.kind === 'forward') {
        clusters.push(...filters.clusters, ...applied.clusters);
        const combined: RoutePolicyIR = { ...filters.policy, ...applied.fields };
        if (Object.keys(combined).length > 0) policy = combined;
      }
    }
    for (const { m, ir: translated } of matches) {
      const ir: RouteIR = {
        name: `grpcroute/${namespace}/${route.metadata.name}/rule/${r}/match/${m}`,
        match: translated.path,
        ...(translated.headers.length > 0 ? { headers: translated.headers } : {}),
        action,
        source: refOf(route),
        rulePath: { rule: r, path: m },
        ...(policy === undefined ? {} : { policy }),
      };
      placed.push({ path: translated.rankedPath, method: false, headers: translated.headers.length, queryParams: 0, route, rule: r, match: m, ir });
    }
  }
  return { matches: placed, clusters, services: referenced, problems };
}

// A rule's filters -> what they do to its routes: header changes both ways, a redirect in place of forwarding, a URL
// rewrite, request mirrors, CORS. A filter that cannot be served makes the rule answer 500 instead: serving it without
// the filter could forward what the filter would have redirected or stripped (an auth header, say). A mirror whose
// backendRef is invalid is dropped (the spec), the rule served without it.
import type {
  ClusterIR,
  CorsPolicyIR,
  PathMatchIR,
  RedirectIR,
  RequestMirrorIR,
  RoutePolicyIR,
} from '../../../ir/index.js';
import type { HTTPBackendRef, HTTPCORSFilter, HTTPRequestMirrorFilter, HTTPRouteFilter } from '../shared/kube-objects.js';
import type { InvalidBackend, ResolvedBackend } from './backend-refs.js';
import { headerMutation } from './header-mutation.js';

export type RuleFilters =
  | {
      valid: true;
      redirect?: RedirectIR;
      policy: RoutePolicyIR;
      /** The mirrors' clusters. */
      clusters: ClusterIR[];
      /** Mirrors dropped for their backendRef (ResolvedRefs reasons). */
      invalid: InvalidBackend[];
    }
  | { valid: false; error: string };

/** What the filters need from the rest of the translation. */
export interface FilterContext {
  /** A mirror's backendRef -> its cluster (same rules as a backendRef: kind, ReferenceGrant, Service and port). */
  resolveBackend(ref: HTTPBackendRef): ResolvedBackend;
}

const redirectStatuses = [301, 302, 303, 307, 308] as const;

/** The mirror's share: percent or fraction (the spec allows one of them; neither: every request). */
function mirrorFraction(mirror: HTTPRequestMirrorFilter): RequestMirrorIR['fraction'] | { error: string } | undefined {
  if (mirror.percent !== undefined && mirror.fraction !== undefined) return { error: 'RequestMirror with both percent and fraction' };
  if (mirror.percent !== undefined) {
    if (!Number.isInteger(mirror.percent) || mirror.percent < 0 || mirror.percent > 100) return { error: `RequestMirror percent ${mirror.percent} is not 0-100` };
    return mirror.percent === 100 ? undefined : { numerator: mirror.percent, denominator: 100 };
  }
  if (mirror.fraction !== undefined) {
    const { numerator } = mirror.fraction;
    const denominator = mirror.fraction.denominator ?? 100;
    if (!Number.isInteger(numerator) || !Number.isInteger(denominator) || numerator < 0 || denominator < 1 || numerator > denominator) {
      return { error: `RequestMirror fraction ${numerator}/${denominator} is not a share (0 <= numerator <= denominator, denominator >= 1)` };
    }
    return numerator === denominator ? undefined : { numerator, denominator };
  }
  return undefined;
}

/**
 * The host part of a Gateway API CORS origin as an RE2 pattern of the whole Origin: `*` matches any number of labels
 * to its left (the spec: "a greedy match to the left"), never a `/` or a port.
 */
function originPattern(origin: string): string {
  return `^${origin
    .split('*')
    .map((part) => part.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'))
    .join('[^/:]+')}$`;
}

function translateCors(cors: HTTPCORSFilter): CorsPolicyIR {
  const origins = cors.allowOrigins ?? [];
  const exact = origins.filter((o) => o === '*' || !o.includes('*'));
  const wildcards = origins.filter((o) => o !== '*' && o.includes('*'));
  return {
    allowOrigins: exact,
    ...(wildcards.length > 0 ? { allowOriginPatterns: wildcards.map(originPattern) } : {}),
    allowMethods: [...(cors.allowMethods ?? [])],
    allowHeaders: [...(cors.allowHeaders ?? [])],
    exposeHeaders: [...(cors.exposeHeaders ?? [])],
    allowCredentials: cors.allowCredentials === true,
    ...(cors.maxAge === undefined ? {} : { maxAgeSeconds: cors.maxAge }),
  };
}

/**
 * `matches`: the IR paths of the rule's matches, since ReplacePrefixMatch needs each to be a prefix (the spec); a rule
 * whose matches are not all prefixes cannot take it.
 */
export function translateFilters(filters: readonly HTTPRouteFilter[], matches: readonly PathMatchIR[], context: FilterContext): RuleFilters {
  const policy: RoutePolicyIR = {};
  let redirect: RedirectIR | undefined;
  const mirrors: RequestMirrorIR[] = [];
  const clusters: ClusterIR[] = [];
  const invalid: InvalidBackend[] = [];
  const allPrefixes = matches.every((m) => m.kind === 'prefix');
  const seen = new Set<string>();
  for (const filter of filters) {
    // The spec allows each filter type once per rule, except RequestMirror and ExtensionRef.
    if (filter.type !== 'RequestMirror' && filter.type !== 'ExtensionRef') {
      if (seen.has(filter.type)) return { valid: false, error: `filter ${filter.type} more than once` };
      seen.add(filter.type);
    }
    switch (filter.type) {
      case 'RequestHeaderModifier':
        if (filter.requestHeaderModifier === undefined) return { valid: false, error: 'RequestHeaderModifier without requestHeaderModifier' };
        policy.requestHeaders = headerMutation(filter.requestHeaderModifier);
        break;
      case 'ResponseHeaderModifier':
        if (filter.responseHeaderModifier === undefined) return { valid: false, error: 'ResponseHeaderModifier without responseHeaderModifier' };
        policy.responseHeaders = headerMutation(filter.responseHeaderModifier);
        break;
      case 'RequestRedirect': {
        const r = filter.requestRedirect ?? {};
        const statusCode = redirectStatuses.find((s) => s === (r.statusCode ?? 302));
        if (statusCode === undefined) return { valid: false, error: `RequestRedirect statusCode ${r.statusCode} is not supported` };
        if (r.scheme !== undefined && r.scheme !== 'http' && r.scheme !== 'https') return { valid: false, error: `RequestRedirect scheme ${r.scheme} is not supported` };
        redirect = { kind: 'redirect', statusCode };
        if (r.scheme !== undefined) redirect.scheme = r.scheme;
        if (r.hostname !== undefined) redirect.host = r.hostname;
        if (r.port !== undefined) redirect.port = r.port;
        if (r.path !== undefined) {
          if (r.path.type === 'ReplaceFullPath' && r.path.replaceFullPath !== undefined) {
            redirect.path = { kind: 'replace', path: r.path.replaceFullPath };
          } else if (r.path.type === 'ReplacePrefixMatch' && r.path.replacePrefixMatch !== undefined) {
            if (!allPrefixes) return { valid: false, error: 'RequestRedirect ReplacePrefixMatch needs every match of the rule to be a PathPrefix' };
            redirect.path = { kind: 'replace-prefix', replacement: r.path.replacePrefixMatch };
          } else {
            return { valid: false, error: `RequestRedirect path ${r.path.type} without its value` };
          }
        }
        break;
      }
      case 'URLRewrite': {
        const u = filter.urlRewrite ?? {};
        if (u.hostname !== undefined) policy.hostRewrite = u.hostname;
        if (u.path?.type === 'ReplaceFullPath' && u.path.replaceFullPath !== undefined) {
          policy.rewrite = { kind: 'regex', pattern: '^/.*$', substitution: u.path.replaceFullPath };
        } else if (u.path?.type === 'ReplacePrefixMatch' && u.path.replacePrefixMatch !== undefined) {
          if (!allPrefixes) return { valid: false, error: 'URLRewrite ReplacePrefixMatch needs every match of the rule to be a PathPrefix' };
          // The IR's prefix rewrite replaces the matched prefix without leaving `//` (envoy/route-policy.ts).
          policy.rewrite = { kind: 'prefix', replacement: u.path.replacePrefixMatch };
        } else if (u.path !== undefined) {
          return { valid: false, error: `URLRewrite path ${u.path.type} without its value` };
        }
        break;
      }
      case 'RequestMirror': {
        if (filter.requestMirror === undefined) return { valid: false, error: 'RequestMirror without requestMirror' };
        const fraction = mirrorFraction(filter.requestMirror);
        if (fraction !== undefined && 'error' in fraction) return { valid: false, error: fraction.error };
        const resolved = context.resolveBackend(filter.requestMirror.backendRef);
        if (!resolved.valid) {
          invalid.push({ reason: resolved.problem.reason, message: `RequestMirror: ${resolved.problem.message}; requests are not mirrored there`, ...(resolved.problem.policy ? { policy: true as const } : {}) });
          break;
        }
        if (!clusters.some((c) => c.name === resolved.cluster.name)) clusters.push(resolved.cluster);
        mirrors.push({ cluster: resolved.cluster.name, ...(fraction === undefined ? {} : { fraction }) });
        break;
      }
      case 'CORS':
        if (filter.cors === undefined) return { valid: false, error: 'CORS without cors' };
        policy.cors = translateCors(filter.cors);
        break;
      default:
        return { valid: false, error: `filter ${filter.type} is not supported` };
    }
  }
  if (redirect !== undefined && (policy.rewrite !== undefined || policy.hostRewrite !== undefined)) {
    return { valid: false, error: 'RequestRedirect and URLRewrite in one rule' };
  }
  if (mirrors.length > 0) policy.mirrors = mirrors;
  return { valid: true, ...(redirect === undefined ? {} : { redirect }), policy, clusters, invalid };
}

/**
 * A rule's redirect as served on a listener (the spec's port rules): without a port, the new scheme's well-known port
 * when it names a scheme, else the listener's port; without a scheme, the listener's. A scheme's default port is left
 * out of the Location (the spec's SHOULD), which Envoy does only when no port is given: it writes any port it is given.
 * Known gap: with no hostname either, a port-less redirect keeps a port the client's Host header carries.
 */
export function redirectOnListener(redirect: RedirectIR, listener: { port: number; scheme: 'http' | 'https' }): RedirectIR {
  const scheme = redirect.scheme ?? listener.scheme;
  const port = redirect.port ?? (redirect.scheme !== undefined ? (scheme === 'https' ? 443 : 80) : listener.port);
  const { port: _given, ...rest } = redirect;
  return port === (scheme === 'https' ? 443 : 80) ? { ...rest, scheme } : { ...rest, scheme, port };
}

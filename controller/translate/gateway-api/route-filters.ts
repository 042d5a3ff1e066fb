// A rule's filters -> what they do to its routes: header changes both ways, a redirect in place of forwarding, a URL
// rewrite. A filter that cannot be served makes the rule answer 500 instead: serving it without the filter could
// forward what the filter would have redirected or stripped (an auth header, say).
import type { HeaderIR, HeaderMutationIR, PathMatchIR, RedirectIR, RoutePolicyIR } from '../../../ir/index.js';
import type { HTTPHeaderFilter, HTTPRouteFilter } from '../shared/kube-objects.js';

export type RuleFilters =
  | { valid: true; redirect?: RedirectIR; policy: RoutePolicyIR }
  | { valid: false; error: string };

function mutation(filter: HTTPHeaderFilter): HeaderMutationIR {
  const pairs = (list: { name: string; value: string }[] | undefined): HeaderIR[] => (list ?? []).map(({ name, value }) => ({ name: name.toLowerCase(), value }));
  const add = pairs(filter.add);
  return { set: pairs(filter.set), remove: (filter.remove ?? []).map((n) => n.toLowerCase()), ...(add.length > 0 ? { add } : {}) };
}

const redirectStatuses = [301, 302, 303, 307, 308] as const;

/**
 * `matches`: the IR paths of the rule's matches, since ReplacePrefixMatch needs each to be a prefix (the spec); a rule
 * whose matches are not all prefixes cannot take it.
 */
export function translateFilters(filters: readonly HTTPRouteFilter[], matches: readonly PathMatchIR[]): RuleFilters {
  const policy: RoutePolicyIR = {};
  let redirect: RedirectIR | undefined;
  const allPrefixes = matches.every((m) => m.kind === 'prefix');
  for (const filter of filters) {
    switch (filter.type) {
      case 'RequestHeaderModifier':
        if (filter.requestHeaderModifier === undefined) return { valid: false, error: 'RequestHeaderModifier without requestHeaderModifier' };
        policy.requestHeaders = mutation(filter.requestHeaderModifier);
        break;
      case 'ResponseHeaderModifier':
        if (filter.responseHeaderModifier === undefined) return { valid: false, error: 'ResponseHeaderModifier without responseHeaderModifier' };
        policy.responseHeaders = mutation(filter.responseHeaderModifier);
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
          if (r.path.type !== 'ReplaceFullPath' || r.path.replaceFullPath === undefined) {
            return { valid: false, error: `RequestRedirect path ${r.path.type} is not supported yet` };
          }
          redirect.path = { kind: 'replace', path: r.path.replaceFullPath };
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
      default:
        return { valid: false, error: `filter ${filter.type} is not supported yet` };
    }
  }
  if (redirect !== undefined && (policy.rewrite !== undefined || policy.hostRewrite !== undefined)) {
    return { valid: false, error: 'RequestRedirect and URLRewrite in one rule' };
  }
  return { valid: true, ...(redirect === undefined ? {} : { redirect }), policy };
}

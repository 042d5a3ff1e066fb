// `explain`: which Ingress, rule, path and backend serve a request, computed from the IR exactly the way the
// generated Envoy config decides it. Pure: the same IR and request always give the same answer.
//
// Envoy's decisions, in order, and how they are modelled here:
// 1. Listener: plain HTTP uses the `http` route table; HTTPS picks a TLS filter chain by SNI (exact name first,
//    then the longest `*.suffix`, at any depth as Envoy does) or, when none matches, closes the connection.
// 2. Virtual host: exact host, then a wildcard covering exactly one label (the envoy layer adds an :authority
//    check because Envoy's own `*.example.com` also takes `a.b.example.com`), then the catch-all `*`; a route
//    table without `*` answers 404 itself.
// 3. Route: the first route of the virtual host, in order, whose match takes the normalised path (query
//    dropped, `//` merged, dot segments resolved: normalize_path and merge_slashes are on) and whose header,
//    method (`:method`) and query parameter conditions the request meets.
// Gateway API listeners (chosen by port and address, or by Gateway and listener name) work the same way, except
// that their wildcard host names cover one or more labels (the longest wildcard first, as Envoy picks domains).
import type { ClusterEndpointsIR, EndpointIR, DataPlaneIR, ListenerIR, PathMatchIR, RedirectIR, RouteIR, RouteTableIR, SourceRef, VirtualHostIR } from '../ir/index.js';
import { prefixRewriteRegex } from '../envoy/route-policy.js';
import { withRe2 } from './translate/shared/re2.js';
import { X509Certificate } from 'node:crypto';
import type { Diagnostic } from './translate/shared/diagnostics.js';
import type { ObjectRef } from './translate/shared/kube-objects.js';
import { clusterServing } from './translate/ingress/nginx/nginx-default-backend.js';
import { describeMatch } from './translate/ingress/path-match.js';
import { regexMatchesPath } from './translate/ingress/path-match-regex.js';

export interface ExplainRequest {
  /** Host header (and SNI for https); a port is ignored, as Envoy strips it. */
  host: string;
  /** Request path, possibly with a query string. */
  path: string;
  scheme?: 'http' | 'https';
  /** For https: the TLS server name when it differs from the host; `""` for a client that sends none. */
  sni?: string;
  /**
   * The port the request arrives on: a Gateway listener's (the Envoy port serving it, which is the listener's own
   * port unless Gateways have ports of their own, --gateway-port-range). Absent: the Ingress listeners.
   */
  port?: number;
  /** With `port`: the IP it arrives on, for Gateways with addresses of their own (--gateway-address-pool). */
  address?: string;
  /** The Gateway (and, by name, its listener) the request arrives at, instead of `port`. */
  gateway?: { namespace: string; name: string; listener?: string };
  /** Default GET. */
  method?: string;
  /** Request headers (names case-insensitive) the routes' header matches see. */
  headers?: Readonly<Record<string, string>>;
}

/** A Gateway's listeners by name and port, to pick an IR listener by `--gateway ns/name --listener NAME`. */
export interface GatewayListeners {
  namespace: string;
  name: string;
  listeners: { name: string; port: number }[];
}

export interface ExplainInput {
  ir: DataPlaneIR;
  endpoints: readonly ClusterEndpointsIR[];
  diagnostics: readonly Diagnostic[];
  /** The Gateways of our classes (for `gateway.listener`); absent: a listener is chosen by port only. */
  gateways?: readonly GatewayListeners[];
  /** `namespace/name` of an HTTPRoute -> its rules' names (spec.rules[].name, undefined for unnamed rules). */
  ruleNames?: Readonly<Record<string, readonly (string | undefined)[]>>;
}

export interface VirtualHostConsideration {
  virtualHost: string;
  outcome: 'selected' | 'no-match';
  reason: string;
}

export interface RouteConsideration {
  route: string;
  /** e.g. `Prefix /api`. */
  match: string;
  /** The Ingress the route came from; absent for the controller's own routes (404 page, https redirect). */
  source?: SourceRef;
  rule?: number;
  /** An Ingress rule's path, or an HTTPRoute rule's match (the index in spec.rules[rule].matches). */
  path?: number;
  /** An HTTPRoute rule's name (spec.rules[].name), when it has one. */
  ruleName?: string;
  /** The header (`:method` for the method) and query parameter conditions, e.g. `header x-canary = "yes"`. */
  conditions?: string[];
  outcome: 'selected' | 'no-match' | 'shadowed' | 'not-tried';
  reason: string;
}

export type ExplainedResponse =
  | {
      kind: 'forward';
      cluster: string;
      service: { namespace: string; name: string; port: number } | null;
      /** Ready endpoints Envoy balances over; none means Envoy answers 503. */
      endpoints: EndpointIR[];
      /** A canary (ingress-nginx canary-weight) that gets `weight` out of `totalWeight` of these requests instead. */
      canary?: { cluster: string; service: { namespace: string; name: string; port: number } | null; weight: number; totalWeight: number };
      /**
       * Weighted backends (an HTTPRoute rule's backendRefs), the route's own cluster first: each gets `weight` out of
       * the sum; `error` is the share of invalid backendRefs, answered 500.
       */
      backends?: WeightedBackend[];
      /** What the backend receives instead of the request's path and Host (URLRewrite, rewrite annotations). */
      upstream?: { path?: string; host?: string };
    }
  | { kind: 'redirect'; status: number; location: string }
  | { kind: 'direct'; status: number }
  /** No TLS filter chain for the SNI: Envoy closes the connection during the handshake. */
  | { kind: 'reset' };

export interface WeightedBackend {
  /** null for the share answered 500 (invalid backendRefs). */
  cluster: string | null;
  service: { namespace: string; name: string; port: number } | null;
  weight: number;
  totalWeight: number;
  /** Ready endpoints of the cluster; none: its share is answered 503. */
  endpoints: EndpointIR[];
}

export interface Explanation {
  request: { scheme: 'http' | 'https'; host: string; path: string; method?: string; port?: number; address?: string };
  listener: 'http' | 'https';
  /** A Gateway listener that takes the request (absent: the Ingress listeners): the IR listener, its port and Gateways. */
  gatewayListener?: { name: string; port: number; address?: string; gateways: string[] };
  /** The TLS filter chain that terminates the connection (https only). */
  tlsServer: string | null;
  /**
   * The certificate that chain presents, and whether it covers the SNI name: when it does not, clients that
   * verify the server name (browsers, curl) refuse the session whatever the routes say. null for plain HTTP.
   */
  certificate: { secret: string; coversSni: boolean | null } | null;
  routeTable: string | null;
  virtualHosts: VirtualHostConsideration[];
  virtualHost: string | null;
  routes: RouteConsideration[];
  route: RouteConsideration | null;
  response: ExplainedResponse;
  /** The HTTP status Envoy itself answers with; null when the request is proxied to a backend. */
  status: number | null;
  /** One sentence: "served by ..." or "404 because ...". */
  verdict: string;
  /** Problems of the Ingresses involved (e.g. a rule for this host skipped for a conflict). */
  diagnostics: Diagnostic[];
  /**
   * The namespace whose Ingresses route the selected host (host ownership: the namespace of the oldest Ingress
   * routing it, translate/ingress/host-ownership.ts), or every namespace merged into it under
   * --allow-cross-namespace-hosts; absent for the catch-all and hosts without rule routes.
   */
  hostOwner?: { namespaces: string[] };
}

/** Namespaces of the rule routes of a named host: the owner's alone unless namespaces are merged. */
function hostOwnerOf(vhost: { name: string; routes: readonly { rulePath?: unknown; source?: { namespace: string } }[] }): { hostOwner?: { namespaces: string[] } } {
  if (vhost.name === '*') return {};
  const namespaces = [...new Set(vhost.routes.flatMap((r) => (r.rulePath !== undefined && r.source !== undefined ? [r.source.namespace] : [])))].sort();
  return namespaces.length === 0 ? {} : { hostOwner: { namespaces } };
}

/** Lower case, without a port and a trailing dot. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1); // IPv6 literal
  const colon = h.lastIndexOf(':');
  if (colon >= 0 && /^\d*$/.test(h.slice(colon + 1))) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** What Envoy matches routes against: query and fragment dropped, `//` merged, `.` and `..` resolved. */
export function normalizeRequestPath(path: string): string {
  let p = path;
  for (const stop of ['?', '#']) {
    const at = p.indexOf(stop);
    if (at >= 0) p = p.slice(0, at);
  }
  if (!p.startsWith('/')) p = `/${p}`;
  const out: string[] = [];
  const segments = p.split('/').slice(1);
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '..') {
      out.pop();
      if (last) out.push('');
    } else if (segment === '.') {
      if (last) out.push('');
    } else if (segment === '' && !last) {
      // merge_slashes: an empty segment in the middle is a doubled slash
    } else out.push(segment);
  });
  return `/${out.join('/')}`;
}

/** Envoy's match for an IR path (see envoy/route.ts: `path`, `prefix: /`, `path_separated_prefix`). */
export function pathMatches(match: PathMatchIR, path: string): boolean {
  if (match.kind === 'exact') return path === match.path;
  if (match.kind === 'regex') return regexMatchesPath(match, path);
  if (match.kind === 'character-prefix') return path.startsWith(match.path);
  if (match.path === '/') return true;
  return path === match.path || path.startsWith(`${match.path}/`);
}

export function describePathMatch(match: PathMatchIR): string {
  return describeMatch(match);
}

/**
 * The TLS filter chain Envoy picks for an SNI: exact, else the longest matching `*.suffix`, else the chain
 * without server names (the default certificate), if any.
 */
export function selectTlsServer<T extends { serverNames: string[] }>(servers: readonly T[], sni: string): T | undefined {
  const exact = servers.find((s) => s.serverNames.includes(sni));
  if (exact) return exact;
  const labels = sni.split('.');
  for (let i = 1; i < labels.length; i++) {
    const wildcard = `*.${labels.slice(i).join('.')}`;
    const found = servers.find((s) => s.serverNames.includes(wildcard));
    if (found) return found;
  }
  return servers.find((s) => s.serverNames.length === 0);
}

/** The one-label wildcard that covers a host (`a.example.com` -> `*.example.com`), if the host has a parent. */
function oneLabelWildcard(host: string): string | undefined {
  const dot = host.indexOf('.');
  return dot > 0 ? `*${host.slice(dot)}` : undefined;
}

/** Envoy's own wildcard domain match, which also covers several labels. */
function envoyWildcardMatches(hostname: string, host: string): boolean {
  return hostname.startsWith('*.') && host.endsWith(hostname.slice(1)) && host.length > hostname.length - 1;
}

interface HostSelection {
  vhost: VirtualHostIR | undefined;
  considered: VirtualHostConsideration[];
}

export function selectVirtualHost(table: RouteTableIR, host: string): HostSelection {
  const exact = table.virtualHosts.find((v) => v.hostnames.includes(host));
  const wildcard = oneLabelWildcard(host);
  // Envoy tries the longest wildcard domain first. An Ingress host's `*.suffix` takes exactly one label; a Gateway
  // API host's (wildcardLabels one-or-more) any number.
  let byWildcard: VirtualHostIR | undefined;
  let byWildcardName = '';
  const labels = host.split('.');
  for (let i = 1; exact === undefined && byWildcard === undefined && i < labels.length; i++) {
    const candidate = `*.${labels.slice(i).join('.')}`;
    byWildcard = table.virtualHosts.find((v) => v.hostnames.includes(candidate) && (i === 1 || v.wildcardLabels === 'one-or-more'));
    byWildcardName = candidate;
  }
  const catchAll = exact || byWildcard ? undefined : table.virtualHosts.find((v) => v.hostnames.includes('*'));
  const chosen = exact ?? byWildcard ?? catchAll;
  const considered = table.virtualHosts.map((v): VirtualHostConsideration => {
    if (v === chosen) {
      const reason =
        v === exact
          ? `host ${host} is one of its names`
          : v === byWildcard
            ? v.wildcardLabels === 'one-or-more'
              ? `${byWildcardName} covers ${host} (one or more labels, a Gateway API wildcard; the longest wildcard wins) and no virtual host names ${host} itself`
              : `${wildcard} covers ${host} (exactly one label) and no virtual host names ${host} itself`
            : `catch-all: no virtual host names ${host} or a wildcard covering it`;
      return { virtualHost: v.name, outcome: 'selected', reason };
    }
    const multiLabel = v.hostnames.find((n) => envoyWildcardMatches(n, host));
    if (multiLabel !== undefined && v.wildcardLabels === 'one-or-more') {
      return { virtualHost: v.name, outcome: 'no-match', reason: `${multiLabel} covers ${host} too, but ${exact ? `${host} is named exactly` : `the longer wildcard ${byWildcardName} wins`}` };
    }
    if (multiLabel !== undefined && !v.hostnames.includes(wildcard ?? '')) {
      return {
        virtualHost: v.name,
        outcome: 'no-match',
        reason: `${multiLabel} matches exactly one label, ${host} has more (Envoy's domain would match, the :authority check refuses)`,
      };
    }
    if (v.hostnames.includes('*')) return { virtualHost: v.name, outcome: 'no-match', reason: 'catch-all, only used when nothing else matches' };
    return { virtualHost: v.name, outcome: 'no-match', reason: `${v.hostnames.join(', ')} does not match ${host}` };
  });
  return { vhost: chosen, considered };
}

function whereOf(c: RouteConsideration): string {
  if (!c.source) return `route ${c.route}`;
  if (c.source.kind !== 'Ingress') {
    const object = `${c.source.kind} ${c.source.namespace}/${c.source.name}`;
    if (c.rule === undefined) return `${object} route ${c.route}`;
    const conditions = c.conditions?.length ? `, ${c.conditions.join(', ')}` : '';
    return `${object} rule ${c.rule}${c.ruleName === undefined ? '' : ` (${c.ruleName})`} match ${c.path} (${c.match}${conditions})`;
  }
  const ingress = `Ingress ${c.source.namespace}/${c.source.name}`;
  if (c.rule !== undefined) return `${ingress} rule ${c.rule} path ${c.path} (${c.match})`;
  if (c.route.endsWith('/default-backend')) return `the default backend of ${ingress}`;
  return `${ingress} route ${c.route}`;
}

/** What a route's conditions besides the path look at. */
interface RequestFacts {
  path: string;
  method: string;
  /** Lower-case names. */
  headers: ReadonlyMap<string, string>;
  /** The first value of each query parameter (Envoy's query_parameters match the first), decoded. */
  query: ReadonlyMap<string, string>;
}

function queryParameters(query: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const pair of query.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const decode = (text: string): string => {
      try {
        return decodeURIComponent(text);
      } catch {
        return text;
      }
    };
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    if (!params.has(name)) params.set(name, decode(eq < 0 ? '' : pair.slice(eq + 1)));
  }
  return params;
}

/** RE2 over the whole value, as Envoy's safe_regex. */
function re2MatchesWhole(pattern: string, value: string): boolean {
  return withRe2(`^(?:${pattern})$`, (re) => re.ok() && re.match(value, 0, false).index >= 0);
}

function describeCondition(kind: 'header' | 'query', name: string, match: { kind: 'exact' | 'regex'; value: string }): string {
  if (kind === 'header' && name === ':method') return `method ${match.value}`;
  return `${kind === 'header' ? 'header' : 'query parameter'} ${name} ${match.kind === 'exact' ? `= ${JSON.stringify(match.value)}` : `matching ${match.value}`}`;
}

/** The first condition besides the path that the request does not meet, described; undefined when it meets all. */
function unmetCondition(route: RouteIR, facts: RequestFacts): string | undefined {
  for (const h of route.headers ?? []) {
    const value = h.name === ':method' ? facts.method : facts.headers.get(h.name);
    const described = describeCondition('header', h.name, h);
    if (value === undefined) return `it needs ${described} and the request has no ${h.name} header`;
    const ok = h.kind === 'exact' ? value === h.value : re2MatchesWhole(h.value, value);
    if (!ok) return `it needs ${described}, the request has ${h.name === ':method' ? value : JSON.stringify(value)}`;
  }
  for (const q of route.queryParams ?? []) {
    const value = facts.query.get(q.name);
    const described = describeCondition('query', q.name, q);
    if (value === undefined) return `it needs ${described} and the query has no ${q.name}`;
    const ok = q.kind === 'exact' ? value === q.value : re2MatchesWhole(q.value, value);
    if (!ok) return `it needs ${described}, the query has ${JSON.stringify(value)}`;
  }
  return undefined;
}

function considerRoutes(
  routes: readonly RouteIR[],
  facts: RequestFacts,
  ruleNames: ExplainInput['ruleNames'],
): { considered: RouteConsideration[]; selected: RouteIR | undefined } {
  const { path } = facts;
  let selected: RouteIR | undefined;
  const considered = routes.map((route): RouteConsideration => {
    const conditions = [
      ...(route.headers ?? []).map((h) => describeCondition('header', h.name, h)),
      ...(route.queryParams ?? []).map((q) => describeCondition('query', q.name, q)),
    ];
    const ruleName =
      route.source !== undefined && route.rulePath !== undefined && route.source.kind !== 'Ingress'
        ? ruleNames?.[`${route.source.namespace}/${route.source.name}`]?.[route.rulePath.rule]
        : undefined;
    const base: RouteConsideration = {
      route: route.name,
      match: describePathMatch(route.match),
      ...(route.source ? { source: route.source } : {}),
      ...(route.rulePath === undefined ? {} : { rule: route.rulePath.rule, path: route.rulePath.path }),
      ...(ruleName === undefined ? {} : { ruleName }),
      ...(conditions.length ? { conditions } : {}),
      outcome: 'no-match',
      reason: '',
    };
    const matches = pathMatches(route.match, path);
    const unmet = matches ? unmetCondition(route, facts) : undefined;
    if (matches && unmet !== undefined) {
      const canary = route.source?.kind === 'Ingress' ? ' (a canary)' : '';
      return { ...base, reason: `${base.match} matches ${path}, but ${unmet}${canary}` };
    }
    const all = [base.match, ...conditions].join(', ');
    if (matches && selected === undefined) {
      selected = route;
      const order = route.source !== undefined && route.source.kind !== 'Ingress' ? 'in the Gateway API precedence order' : 'longest path first, Exact before Prefix';
      return { ...base, outcome: 'selected', reason: `${all} ${conditions.length ? 'match this request' : `matches ${path}`}; it is the first matching route (${order})` };
    }
    if (matches) return { ...base, outcome: 'shadowed', reason: `${all} also ${conditions.length ? 'match this request' : `matches ${path}`}, but route ${selected!.name} comes first` };
    if (route.match.kind === 'exact') return { ...base, reason: `Exact ${route.match.path} is not equal to ${path}` };
    if (route.match.kind === 'regex') return { ...base, reason: `${path} does not match the regex ${route.match.regex}` };
    if (route.match.kind === 'character-prefix') return { ...base, reason: `${path} does not start with ${route.match.path} (ImplementationSpecific, an nginx prefix location)` };
    const segmentOnly = path.startsWith(route.match.path);
    return {
      ...base,
      reason: segmentOnly
        ? `Prefix ${route.match.path} matches whole path segments only, ${path} does not continue with "/"`
        : `Prefix ${route.match.path} is not a prefix of ${path}`,
    };
  });
  return { considered, selected };
}

/** Envoy's https_redirect keeps the (normalised) path and the query string. */
/** The https redirect: the same host and path on https. */
function isHttpsOnly(action: RedirectIR): boolean {
  return action.scheme === 'https' && action.host === undefined && action.path?.kind !== 'replace';
}

/**
 * The Location Envoy sends for a redirect of this request: a new scheme drops the request's port (the scheme's
 * default, unless the redirect names one), a new host or port replaces the authority's, the path and query as the
 * redirect says.
 */
function redirectLocation(
  action: RedirectIR,
  request: { scheme: string; host: string; requestHost: string; path: string; query: string },
): string {
  const scheme = action.scheme ?? request.scheme;
  const schemeChanged = scheme !== request.scheme;
  const defaultPort = scheme === 'https' ? 443 : 80;
  const hostname = action.host ?? request.host;
  const authority =
    action.port !== undefined
      ? `${hostname}${action.port === defaultPort && action.host === undefined ? '' : `:${action.port}`}`
      : action.host !== undefined || schemeChanged
        ? hostname
        : request.requestHost;
  const path =
    action.path?.kind === 'replace' ? action.path.path : action.path?.kind === 'strip-trailing-slash' && request.path.endsWith('/') ? request.path.slice(0, -1) : request.path;
  const query = action.query === undefined ? request.query : action.query.kind === 'drop' ? '' : `?${action.query.query}`;
  return `${scheme}://${authority}${path}${query}`;
}

/** Diagnostics of the objects behind the considered routes, and of rules for this host that were skipped. */
function relatedDiagnostics(input: ExplainInput, considered: readonly RouteConsideration[], vhost: string | null): Diagnostic[] {
  const sources = new Set(considered.filter((c) => c.source).map((c) => `${c.source!.kind}/${c.source!.namespace}/${c.source!.name}`));
  const selected = considered.find((c) => c.outcome === 'selected');
  const isSelected = (d: Diagnostic): boolean =>
    selected?.source?.kind === d.object.kind && selected.source.name === d.object.name && selected.source.namespace === d.object.namespace;
  return input.diagnostics.filter((d) => {
    if (vhost !== null && d.message.includes(`host ${vhost} `)) return true;
    if (!sources.has(`${d.object.kind}/${d.object.namespace}/${d.object.name}`)) return false;
    // Only the problems of the selected rule (and path), or of the object as a whole (not of its other rules).
    const m = d.object.kind === 'Ingress' ? /^rule (\d+) path (\d+):/.exec(d.message) : /^rule (\d+)[:, ]/.exec(d.message);
    if (!m) return true;
    return isSelected(d) && Number(m[1]) === selected!.rule && (m[2] === undefined || Number(m[2]) === selected!.path);
  });
}

export function explain(input: ExplainInput, request: ExplainRequest): Explanation {
  const e = explainRouting(input, request);
  if (e.certificate?.coversSni !== false) return e;
  const sni = request.sni === undefined ? e.request.host : normalizeHost(request.sni);
  return {
    ...e,
    verdict: `TLS session refused by clients that check the server name: Secret ${e.certificate.secret} does not cover ${sni}; a client that does not check gets: ${e.verdict}`,
  };
}

function gatewaysOf(listener: ListenerIR): string[] {
  return (listener.sources ?? []).filter((s) => s.kind === 'Gateway').map((s) => `${s.namespace}/${s.name}`);
}

function describeListener(l: ListenerIR): string {
  const gateways = gatewaysOf(l);
  return `${l.name} (port ${l.port}${l.address === undefined ? '' : `, address ${l.address}`}${gateways.length ? `, Gateway ${gateways.join(', ')}` : ''})`;
}

/**
 * The IR listener a request to a Gateway listener arrives on: by Gateway (and listener name, through its port), or
 * by port (and address). Throws with the candidates when the choice is missing or ambiguous.
 */
export function selectGatewayListener(input: ExplainInput, request: ExplainRequest): ListenerIR {
  const all = input.ir.listeners;
  let candidates: ListenerIR[];
  if (request.gateway !== undefined) {
    const { namespace, name, listener } = request.gateway;
    const key = `${namespace}/${name}`;
    candidates = all.filter((l) => gatewaysOf(l).includes(key));
    if (candidates.length === 0) throw new Error(`Gateway ${key} serves no listener (not ours, refused, or unknown): see its diagnostics`);
    if (listener !== undefined) {
      const spec = input.gateways?.find((g) => g.namespace === namespace && g.name === name)?.listeners.find((l) => l.name === listener);
      if (spec === undefined) throw new Error(`Gateway ${key} has no listener ${listener}${input.gateways === undefined ? ' (listener names need the Gateway objects: use --port)' : ''}`);
      // A Gateway with ports of its own: the IR listener is gateway/<ns>/<name>/<protocol>/<listener port> on another Envoy port.
      const own = candidates.filter((l) => l.name.startsWith(`gateway/${key}/`) && l.name.endsWith(`/${spec.port}`));
      candidates = own.length > 0 ? own : candidates.filter((l) => l.port === spec.port);
      if (candidates.length === 0) throw new Error(`listener ${listener} of Gateway ${key} (port ${spec.port}) is not served: see the Gateway's diagnostics`);
    }
    if (request.port !== undefined) candidates = candidates.filter((l) => l.port === request.port);
  } else {
    candidates = all.filter((l) => l.port === request.port);
  }
  if (request.address !== undefined) candidates = candidates.filter((l) => l.address === request.address);
  else if (candidates.some((l) => l.address === undefined)) candidates = candidates.filter((l) => l.address === undefined);
  if (candidates.length === 0) {
    throw new Error(`no listener for this request; listeners: ${all.map(describeListener).join('; ') || 'none'}`);
  }
  // One socket may have a plain and a TLS listener; the scheme decides.
  const scheme = request.scheme ?? 'http';
  const byScheme = candidates.filter((l) => (scheme === 'https' ? l.protocol === 'HTTPS' : l.protocol === 'HTTP'));
  const sockets = new Set((byScheme.length ? byScheme : candidates).map((l) => `${l.address ?? ''}:${l.port}`));
  if (sockets.size > 1) throw new Error(`several listeners match, give --port (and --address): ${candidates.map(describeListener).join('; ')}`);
  const chosen = byScheme[0];
  if (chosen === undefined) throw new Error(`${describeListener(candidates[0]!)} is ${candidates[0]!.protocol}, not ${scheme.toUpperCase()}`);
  return chosen;
}

/** What the backend receives: the path after a rewrite, the Host after a host rewrite. */
function upstreamOf(route: RouteIR, path: string): { path?: string; host?: string } | undefined {
  const policy = route.policy;
  if (policy === undefined) return undefined;
  const out: { path?: string; host?: string } = {};
  if (policy.rewrite !== undefined) {
    const { regex, substitution } =
      policy.rewrite.kind === 'prefix' ? prefixRewriteRegex(route.match, policy.rewrite.replacement) : { regex: policy.rewrite.pattern, substitution: policy.rewrite.substitution };
    try {
      // RE2's \1 is JavaScript's $1; Envoy replaces every match.
      out.path = path.replace(new RegExp(regex, 'g'), substitution.replace(/\$/g, '$$$$').replace(/\\(\d)/g, '$$$1'));
    } catch {
      out.path = `(${regex} -> ${substitution})`;
    }
  }
  if (policy.hostRewrite !== undefined) out.host = policy.hostRewrite;
  return out.path === undefined && out.host === undefined ? undefined : out;
}

function explainRouting(input: ExplainInput, request: ExplainRequest): Explanation {
  const scheme = request.scheme ?? 'http';
  const host = normalizeHost(request.host);
  const path = normalizeRequestPath(request.path);
  const queryAt = request.path.indexOf('?');
  const query = queryAt >= 0 ? request.path.slice(queryAt).split('#')[0]! : '';
  const method = (request.method ?? 'GET').toUpperCase();
  const facts: RequestFacts = {
    path,
    method,
    headers: new Map(Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
    query: queryParameters(query),
  };
  const gatewayRequest = request.port !== undefined || request.gateway !== undefined;
  const gatewayListener = gatewayRequest ? selectGatewayListener(input, request) : undefined;
  const base = {
    request: {
      scheme,
      host,
      path,
      ...(request.method !== undefined ? { method } : {}),
      ...(gatewayListener !== undefined ? { port: gatewayListener.port, ...(gatewayListener.address !== undefined ? { address: gatewayListener.address } : {}) } : {}),
    },
    listener: scheme,
    ...(gatewayListener !== undefined
      ? {
          gatewayListener: {
            name: gatewayListener.name,
            port: gatewayListener.port,
            ...(gatewayListener.address !== undefined ? { address: gatewayListener.address } : {}),
            gateways: gatewaysOf(gatewayListener),
          },
        }
      : {}),
  } as const;
  // The Ingress listeners are the ones no Gateway asked for.
  const candidates = gatewayListener !== undefined ? [gatewayListener] : input.ir.listeners.filter((l) => l.sources === undefined);

  let table: RouteTableIR;
  let tlsServer: string | null = null;
  let certificate: Explanation['certificate'] = null;
  if (scheme === 'https') {
    const sni = request.sni === undefined ? host : normalizeHost(request.sni);
    // Every terminating chain, with the table its listener serves (the Ingress listeners: one HTTPS listener).
    const chains = candidates.flatMap((l) => (l.protocol === 'HTTPS' && l.routeTable !== undefined ? (l.tlsServers ?? []).map((s) => ({ ...s, routeTable: l.routeTable as RouteTableIR })) : []));
    const server = selectTlsServer(chains, sni);
    if (!server) {
      const names = chains.flatMap((s) => s.serverNames);
      return {
        ...base,
        tlsServer: null,
        certificate: null,
        routeTable: null,
        virtualHosts: [],
        virtualHost: null,
        routes: [],
        route: null,
        response: { kind: 'reset' },
        status: null,
        verdict:
          `connection reset because no TLS certificate is configured for SNI ${sni === '' ? '(none sent)' : sni}` +
          (names.length ? ` (TLS hosts: ${names.join(', ')})` : gatewayListener ? ' (the listener has no usable certificate)' : ' (no Ingress has spec.tls with a usable Secret)'),
        diagnostics: input.diagnostics.filter((d) => sni !== '' && d.message.includes(sni)),
      };
    }
    tlsServer = server.name;
    certificate = { secret: server.secret, coversSni: sni === '' ? null : certificateCovers(input, server.secret, sni) };
    table = server.routeTable;
  } else {
    const plain = candidates.find((l) => l.protocol === 'HTTP')?.routeTable;
    if (plain === undefined) throw new Error('the data plane has no plain-HTTP listener');
    table = plain;
  }

  const { vhost, considered: hosts } = selectVirtualHost(table, host);
  if (!vhost) {
    return {
      ...base,
      tlsServer,
      certificate,
      routeTable: table.name,
      virtualHosts: hosts,
      virtualHost: null,
      routes: [],
      route: null,
      response: { kind: 'direct', status: 404 },
      status: 404,
      verdict: `404 because no virtual host of route table ${table.name} matches host ${host} and it has no catch-all`,
      diagnostics: [],
    };
  }

  const { considered, selected } = considerRoutes(vhost.routes, facts, input.ruleNames);
  const route = considered.find((c) => c.outcome === 'selected') ?? null;
  const diagnostics = relatedDiagnostics(input, considered, vhost.name);
  // Host ownership is the Ingress translator's rule; Gateway listeners have allowedRoutes instead.
  const common = { ...base, tlsServer, certificate, routeTable: table.name, virtualHosts: hosts, virtualHost: vhost.name, routes: considered, route, diagnostics, ...(gatewayListener ? {} : hostOwnerOf(vhost)) };
  const tried = considered.filter((c) => c.source && c.rule !== undefined);
  const triedText = tried.length ? `; rules tried: ${tried.map((c) => `${[c.match, ...(c.conditions ?? [])].join(' ')} (${c.source!.namespace}/${c.source!.name})`).join(', ')}` : '';

  if (!selected || !route) {
    return { ...common, response: { kind: 'direct', status: 404 }, status: 404, verdict: `404 because no route of virtual host ${vhost.name} matches ${path}${triedText}` };
  }
  const action = selected.action;
  const serviceText = (s: { namespace: string; name: string; port: number }): string => `Service ${s.namespace}/${s.name} port ${s.port}`;
  switch (action.kind) {
    case 'forward': {
      // An ingress-nginx default-backend fallback cluster: Envoy sends to the first of its clusters with endpoints.
      const served = clusterServing(input.ir.fallbackClusters, input.endpoints, action.cluster);
      const cluster = input.ir.clusters.find((c) => c.name === served);
      const endpoints = input.endpoints.find((e) => e.cluster === served)?.endpoints ?? [];
      const service = cluster ? serviceText(cluster.service) : `cluster ${action.cluster}`;
      const upstream = upstreamOf(selected, path);
      const response: ExplainedResponse = { kind: 'forward', cluster: action.cluster, service: cluster ? { ...cluster.service } : null, endpoints, ...(upstream ? { upstream } : {}) };
      let canaryText = '';
      const fromGatewayApi = selected.source !== undefined && selected.source.kind !== 'Ingress';
      if (action.split !== undefined && response.kind === 'forward' && fromGatewayApi) {
        // An HTTPRoute rule's weighted backendRefs: the route's own cluster takes what the others and the 500 share leave.
        const { totalWeight, errorWeight = 0 } = action.split;
        const serviceOf = (name: string): WeightedBackend['service'] => {
          const c = input.ir.clusters.find((x) => x.name === name);
          return c ? { ...c.service } : null;
        };
        const own = totalWeight - errorWeight - action.split.backends.reduce((sum, b) => sum + b.weight, 0);
        const ready = (name: string): EndpointIR[] => input.endpoints.find((e) => e.cluster === name)?.endpoints ?? [];
        const backends: WeightedBackend[] = [
          ...(own > 0 ? [{ cluster: action.cluster, service: serviceOf(action.cluster), weight: own, totalWeight, endpoints: ready(action.cluster) }] : []),
          ...action.split.backends.map((b) => ({ cluster: b.cluster, service: serviceOf(b.cluster), weight: b.weight, totalWeight, endpoints: ready(b.cluster) })),
          ...(errorWeight > 0 ? [{ cluster: null, service: null, weight: errorWeight, totalWeight, endpoints: [] }] : []),
        ];
        response.backends = backends;
        const shares = backends.map(
          (b) =>
            `${b.weight}/${b.totalWeight} ${b.cluster === null ? 'answered 500 (invalid backendRefs)' : `${b.service ? serviceText(b.service) : `cluster ${b.cluster}`}${b.endpoints.length === 0 ? ' (no ready endpoints: 503)' : ''}`}`,
        );
        const upstreamText = upstream ? ` (upstream${upstream.host ? ` Host ${upstream.host}` : ''}${upstream.path ? ` path ${upstream.path}` : ''})` : '';
        return { ...common, response, status: null, verdict: `served by ${whereOf(route)}, split by weight: ${shares.join(', ')}${upstreamText}` };
      }
      if (action.split !== undefined && response.kind === 'forward') {
        const { totalWeight } = action.split;
        const shares = action.split.backends.map(({ cluster: name, weight }) => {
          const canary = input.ir.clusters.find((c) => c.name === name);
          const canaryService = canary ? serviceText(canary.service) : `cluster ${name}`;
          return { canary: { cluster: name, service: canary ? { ...canary.service } : null, weight, totalWeight }, text: `${weight} of every ${totalWeight} requests go to ${canaryService}` };
        });
        // One backend is an ingress-nginx canary: the JSON names it; several are listed in the text.
        if (shares.length === 1) response.canary = (shares[0] as (typeof shares)[number]).canary;
        canaryText = ` (canary: ${shares.map((share) => share.text).join(', ')} instead)`;
      }
      const upstreamText = upstream ? ` (upstream${upstream.host ? ` Host ${upstream.host}` : ''}${upstream.path ? ` path ${upstream.path}` : ''})` : '';
      if (cluster?.externalName !== undefined) {
        return { ...common, response, status: null, verdict: `served by ${whereOf(route)} -> ${service} (ExternalName: Envoy resolves ${cluster.externalName} itself)${canaryText}` };
      }
      if (endpoints.length === 0) {
        return { ...common, response, status: 503, verdict: `503 because ${service} (from ${whereOf(route)}) has no ready endpoints${canaryText}` };
      }
      const list = endpoints.map((e) => `${e.address}:${e.port}`).join(', ');
      return { ...common, response, status: null, verdict: `served by ${whereOf(route)} -> ${service} -> ${endpoints.length} ready endpoint(s): ${list}${canaryText}${upstreamText}` };
    }
    case 'redirect': {
      const location = redirectLocation(action, { scheme, host, requestHost: request.host, path, query });
      const because = isHttpsOnly(action) && (route.source === undefined || route.source.kind === 'Ingress')
        ? ` because ${host} has TLS (an Ingress lists it in spec.tls) and ssl-redirect is on`
        : route.source === undefined
          ? ''
          : ` set by ${whereOf(route)}`;
      return {
        ...common,
        response: { kind: 'redirect', status: action.statusCode, location },
        status: action.statusCode,
        verdict: `${action.statusCode} redirect to ${location}${because}`,
      };
    }
    case 'direct': {
      const location = action.headers?.find((header) => header.name === 'location')?.value;
      if (location !== undefined) {
        return {
          ...common,
          response: { kind: 'redirect', status: action.status, location },
          status: action.status,
          verdict: `${action.status} redirect to ${location}${route.source === undefined ? '' : ` set by ${whereOf(route)}`}`,
        };
      }
      const response: ExplainedResponse = { kind: 'direct', status: action.status };
      if (!selected.source) {
        const nothing = gatewayListener !== undefined ? 'no HTTPRoute serves it' : 'no Ingress has a default backend';
        return { ...common, response, status: action.status, verdict: `${action.status} because no rule of host ${vhost.name} matches ${path} and ${nothing}${triedText}` };
      }
      const problems = diagnostics.filter((d) => d.object.kind === selected.source!.kind && d.object.name === selected.source!.name && d.object.namespace === selected.source!.namespace);
      const what = selected.source.kind === 'Ingress' ? 'the backend of' : 'the backendRefs or filters of';
      return {
        ...common,
        response,
        status: action.status,
        verdict: `${action.status} because ${what} ${whereOf(route)} cannot be used${problems.length ? `: ${(selected.source.kind === 'Ingress' ? problems.slice(0, 1) : problems).map((d) => d.message).join('; ')}` : ''}`,
      };
    }
  }
}

/** Whether the first certificate of the secret's chain names `host` (null when it cannot be read). */
function certificateCovers(input: ExplainInput, secretName: string, host: string): boolean | null {
  const pem = input.ir.secrets.find((s) => s.name === secretName)?.certificateChain;
  if (pem === undefined) return null;
  try {
    return new X509Certificate(pem).checkHost(host) !== undefined;
  } catch {
    return null;
  }
}

/** Human-readable report for the CLI. */
export function formatExplanation(e: Explanation): string {
  const lines: string[] = [];
  lines.push(`${e.request.method === undefined ? '' : `${e.request.method} `}${e.request.scheme}://${e.request.host}${e.request.path}`);
  lines.push(`  ${e.verdict}`);
  lines.push('');
  if (e.gatewayListener) {
    const l = e.gatewayListener;
    lines.push(`listener: ${l.name} (port ${l.port}${l.address === undefined ? '' : `, address ${l.address}`}${l.gateways.length ? `; Gateway ${l.gateways.join(', ')}` : ''})`);
  }
  if (e.tlsServer) lines.push(`TLS filter chain: ${e.tlsServer}`);
  if (e.certificate) {
    const covers = e.certificate.coversSni === null ? '' : e.certificate.coversSni ? ' (covers the SNI name)' : ' (does NOT cover the SNI name: clients that check names refuse it)';
    lines.push(`certificate: Secret ${e.certificate.secret}${covers}`);
  }
  if (e.routeTable) lines.push(`route table: ${e.routeTable}`);
  if (e.hostOwner) {
    const [only, ...more] = e.hostOwner.namespaces;
    lines.push(more.length === 0 ? `host owned by namespace ${only}` : `host merged from namespaces ${e.hostOwner.namespaces.join(', ')} (--allow-cross-namespace-hosts)`);
  }
  if (e.virtualHosts.length) {
    lines.push('virtual hosts:');
    for (const v of e.virtualHosts) lines.push(`  ${v.outcome === 'selected' ? '*' : ' '} ${v.virtualHost}: ${v.reason}`);
  }
  if (e.routes.length) {
    lines.push(`routes of ${e.virtualHost} (tried in order):`);
    for (const r of e.routes) {
      const where =
        r.rule === undefined ? '' : r.source?.kind === 'Ingress' ? ` rule ${r.rule} path ${r.path}` : ` rule ${r.rule}${r.ruleName === undefined ? '' : ` (${r.ruleName})`} match ${r.path}`;
      const from = r.source ? ` [${r.source.kind} ${r.source.namespace}/${r.source.name}${where}]` : '';
      lines.push(`  ${r.outcome === 'selected' ? '*' : ' '} ${r.route}${from}: ${r.outcome}: ${r.reason}`);
    }
  }
  if (e.response.kind === 'forward') {
    const s = e.response.service;
    if (e.response.backends !== undefined) lines.push('backends (split by weight):');
    else {
      lines.push(`backend: ${s ? `Service ${s.namespace}/${s.name} port ${s.port}` : '?'} (cluster ${e.response.cluster})`);
      lines.push(`endpoints (ready): ${e.response.endpoints.length ? e.response.endpoints.map((x) => `${x.address}:${x.port}`).join(', ') : 'none'}`);
    }
    for (const b of e.response.backends ?? []) {
      const ready = b.endpoints.length ? b.endpoints.map((x) => `${x.address}:${x.port}`).join(', ') : 'no ready endpoints (503)';
      lines.push(`  weight ${b.weight}/${b.totalWeight}: ${b.cluster === null ? 'answered 500 (invalid backendRefs)' : `${b.service ? `Service ${b.service.namespace}/${b.service.name} port ${b.service.port}` : '?'} (cluster ${b.cluster}): ${ready}`}`);
    }
    const u = e.response.upstream;
    if (u) lines.push(`upstream request:${u.host === undefined ? '' : ` Host ${u.host}`}${u.path === undefined ? '' : ` path ${u.path}`}`);
    const c = e.response.canary;
    if (c) lines.push(`canary: ${c.weight} of ${c.totalWeight} requests to ${c.service ? `Service ${c.service.namespace}/${c.service.name} port ${c.service.port}` : '?'} (cluster ${c.cluster})`);
  }
  if (e.diagnostics.length) {
    lines.push('problems:');
    for (const d of e.diagnostics) lines.push(`  ${d.reason} ${d.object.kind}/${d.object.namespace}/${d.object.name}: ${d.message}`);
  }
  return `${lines.join('\n')}\n`;
}

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
//    dropped, `//` merged, dot segments resolved: normalize_path and merge_slashes are on).
import type { ClusterEndpointsIR, EndpointIR, DataPlaneIR, PathMatchIR, RedirectIR, RouteIR, RouteTableIR, SourceRef, VirtualHostIR } from '../ir/index.js';
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
}

export interface ExplainInput {
  ir: DataPlaneIR;
  endpoints: readonly ClusterEndpointsIR[];
  diagnostics: readonly Diagnostic[];
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
  path?: number;
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
    }
  | { kind: 'redirect'; status: number; location: string }
  | { kind: 'direct'; status: number }
  /** No TLS filter chain for the SNI: Envoy closes the connection during the handshake. */
  | { kind: 'reset' };

export interface Explanation {
  request: { scheme: 'http' | 'https'; host: string; path: string };
  listener: 'http' | 'https';
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
  const byWildcard = exact ? undefined : table.virtualHosts.find((v) => wildcard !== undefined && v.hostnames.includes(wildcard));
  const catchAll = exact || byWildcard ? undefined : table.virtualHosts.find((v) => v.hostnames.includes('*'));
  const chosen = exact ?? byWildcard ?? catchAll;
  const considered = table.virtualHosts.map((v): VirtualHostConsideration => {
    if (v === chosen) {
      const reason =
        v === exact
          ? `host ${host} is one of its names`
          : v === byWildcard
            ? `${wildcard} covers ${host} (exactly one label) and no virtual host names ${host} itself`
            : `catch-all: no virtual host names ${host} or a one-label wildcard of it`;
      return { virtualHost: v.name, outcome: 'selected', reason };
    }
    const multiLabel = v.hostnames.find((n) => envoyWildcardMatches(n, host));
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
  const ingress = `Ingress ${c.source.namespace}/${c.source.name}`;
  if (c.rule !== undefined) return `${ingress} rule ${c.rule} path ${c.path} (${c.match})`;
  if (c.route.endsWith('/default-backend')) return `the default backend of ${ingress}`;
  return `${ingress} route ${c.route}`;
}

function considerRoutes(routes: readonly RouteIR[], path: string): { considered: RouteConsideration[]; selected: RouteIR | undefined } {
  let selected: RouteIR | undefined;
  const considered = routes.map((route): RouteConsideration => {
    const base: RouteConsideration = {
      route: route.name,
      match: describePathMatch(route.match),
      ...(route.source ? { source: route.source } : {}),
      ...(route.rulePath === undefined ? {} : { rule: route.rulePath.rule, path: route.rulePath.path }),
      outcome: 'no-match',
      reason: '',
    };
    const matches = pathMatches(route.match, path);
    if (matches && route.headers !== undefined && route.headers.length > 0) {
      // An explained request sends no headers or cookies, so a route that needs one (an ingress-nginx canary) is passed.
      const needs = route.headers.map((h) => `header ${h.name} ${h.kind === 'exact' ? `= ${JSON.stringify(h.value)}` : `matching ${h.value}`}`).join(' and ');
      return { ...base, reason: `${base.match} matches ${path}, but the route also needs ${needs} (a canary), which this request does not send` };
    }
    if (matches && selected === undefined) {
      selected = route;
      return { ...base, outcome: 'selected', reason: `${base.match} matches ${path}; it is the first matching route (longest path first, Exact before Prefix)` };
    }
    if (matches) return { ...base, outcome: 'shadowed', reason: `${base.match} also matches ${path}, but route ${selected!.name} comes first` };
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

/** Diagnostics of the Ingresses behind the considered routes, and of rules for this host that were skipped. */
function relatedDiagnostics(input: ExplainInput, considered: readonly RouteConsideration[], vhost: string | null): Diagnostic[] {
  const sources = new Set(considered.filter((c) => c.source).map((c) => `${c.source!.namespace}/${c.source!.name}`));
  const selected = considered.find((c) => c.outcome === 'selected');
  return input.diagnostics.filter((d) => {
    if (vhost !== null && d.message.includes(`host ${vhost} `)) return true;
    if (!sources.has(`${d.object.namespace}/${d.object.name}`) || d.object.kind !== 'Ingress') return false;
    // Only the problems of the selected rule, or of the Ingress as a whole (not of its other rules).
    const m = /^rule (\d+) path (\d+):/.exec(d.message);
    if (!m) return true;
    return selected?.source?.name === d.object.name && selected.source.namespace === d.object.namespace && Number(m[1]) === selected.rule && Number(m[2]) === selected.path;
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

function explainRouting(input: ExplainInput, request: ExplainRequest): Explanation {
  const scheme = request.scheme ?? 'http';
  const host = normalizeHost(request.host);
  const path = normalizeRequestPath(request.path);
  const queryAt = request.path.indexOf('?');
  const query = queryAt >= 0 ? request.path.slice(queryAt).split('#')[0]! : '';
  const base = { request: { scheme, host, path }, listener: scheme } as const;

  let table: RouteTableIR;
  let tlsServer: string | null = null;
  let certificate: Explanation['certificate'] = null;
  if (scheme === 'https') {
    const sni = request.sni === undefined ? host : normalizeHost(request.sni);
    // Every terminating chain, with the table its listener serves (the Ingress listeners: one HTTPS listener).
    const chains = input.ir.listeners.flatMap((l) => (l.protocol === 'HTTPS' && l.routeTable !== undefined ? (l.tlsServers ?? []).map((s) => ({ ...s, routeTable: l.routeTable as RouteTableIR })) : []));
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
          (names.length ? ` (TLS hosts: ${names.join(', ')})` : ' (no Ingress has spec.tls with a usable Secret)'),
        diagnostics: input.diagnostics.filter((d) => sni !== '' && d.message.includes(sni)),
      };
    }
    tlsServer = server.name;
    certificate = { secret: server.secret, coversSni: sni === '' ? null : certificateCovers(input, server.secret, sni) };
    table = server.routeTable;
  } else {
    const plain = input.ir.listeners.find((l) => l.protocol === 'HTTP')?.routeTable;
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

  const { considered, selected } = considerRoutes(vhost.routes, path);
  const route = considered.find((c) => c.outcome === 'selected') ?? null;
  const diagnostics = relatedDiagnostics(input, considered, vhost.name);
  const common = { ...base, tlsServer, certificate, routeTable: table.name, virtualHosts: hosts, virtualHost: vhost.name, routes: considered, route, diagnostics, ...hostOwnerOf(vhost) };
  const tried = considered.filter((c) => c.source && c.rule !== undefined);
  const triedText = tried.length ? `; rules tried: ${tried.map((c) => `${c.match} (${c.source!.namespace}/${c.source!.name})`).join(', ')}` : '';

  if (!selected || !route) {
    return { ...common, response: { kind: 'direct', status: 404 }, status: 404, verdict: `404 because no route of virtual host ${vhost.name} matches ${path}${triedText}` };
  }
  const action = selected.action;
  switch (action.kind) {
    case 'forward': {
      // An ingress-nginx default-backend fallback cluster: Envoy sends to the first of its clusters with endpoints.
      const served = clusterServing(input.ir.fallbackClusters, input.endpoints, action.cluster);
      const cluster = input.ir.clusters.find((c) => c.name === served);
      const endpoints = input.endpoints.find((e) => e.cluster === served)?.endpoints ?? [];
      const service = cluster ? `Service ${cluster.service.namespace}/${cluster.service.name} port ${cluster.service.port}` : `cluster ${action.cluster}`;
      const response: ExplainedResponse = { kind: 'forward', cluster: action.cluster, service: cluster ? { ...cluster.service } : null, endpoints };
      let canaryText = '';
      if (action.split !== undefined && response.kind === 'forward') {
        const { totalWeight } = action.split;
        const shares = action.split.backends.map(({ cluster: name, weight }) => {
          const canary = input.ir.clusters.find((c) => c.name === name);
          const canaryService = canary ? `Service ${canary.service.namespace}/${canary.service.name} port ${canary.service.port}` : `cluster ${name}`;
          return { canary: { cluster: name, service: canary ? { ...canary.service } : null, weight, totalWeight }, text: `${weight} of every ${totalWeight} requests go to ${canaryService}` };
        });
        // One backend is an ingress-nginx canary: the JSON names it; several are listed in the text.
        if (shares.length === 1) response.canary = (shares[0] as (typeof shares)[number]).canary;
        canaryText = ` (canary: ${shares.map((share) => share.text).join(', ')} instead)`;
      }
      if (cluster?.externalName !== undefined) {
        return { ...common, response, status: null, verdict: `served by ${whereOf(route)} -> ${service} (ExternalName: Envoy resolves ${cluster.externalName} itself)${canaryText}` };
      }
      if (endpoints.length === 0) {
        return { ...common, response, status: 503, verdict: `503 because ${service} (from ${whereOf(route)}) has no ready endpoints${canaryText}` };
      }
      const list = endpoints.map((e) => `${e.address}:${e.port}`).join(', ');
      return { ...common, response, status: null, verdict: `served by ${whereOf(route)} -> ${service} -> ${endpoints.length} ready endpoint(s): ${list}${canaryText}` };
    }
    case 'redirect': {
      const location = redirectLocation(action, { scheme, host, requestHost: request.host, path, query });
      const because = isHttpsOnly(action)
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
        return { ...common, response, status: action.status, verdict: `${action.status} because no rule of host ${vhost.name} matches ${path} and no Ingress has a default backend${triedText}` };
      }
      const problem = diagnostics.find((d) => d.object.name === selected.source!.name && d.object.namespace === selected.source!.namespace);
      return {
        ...common,
        response,
        status: action.status,
        verdict: `${action.status} because the backend of ${whereOf(route)} cannot be used${problem ? `: ${problem.message}` : ''}`,
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
  lines.push(`${e.request.scheme}://${e.request.host}${e.request.path}`);
  lines.push(`  ${e.verdict}`);
  lines.push('');
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
      const from = r.source ? ` [Ingress ${r.source.namespace}/${r.source.name}${r.rule !== undefined ? ` rule ${r.rule} path ${r.path}` : ''}]` : '';
      lines.push(`  ${r.outcome === 'selected' ? '*' : ' '} ${r.route}${from}: ${r.outcome}: ${r.reason}`);
    }
  }
  if (e.response.kind === 'forward') {
    const s = e.response.service;
    lines.push(`backend: ${s ? `Service ${s.namespace}/${s.name} port ${s.port}` : '?'} (cluster ${e.response.cluster})`);
    lines.push(`endpoints (ready): ${e.response.endpoints.length ? e.response.endpoints.map((x) => `${x.address}:${x.port}`).join(', ') : 'none'}`);
    const c = e.response.canary;
    if (c) lines.push(`canary: ${c.weight} of ${c.totalWeight} requests to ${c.service ? `Service ${c.service.namespace}/${c.service.name} port ${c.service.port}` : '?'} (cluster ${c.cluster})`);
  }
  if (e.diagnostics.length) {
    lines.push('problems:');
    for (const d of e.diagnostics) lines.push(`  ${d.reason} ${d.object.kind}/${d.object.namespace}/${d.object.name}: ${d.message}`);
  }
  return `${lines.join('\n')}\n`;
}

import type { RouteIR, VirtualHostIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';
import { buildRoute, buildRoutes } from './route.js';
import { buildClientCertificatePerRoute } from './client-certificate-check.js';

const catchAllHost = '*';

/** The catch-all (`*`) virtual host of a table, if any (the translator sorts it last). */
export function catchAllOf(virtualHosts: readonly VirtualHostIR[]): VirtualHostIR | undefined {
  const last = virtualHosts[virtualHosts.length - 1];
  return last !== undefined && last.hostnames.includes(catchAllHost) ? last : virtualHosts.find((v) => v.hostnames.includes(catchAllHost));
}

function isWildcard(hostname: string): boolean {
  return hostname.startsWith('*.');
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}-]/g, '\\$&');
}

/**
 * RE2 pattern for the `:authority` values a virtual host should accept, or undefined when Envoy's own domain
 * matching is already exact. Envoy's `*.example.com` also matches `a.b.example.com`, while an Ingress wildcard
 * covers exactly one label, so hosts with a wildcard check the authority again. Case-insensitive like host
 * matching; the optional port is for Host headers that still carry one.
 */
export function authorityRegexFor(hostnames: readonly string[]): string | undefined {
  if (hostnames.includes(catchAllHost) || !hostnames.some(isWildcard)) return undefined;
  const alternatives = hostnames.map((hostname) =>
    isWildcard(hostname) ? `[^.]+${escapeRegex(hostname.slice(1))}` : escapeRegex(hostname),
  );
  const hosts = alternatives.length === 1 ? (alternatives[0] as string) : `(?:${alternatives.join('|')})`;
  return `(?i)^${hosts}(:[0-9]+)?$`;
}

/** The authority check of a virtual host: none where its wildcards may cover several labels (Envoy's own matching). */
export function authorityRegexOf(vhost: VirtualHostIR): string | undefined {
  return vhost.wildcardLabels === 'one-or-more' ? undefined : authorityRegexFor(vhost.hostnames);
}

/**
 * A VirtualHost. `unknownHostRoutes` are the routes of the catch-all virtual host: a request whose host only
 * looks like it matches a wildcard (more than one label) gets them, exactly as if no host had matched.
 */
export function buildVirtualHost(vhost: VirtualHostIR, unknownHostRoutes: readonly RouteIR[] = []): ResourceJson {
  const authorityRegex = authorityRegexOf(vhost);
  const routes: ResourceJson[] = [];
  for (const route of vhost.routes) {
    if (route.policy?.corsResponse === undefined) routes.push(buildRoute(route, authorityRegex));
    else routes.push(...buildRoutes(route, authorityRegex));
  }
  if (vhost.clientCertificate !== undefined) {
    // On every route of the host (not on the unknown-host routes below: those answer as for any other host).
    const check = buildClientCertificatePerRoute(vhost.clientCertificate);
    for (const [i, route] of routes.entries()) {
      routes[i] = { ...route, typed_per_filter_config: { ...((route['typed_per_filter_config'] as ResourceJson | undefined) ?? {}), ...check } };
    }
  }
  if (authorityRegex !== undefined) {
    for (const route of unknownHostRoutes) {
      routes.push(...buildRoutes({ ...route, name: `host-not-matched/${route.name}` }));
    }
  }
  // Envoy compares domains case-insensitively and strip_any_host_port removes ports before matching.
  return { name: vhost.name, domains: [...vhost.hostnames], routes };
}

// Assembly of virtual hosts and route tables from collected routes.
import { cloneData } from './clone-data.js';
import { catchAllHost } from './hostname.js';
import { fallbackRouteName, type RouteIR, type RouteTableIR, type VirtualHostIR } from './ir.js';
import { compareStrings } from './ordering.js';
import { compareRoutePrecedence } from './path-match.js';

/** Name of the single route of a plain-HTTP virtual host that sends clients to https. */
export const httpsRedirectRouteName = 'https-redirect';

/** The last route of every virtual host: the default backend's route, or a 404 page. */
export function fallbackRoute(defaultBackend: RouteIR | undefined, notFoundPage: string): RouteIR {
  if (defaultBackend !== undefined) return defaultBackend;
  return {
    name: fallbackRouteName,
    match: { kind: 'prefix', path: '/' },
    action: { kind: 'direct', status: 404, body: notFoundPage, contentType: 'text/html' },
  };
}

/** A copy, so no two places in the IR share an object (consumers may transform it in place). */
export function cloneRoute(route: RouteIR): RouteIR {
  const copy: RouteIR = { name: route.name, match: { ...route.match }, action: cloneData(route.action) };
  if (route.headers !== undefined) copy.headers = route.headers.map((header) => ({ ...header }));
  if (route.source !== undefined) copy.source = { ...route.source };
  if (route.policy !== undefined) copy.policy = cloneData(route.policy);
  return copy;
}

/** Routes in precedence order, followed by the fallback. */
export function assembleVirtualHost(host: string, routes: readonly RouteIR[], fallback: RouteIR): VirtualHostIR {
  const ordered = [...routes].sort(compareRoutePrecedence).map(cloneRoute);
  return { name: host, hostnames: [host], routes: [...ordered, cloneRoute(fallback)] };
}

export function redirectVirtualHost(host: string, httpsPort: number): VirtualHostIR {
  return {
    name: host,
    hostnames: [host],
    routes: [
      {
        name: httpsRedirectRouteName,
        match: { kind: 'prefix', path: '/' },
        action: { kind: 'https-redirect', statusCode: 301, port: httpsPort },
      },
    ],
  };
}

/** By name, with the catch-all `*` last (it must be the last resort in the route table). */
export function compareVirtualHosts(a: VirtualHostIR, b: VirtualHostIR): number {
  if (a.name === catchAllHost || b.name === catchAllHost) {
    return (a.name === catchAllHost ? 1 : 0) - (b.name === catchAllHost ? 1 : 0);
  }
  return compareStrings(a.name, b.name);
}

export function routeTable(name: string, virtualHosts: VirtualHostIR[]): RouteTableIR {
  return { name, virtualHosts: [...virtualHosts].sort(compareVirtualHosts) };
}

// Assembly of virtual hosts and route tables from collected routes.
import { compareVirtualHosts, fallbackRouteName, type RouteIR, type RouteTableIR, type VirtualHostIR } from '../../../ir/index.js';
import { cloneData } from '../shared/clone-data.js';
import { httpsRedirect } from './https-redirect.js';
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

/**
 * A deep copy of a route, with its keys in the IR's order (name, match, action, headers, source, rulePath, policy):
 * for a route served again under another name or scheme (server-alias, plain HTTP). Not for safety: no phase
 * writes to a route once built (translator-layer.ts), so routes may be shared; the copy keeps the serialized IR
 * (translate goldens) independent of the order a pass happened to add keys in.
 */
export function cloneRoute(route: RouteIR): RouteIR {
  const copy: RouteIR = { name: route.name, match: { ...route.match }, action: cloneData(route.action) };
  if (route.headers !== undefined) copy.headers = route.headers.map((header) => ({ ...header }));
  if (route.source !== undefined) copy.source = { ...route.source };
  if (route.rulePath !== undefined) copy.rulePath = { ...route.rulePath };
  if (route.policy !== undefined) copy.policy = cloneData(route.policy);
  return copy;
}

/**
 * Routes in precedence order, followed by the fallback. The route objects themselves, not copies: a route is never
 * changed once built, so the fallback may end every virtual host as one object.
 */
export function assembleVirtualHost(host: string, routes: readonly RouteIR[], fallback: RouteIR): VirtualHostIR {
  return { name: host, hostnames: [host], routes: [...routes].sort(compareRoutePrecedence).concat(fallback) };
}

export function redirectVirtualHost(host: string, httpsPort: number): VirtualHostIR {
  return {
    name: host,
    hostnames: [host],
    routes: [
      {
        name: httpsRedirectRouteName,
        match: { kind: 'prefix', path: '/' },
        action: httpsRedirect(301, httpsPort),
      },
    ],
  };
}

export function routeTable(name: string, virtualHosts: VirtualHostIR[]): RouteTableIR {
  return { name, virtualHosts: [...virtualHosts].sort(compareVirtualHosts) };
}

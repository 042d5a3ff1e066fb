// Gateway API host names: which names a route serves on a listener (the intersection of the listener's hostname
// and the route's hostnames), with the Gateway API's wildcard rule: `*.example.com` covers any number of labels in
// front of `example.com` (`a.example.com`, `a.b.example.com`), never `example.com` itself.
import { parseHost } from '../shared/hostname.js';

/** Whether the name `host` (exact or a wildcard) is covered by `wildcard` (`*.suffix`), by the Gateway API's rule. */
function coveredBy(host: string, wildcard: string): boolean {
  const suffix = wildcard.slice(1); // `.example.com`
  const name = host.startsWith('*.') ? host.slice(1) : host;
  // A wildcard is covered by another only when it is at least as specific (`*.a.example.com` by `*.example.com`).
  return host.startsWith('*.') ? name.endsWith(suffix) : name.length > suffix.length && name.endsWith(suffix);
}

/** Whether listener hostname `listener` (absent: every host) matches the name `host` (exact, a wildcard, or `*`). */
export function listenerCovers(listener: string | undefined, host: string): boolean {
  if (listener === undefined) return true;
  return host === listener || (listener.startsWith('*.') && coveredBy(host, listener));
}

/**
 * Whether a request for `host` belongs to listener hostname `specific` rather than to `general` (listener isolation:
 * a request goes to the most specific listener whose hostname matches it). Absent: every host.
 */
export function claimedByMoreSpecific(host: string, general: string | undefined, specific: string | undefined): boolean {
  if (specific === undefined || specific === general) return false;
  if (!listenerCovers(specific, host)) return false;
  // `specific` must be narrower than `general`: any name is narrower than none; a name inside a wildcard is narrower.
  return general === undefined || (general.startsWith('*.') && listenerCovers(general, specific) && specific !== general);
}

/**
 * The host names a route serves on a listener, lower-cased and sorted; `['*']` for every host (neither names any).
 * Empty: the route's names and the listener's do not meet, so the route does not attach to that listener.
 * Names are expected valid (checked before); the spec: the more specific of two matching names is the one served.
 */
export function intersectHostnames(listenerHostname: string | undefined, routeHostnames: readonly string[]): string[] {
  const listener = listenerHostname?.toLowerCase();
  const routes = routeHostnames.map((h) => h.toLowerCase());
  if (routes.length === 0) return [listener ?? '*'];
  if (listener === undefined) return unique(routes);
  const served: string[] = [];
  for (const route of routes) {
    if (route === listener) served.push(route);
    else if (listener.startsWith('*.') && coveredBy(route, listener)) served.push(route);
    else if (route.startsWith('*.') && coveredBy(listener, route)) served.push(listener);
  }
  return unique(served);
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)].sort();
}

/** A Gateway API hostname (listener or route): a DNS name or a `*.` wildcard; undefined when valid, else why not. */
export function hostnameError(hostname: string): string | undefined {
  const parsed = parseHost(hostname);
  return parsed.valid ? undefined : parsed.error;
}

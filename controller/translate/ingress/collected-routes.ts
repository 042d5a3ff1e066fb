// The routes a translation collects before it assembles virtual hosts: rule routes by host and default backend
// routes. Passes over them (annotation policies, a translator layer's per-route phase) return new route objects
// rather than changing them, so a route, once built, is never written to (envoy/built-once.ts relies on it).
import type { RouteActionIR, RouteIR, RoutePolicyIR } from '../../../ir/index.js';
import type { Ingress } from '../shared/kube-objects.js';

export interface CollectedRoutes {
  /** The controller-wide default backend (spec.defaultBackend of the oldest Ingress with one), if any. */
  defaultBackend: RouteIR | undefined;
  /** Default backends that serve only their own Ingress's hosts (a translator layer's, by Ingress). */
  hostDefaults: ReadonlyMap<Ingress, RouteIR>;
  /** Rule routes per host (`*` for host-less rules), unsorted and without the fallback route. */
  byHost: ReadonlyMap<string, readonly RouteIR[]>;
}

/** A change to one route: the route itself when nothing changes, else a new route. */
export type RoutePass = (route: RouteIR, host: string | undefined) => RouteIR;

/** Which default backend routes a pass covers besides the rule routes (which it always covers). */
export type DefaultRoutes = 'none' | 'controller-wide' | 'all';

/**
 * `routes` with `pass` applied to every rule route and to the default routes `defaults` names, in that order: the
 * default routes first (the controller-wide one, then the host-scoped ones), then the rule routes host by host.
 * Collections nothing changed in are handed back as they were; `undefined` (a pass with nothing to do) changes
 * nothing.
 */
export function passRoutes(routes: CollectedRoutes, defaults: DefaultRoutes, pass: RoutePass | undefined): CollectedRoutes {
  if (pass === undefined) return routes;
  const defaultBackend = defaults !== 'none' && routes.defaultBackend !== undefined ? pass(routes.defaultBackend, undefined) : routes.defaultBackend;
  let hostDefaults = routes.hostDefaults;
  if (defaults === 'all' && hostDefaults.size > 0) {
    const passed = new Map<Ingress, RouteIR>();
    let changed = false;
    for (const [ingress, route] of hostDefaults) {
      const next = pass(route, undefined);
      changed ||= next !== route;
      passed.set(ingress, next);
    }
    if (changed) hostDefaults = passed;
  }
  let byHost = routes.byHost;
  let passedByHost: Map<string, readonly RouteIR[]> | undefined;
  for (const [host, list] of routes.byHost) {
    let passed: RouteIR[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const route = list[i] as RouteIR;
      const next = pass(route, host);
      if (next !== route) (passed ??= list.slice())[i] = next;
    }
    if (passed !== undefined) (passedByHost ??= new Map(routes.byHost)).set(host, passed);
  }
  if (passedByHost !== undefined) byHost = passedByHost;
  if (defaultBackend === routes.defaultBackend && hostDefaults === routes.hostDefaults && byHost === routes.byHost) return routes;
  return { defaultBackend, hostDefaults, byHost };
}

/** Every rule route, host by host. */
export function ruleRoutes(routes: CollectedRoutes): RouteIR[] {
  return [...routes.byHost.values()].flat();
}

/**
 * `route` with another action and/or policy (`policy: undefined` drops it): a new route for a pass to return, its
 * other members shared. Built member by member in the IR's order, so the routes of a translation have few shapes
 * whichever passes changed them (spread copies multiply them, and every later loop over routes pays for that).
 */
export function changedRoute(route: RouteIR, change: { action?: RouteActionIR; policy?: RoutePolicyIR | undefined }): RouteIR {
  const next: RouteIR = { name: route.name, match: route.match, action: change.action ?? route.action };
  if (route.headers !== undefined) next.headers = route.headers;
  if (route.source !== undefined) next.source = route.source;
  if (route.rulePath !== undefined) next.rulePath = route.rulePath;
  const policy = 'policy' in change ? change.policy : route.policy;
  if (policy !== undefined) next.policy = policy;
  return next;
}

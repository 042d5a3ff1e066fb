// Synthetic Gateway API cluster states for the benchmarks, shaped like the synthetic Ingresses (synthetic-cluster.ts)
// so that a route costs the same in both: per HTTPRoute 1-3 hostnames and one rule of 1-4 path matches (the same
// paths and match types as an Ingress's), one Service with 10 endpoints, all attached to one Gateway of our class
// with one HTTP listener. No TLS: a terminating listener per host would be Gateway objects, not routes.
import type { ClusterState, Gateway, GatewayClass, HTTPRoute } from '../controller/translate/shared/kube-objects.js';
import { defaultGatewayControllerName } from '../controller/translate/shared/options.js';
import { benchNamespace, defaultEndpointAddress, hostOf, seededRandom, serviceName, syntheticService, syntheticSlice } from './synthetic-cluster.js';

export const benchGatewayClassName = 'envoy-ingress-bench';
export const benchGatewayName = 'bench-gateway';

export interface SyntheticGatewayApiOptions {
  httpRoutes: number;
  /** The port of the Gateway's HTTP listener (where Envoy serves the routes). */
  port: number;
  endpointsPerService?: number;
  endpointAddress?: (service: number, endpoint: number) => { address: string; port: number };
  seed?: number;
}

export function syntheticGatewayClass(): GatewayClass {
  return { kind: 'GatewayClass', metadata: { name: benchGatewayClassName }, spec: { controllerName: defaultGatewayControllerName } };
}

/** One HTTP listener on `port`, admitting the HTTPRoutes of its own namespace (the spec's default). */
export function syntheticGateway(port: number): Gateway {
  return {
    kind: 'Gateway',
    metadata: { name: benchGatewayName, namespace: benchNamespace },
    spec: { gatewayClassName: benchGatewayClassName, listeners: [{ name: 'http', port, protocol: 'HTTP' }] },
  };
}

/** An HTTPRoute named `name` sending every path of `hostnames` to `service` (port 80), attached to the bench Gateway. */
export function httpRouteTo(name: string, hostnames: readonly string[], service: string, paths: readonly { type: 'Exact' | 'PathPrefix'; value: string }[] = [{ type: 'PathPrefix', value: '/' }]): HTTPRoute {
  return {
    kind: 'HTTPRoute',
    metadata: { name, namespace: benchNamespace },
    spec: {
      parentRefs: [{ name: benchGatewayName }],
      hostnames: [...hostnames],
      rules: [{ matches: paths.map((path) => ({ path })), backendRefs: [{ name: service, port: 80 }] }],
    },
  };
}

/**
 * HTTPRoute `i`: the hosts and paths of synthetic Ingress `i` drawn the same way (1-3 hosts, 1-4 paths: `/` as a
 * prefix, then `/p1`, `/p2`, `/p3` alternating exact and prefix), one rule to Service `i`. `pathSuffix` changes
 * the paths but not the hosts (a one-route edit).
 */
export function syntheticHttpRoute(i: number, random: () => number, pathSuffix = ''): HTTPRoute {
  const hosts = 1 + Math.floor(random() * 3);
  const paths = 1 + Math.floor(random() * 4);
  return httpRouteTo(
    `route-${i}`,
    Array.from({ length: hosts }, (_, h) => hostOf(i, h)),
    serviceName(i),
    Array.from({ length: paths }, (_, p) => ({ type: p % 2 === 0 ? 'PathPrefix' : 'Exact', value: p === 0 ? '/' : `/p${p}${pathSuffix}` })),
  );
}

/** The same deterministic sequence of HTTPRoutes for a seed: route `i` of a larger state is route `i` of a smaller one. */
export function syntheticHttpRoutes(n: number, seed = 42): HTTPRoute[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => syntheticHttpRoute(i, random));
}

export function syntheticGatewayApiCluster(o: SyntheticGatewayApiOptions): ClusterState {
  const endpoints = o.endpointsPerService ?? 10;
  const httpRoutes = syntheticHttpRoutes(o.httpRoutes, o.seed);
  return {
    ingresses: [],
    ingressClasses: [],
    services: httpRoutes.map((_, i) => syntheticService(i)),
    endpointSlices: httpRoutes.map((_, i) => syntheticSlice(i, endpoints, o.endpointAddress ?? defaultEndpointAddress)),
    endpoints: [],
    secrets: [],
    gatewayClasses: [syntheticGatewayClass()],
    gateways: [syntheticGateway(o.port)],
    httpRoutes,
  };
}

/** The Envoy routes an HTTPRoute makes when all its hostnames are served: one per hostname and match. */
export function routesOfHttpRoute(route: HTTPRoute): number {
  const hosts = Math.max(1, route.spec?.hostnames?.length ?? 0);
  let matches = 0;
  for (const rule of route.spec?.rules ?? []) matches += Math.max(1, rule.matches?.length ?? 0);
  return hosts * matches;
}

/** `route` with one more exact path match in its first rule: the same hostnames and parents, one more route per hostname. */
export function withExtraPath(route: HTTPRoute, path: string): HTTPRoute {
  const [first, ...rest] = route.spec?.rules ?? [];
  const rule = { ...first, matches: [...(first?.matches ?? []), { path: { type: 'Exact' as const, value: path } }] };
  return { ...route, spec: { ...route.spec, rules: [rule, ...rest] } };
}

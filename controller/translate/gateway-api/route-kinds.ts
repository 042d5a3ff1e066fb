// Route kinds: the extension point for a new one (GRPCRoute, TLSRoute, TCPRoute). An entry lists the kind's objects
// and translates one route's rules; attachment (route-attachment.ts), status (route-status.ts) and the join
// (ir-listeners.ts) are shared. A listener takes a kind when its protocol lists it (listener-protocols.ts).
// A kind whose rules are not HTTP matches (TLSRoute, TCPRoute) adds its own result next to `matches` and its join.
import type { ServiceIndex } from '../shared/backend.js';
import type { BackendTlsContext } from './backend-refs.js';
import { type ClusterState, type GRPCRoute, type HTTPRoute, type ReferenceGrant, type TCPRoute, type TLSRoute, objectsOf } from '../shared/kube-objects.js';
import { translateGrpcRouteRules } from './grpcroute-rules.js';
import { type TranslatedRules, translateHttpRouteRules } from './httproute-rules.js';
import { translateL4RouteRules } from './l4-route-rules.js';
import type { AttachableRoute } from './route-attachment.js';
import type { RoutePolicyLookup } from './route-policies.js';

export interface RouteTranslationContext {
  services: ServiceIndex;
  grants: readonly ReferenceGrant[];
  /** BackendTLSPolicies, and the client certificate of the route's Gateway (HTTP and gRPC backends). */
  backendTls?: BackendTlsContext;
  /** RoutePolicies (HTTPRoute and GRPCRoute rules). */
  routePolicies?: RoutePolicyLookup;
}

export interface RouteKind<Route extends AttachableRoute = AttachableRoute> {
  kind: Route['kind'];
  routes(state: ClusterState): readonly Route[];
  // Method syntax: an entry for one kind is usable where any route kind is (the registry calls it with its own kind).
  translate(route: Route, context: RouteTranslationContext): TranslatedRules;
}

const httpRoute: RouteKind<HTTPRoute> = {
  kind: 'HTTPRoute',
  routes: (state) => objectsOf(state, 'HTTPRoute'),
  translate: (route, context) => translateHttpRouteRules(route, context.services, context.grants, context.backendTls, context.routePolicies),
};

const grpcRoute: RouteKind<GRPCRoute> = {
  kind: 'GRPCRoute',
  routes: (state) => objectsOf(state, 'GRPCRoute'),
  translate: (route, context) => translateGrpcRouteRules(route, context.services, context.grants, context.backendTls, context.routePolicies),
};

// Their connections become TCP proxy filter chains (tcp-chains.ts), not HTTP matches.
const tlsRoute: RouteKind<TLSRoute> = {
  kind: 'TLSRoute',
  routes: (state) => objectsOf(state, 'TLSRoute'),
  translate: (route, context) => translateL4RouteRules(route, context.services, context.grants),
};

const tcpRoute: RouteKind<TCPRoute> = {
  kind: 'TCPRoute',
  routes: (state) => objectsOf(state, 'TCPRoute'),
  translate: (route, context) => translateL4RouteRules(route, context.services, context.grants),
};

export const routeKinds: readonly RouteKind[] = [httpRoute, grpcRoute, tlsRoute, tcpRoute];

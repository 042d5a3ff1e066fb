// The one list of Gateway API features this controller claims (GatewayClass status.supportedFeatures; the upstream
// conformance suite reads it to choose its tests). A feature is added here in the commit that implements it, and
// only then: claiming one we do not serve makes the suite run, and fail, its tests. Names are those of the pinned
// module's pkg/features (sigs.k8s.io/gateway-api v1.6.3).
//
// Not claimed yet, and why: GatewayPort8080 (8080 is the Ingress listeners' default port, refused as
// PortUnavailable); HTTPRoutePathRedirect (RequestRedirect ReplacePrefixMatch is not served); mirrors, timeouts,
// retries, CORS, named rules, backend protocols, BackendRequestHeaderModification (not implemented).
export const supportedFeatures: readonly string[] = [
  // Core of the GATEWAY-HTTP profile.
  'Gateway',
  'HTTPRoute',
  'ReferenceGrant',
  // Core of GATEWAY-TLS and GATEWAY-TCP (listener-protocols.ts, tcp-chains.ts).
  'TLSRoute',
  'TCPRoute',
  // Extended.
  'GatewayHTTPListenerIsolation',
  'HTTPRoute303RedirectStatusCode',
  'HTTPRoute307RedirectStatusCode',
  'HTTPRoute308RedirectStatusCode',
  'HTTPRouteHostRewrite',
  'HTTPRouteMethodMatching',
  'HTTPRouteParentRefPort',
  'HTTPRoutePathRewrite',
  'HTTPRoutePortRedirect',
  'HTTPRouteQueryParamMatching',
  'HTTPRouteResponseHeaderModification',
  'HTTPRouteSchemeRedirect',
  // TLS listeners with mode Terminate, and both modes on one port.
  'TLSRouteModeMixed',
  'TLSRouteModeTerminate',
];

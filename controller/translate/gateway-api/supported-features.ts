// The one list of Gateway API features this controller claims (GatewayClass status.supportedFeatures; the upstream
// conformance suite reads it to choose its tests). A feature is added here in the commit that implements it, and
// only then: claiming one we do not serve makes the suite run, and fail, its tests. Names are those of the pinned
// module's pkg/features (sigs.k8s.io/gateway-api v1.6.3).
//
// Not claimed yet, and why: GatewayPort8080 (8080 is the Ingress listeners' default port, refused as
// PortUnavailable); HTTPRouteRetryBackendTimeout and HTTPRouteRetryConnectionError (no conformance test in v1.6.3;
// retries on a try's timeout are not configured: Envoy's retriable-status-codes does not cover them);
// BackendRequestHeaderModification (backendRefs[].filters not implemented).
export const supportedFeatures: readonly string[] = [
  // Core of the GATEWAY-HTTP profile.
  'Gateway',
  'HTTPRoute',
  // Core of the GATEWAY-GRPC profile, and its extended named rules.
  'GRPCRoute',
  'GRPCRouteNamedRouteRule',
  'ReferenceGrant',
  // Core of GATEWAY-TLS and GATEWAY-TCP (listener-protocols.ts, tcp-chains.ts).
  'TLSRoute',
  'TCPRoute',
  // Client-certificate validation on HTTPS listeners, and its Extended AllowInsecureFallback (frontend-validation.ts).
  'GatewayFrontendClientCertificateValidation',
  'GatewayFrontendClientCertificateValidationInsecureFallback',
  // Extended.
  // BackendTLSPolicy (backend-tls-policies.ts) with subjectAltNames, and the Gateway's backend client certificate.
  'BackendTLSPolicy',
  'BackendTLSPolicySANValidation',
  'GatewayBackendClientCertificate',
  'GatewayHTTPListenerIsolation',
  // Several HTTPS listeners on a port: a route table each, 421 for another listener's host (ir-listeners.ts).
  'GatewayHTTPSListenerDetectMisdirectedRequests',
  // ListenerSets (listener-sets.ts).
  'ListenerSet',
  'HTTPRoute303RedirectStatusCode',
  'HTTPRoute307RedirectStatusCode',
  'HTTPRoute308RedirectStatusCode',
  'HTTPRouteBackendProtocolH2C',
  'HTTPRouteBackendProtocolWebSocket',
  'HTTPRouteBackendTimeout',
  'HTTPRouteCORS',
  'HTTPRouteHostRewrite',
  'HTTPRouteMethodMatching',
  'HTTPRouteNamedRouteRule',
  'HTTPRouteParentRefPort',
  'HTTPRoutePathRedirect',
  'HTTPRoutePathRewrite',
  'HTTPRoutePortRedirect',
  'HTTPRouteQueryParamMatching',
  'HTTPRouteRequestMirror',
  'HTTPRouteRequestMultipleMirrors',
  'HTTPRouteRequestPercentageMirror',
  'HTTPRouteRequestTimeout',
  'HTTPRouteResponseHeaderModification',
  'HTTPRouteRetry',
  'HTTPRouteSchemeRedirect',
  // TLS listeners with mode Terminate, and both modes on one port.
  'TLSRouteModeMixed',
  'TLSRouteModeTerminate',
];

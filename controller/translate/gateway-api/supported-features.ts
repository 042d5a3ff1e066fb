// The one list of Gateway API features this controller claims (GatewayClass status.supportedFeatures; the upstream
// conformance suite reads it to choose its tests). A feature is added here in the commit that implements it, and
// only then: claiming one we do not serve makes the suite run, and fail, its tests. Names are those of the pinned
// module's pkg/features (sigs.k8s.io/gateway-api v1.6.3). The lists after `supportedFeatures` hold in some Gateway
// addressing modes only, and are claimed there only (supportedFeaturesFor).
//
// Not claimed yet, and why: HTTPRouteRetryBackendTimeout and HTTPRouteRetryConnectionError (no conformance test in
// v1.6.3; retries on a try's timeout are not configured: Envoy's retriable-status-codes does not cover them); the
// mode-dependent ones where they do not hold.
import { compareStrings } from '../../../ir/index.js';
import type { GatewayAddressing } from '../shared/options.js';

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
  'HTTPRouteBackendRequestHeaderModification',
  'HTTPRouteBackendTimeout',
  'HTTPRouteCORS',
  // parentRefs[].port (route-attachment.ts); its one test is a parentRef to a port no listener has.
  'HTTPRouteDestinationPortMatching',
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

/**
 * Claimed in cluster mode only. GatewayPort8080: a Gateway's listener ports map onto Envoy ports of its own, so 8080
 * is free for it; elsewhere Envoy itself binds the Ingress HTTP port (8080 by default) on --listen-address, so a
 * Gateway listener there joins it (HTTP) or is refused (PortUnavailable). GatewayInfrastructure: spec.infrastructure
 * labels and annotations go onto the Gateway's Service, which lives in the Gateway's namespace labelled
 * gateway.networking.k8s.io/gateway-name (controller/gateway-services/), and a parametersRef is InvalidParameters;
 * elsewhere no object is generated for a Gateway to carry them.
 */
export const gatewayServiceFeatures: readonly string[] = ['GatewayInfrastructure', 'GatewayPort8080'];

/**
 * Claimed with addresses of its own per Gateway (cluster or pool mode). GatewayAddressEmpty: an IPAddress without a
 * value is any address (the load balancer's, or the pool's). GatewayStaticAddresses: in cluster mode with
 * --gateway-load-balancer-addresses only, where an address the load balancer cannot give is AddressNotUsable rather
 * than waited for (pool mode binds one address per Gateway: several asked for are AddressNotAssigned).
 */
export const ownAddressFeatures: readonly string[] = ['GatewayAddressEmpty'];
export const staticAddressFeatures: readonly string[] = ['GatewayStaticAddresses'];

/** What a GatewayClass of ours claims under the controller's Gateway addressing mode. */
export function supportedFeaturesFor(addressing: GatewayAddressing | undefined): string[] {
  const service = addressing?.mode === 'service';
  const knownAddresses = service && addressing.loadBalancerAddresses !== undefined;
  return [
    ...supportedFeatures,
    ...(service ? gatewayServiceFeatures : []),
    ...(addressing !== undefined ? ownAddressFeatures : []),
    ...(knownAddresses ? staticAddressFeatures : []),
  ].sort(compareStrings);
}

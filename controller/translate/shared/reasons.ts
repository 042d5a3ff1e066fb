// Stable `reason` strings of the diagnostics the translator emits. They become Kubernetes Event reasons and
// metric labels, so they never change once released.
export const Reason = {
  InvalidHost: 'InvalidHost',
  InvalidPath: 'InvalidPath',
  RuleConflict: 'RuleConflict',
  DefaultBackendConflict: 'DefaultBackendConflict',
  ServiceNotFound: 'ServiceNotFound',
  ServicePortNotFound: 'ServicePortNotFound',
  UnsupportedBackend: 'UnsupportedBackend',
  SecretNotFound: 'SecretNotFound',
  SecretInvalid: 'SecretInvalid',
  TlsConflict: 'TlsConflict',
  UnsupportedTls: 'UnsupportedTls',
  InvalidAnnotation: 'InvalidAnnotation',
  /** spec.tls names a Secret in another namespace (`other/name`); an Ingress may only use its own namespace's. */
  SecretNamespaceRefused: 'SecretNamespaceRefused',
  /** The certificate's names (SAN, else CN) do not cover a host of its tls entry; it is served anyway. */
  CertificateHostMismatch: 'CertificateHostMismatch',
  /** An ExternalName Service while --allow-external-name is off, or pointing at a loopback/link-local target. */
  ExternalNameRefused: 'ExternalNameRefused',
  /** An ingress-nginx snippet annotation (--nginx-annotations): raw nginx config has no safe equivalent. */
  NginxSnippetRefused: 'NginxSnippetRefused',
  /** An ingress-nginx annotation the compatibility layer does not map (--nginx-annotations); it is ignored. */
  UnsupportedNginxAnnotation: 'UnsupportedNginxAnnotation',
  /** ssl-passthrough: the host's TLS connections all go to one backend; its other paths are not served over TLS. */
  SslPassthroughPathsIgnored: 'SslPassthroughPathsIgnored',
  /** ssl-passthrough on a host that an older Ingress serves without it (or passes to another backend); ignored. */
  SslPassthroughConflict: 'SslPassthroughConflict',
  /** custom-http-errors without a default backend (annotation default-backend or a spec.defaultBackend); ignored. */
  CustomHttpErrorsWithoutBackend: 'CustomHttpErrorsWithoutBackend',
  /** A user of a basic-auth Secret whose password hash Envoy cannot verify (only {SHA} is); that user cannot log in. */
  BasicAuthUserSkipped: 'BasicAuthUserSkipped',
  /** auth-url names a target that is refused (loopback, link-local, localhost) or cannot be reached; the paths answer 503. */
  AuthUrlRefused: 'AuthUrlRefused',
  /** A canary Ingress path (ingress-nginx canary) with no main Ingress route for the same host, path and pathType. */
  NginxCanaryWithoutMain: 'NginxCanaryWithoutMain',
  /** A second canary for the same main route (one per path), or a canary whose backend is the main route's own. */
  NginxCanaryConflict: 'NginxCanaryConflict',
  /** Annotations on a canary Ingress other than canary-*: a canary takes every setting from the main Ingress. */
  NginxCanaryAnnotationsIgnored: 'NginxCanaryAnnotationsIgnored',
  /** A value of the ingress-nginx ConfigMap (--nginx-configmap) that cannot be read; ingress-nginx's default is kept. */
  InvalidNginxConfigMapValue: 'InvalidNginxConfigMapValue',
  /** Keys of the ingress-nginx ConfigMap this controller does not honour (migrate-check gives each one's reason). */
  NginxConfigMapKeysIgnored: 'NginxConfigMapKeysIgnored',
  /** --nginx-configmap names a ConfigMap that does not exist (yet); ingress-nginx's defaults apply. */
  NginxConfigMapNotFound: 'NginxConfigMapNotFound',
  /**
   * A rule or TLS entry for a host another namespace owns (the namespace of the oldest Ingress routing it): refused,
   * reported on both Ingresses (ingress/host-ownership.ts; --allow-cross-namespace-hosts merges namespaces).
   */
  HostOwnedByOtherNamespace: 'HostOwnedByOtherNamespace',
  /**
   * spec.defaultBackend of an Ingress without rules outside --default-backend-namespace: a tenant cannot give the
   * default backend of every host; ignored.
   */
  DefaultBackendNotClusterWide: 'DefaultBackendNotClusterWide',
  /** An Ingress, or a Gateway API route, that would take its namespace past --namespace-route-budget: not served
   * (ingress/namespace-route-budget.ts, gateway-api/route-budget.ts). */
  NamespaceRouteBudgetExceeded: 'NamespaceRouteBudgetExceeded',
  /**
   * An HTTPRoute is served on a host this Ingress routes, on an Ingress port (a Gateway HTTP listener on the HTTP
   * port, or an HTTPS listener for the host on the HTTPS port; shared mode): the older object keeps the host (on
   * HTTPS with its certificate), the other's routes for it are not served there (coexistence.ts).
   */
  HostSharedWithHTTPRoute: 'HostSharedWithHTTPRoute',
} as const;

export type Reason = (typeof Reason)[keyof typeof Reason];

// The Gateway API translator's reasons (gateway-api/): the spec's condition reasons where one fits, since they become
// route and listener status later.
export const GatewayReason = {
  /** A listener protocol not served (UDP, a custom protocol): the spec's listener reason. */
  UnsupportedProtocol: 'UnsupportedProtocol',
  /**
   * A listener on a port the Ingress listeners use (--http-port, --https-port) that cannot join them: only an HTTP
   * listener on the HTTP port and an HTTPS listener with a hostname on the HTTPS port do (shared mode), and none does
   * when Gateways have addresses or ports of their own.
   */
  PortUnavailable: 'PortUnavailable',
  /**
   * Listeners on one port claim the same hostname (or are TCP listeners, which have none): in one Gateway all of them
   * are refused (the spec), across Gateways the later Gateway's.
   */
  HostnameConflict: 'HostnameConflict',
  /** Listeners on one port whose protocols cannot share it (HTTP, TCP, and HTTPS/TLS each need a port of their own). */
  ProtocolConflict: 'ProtocolConflict',
  /** A listener's certificateRef is not a Secret, not found, or not a usable kubernetes.io/tls certificate. */
  InvalidCertificateRef: 'InvalidCertificateRef',
  /** A listener's allowedRoutes.kinds names a kind its protocol does not take; the listener serves the others. */
  InvalidRouteKinds: 'InvalidRouteKinds',
  /**
   * An older route already serves what this one asks for: the TCP listener (one route per TCP listener, the oldest),
   * or a TLSRoute host name on that port. The route stays accepted (the spec) and is served where it is not shadowed.
   */
  RouteShadowed: 'RouteShadowed',
  /** A listener or route hostname that is neither a DNS name nor a `*.` wildcard. */
  InvalidHostname: 'InvalidHostname',
  /** A parentRef to one of our Gateways names a listener (sectionName, port) it does not serve. Refs to other Gateways are not ours to report. */
  NoMatchingParent: 'NoMatchingParent',
  /** The listener's allowedRoutes (namespaces, kinds) do not let the route attach. */
  NotAllowedByListeners: 'NotAllowedByListeners',
  /** A ListenerSet whose Gateway's allowedListeners do not admit its namespace: none of its listeners is served. */
  NotAllowed: 'NotAllowed',
  /** None of the route's hostnames meets the listener's. */
  NoMatchingListenerHostname: 'NoMatchingListenerHostname',
  /**
   * A match that cannot be served (a regex RE2 refuses, a path not starting with `/`): that match is dropped; or a
   * rule's timeouts or retry that cannot be (not a Gateway API Duration, backendRequest over request): the rule
   * answers 500. Or a listener TLS setting that is not allowed (HTTPS with a tls.mode other than Terminate, TLS
   * without a mode).
   */
  UnsupportedValue: 'UnsupportedValue',
  /** A filter (or a form of one) not implemented yet; the rule answers 500 rather than be served without it. */
  UnsupportedFilter: 'UnsupportedFilter',
  /**
   * A backendRef names a Service that does not exist, or a port it lacks (or none): its share of the weight answers
   * 500; a RequestMirror's: that mirror is dropped.
   */
  BackendNotFound: 'BackendNotFound',
  /** A backendRef to something other than a Service; its share of the weight answers 500. */
  InvalidKind: 'InvalidKind',
  /**
   * A backendRef to another namespace that no ReferenceGrant there permits (its share of the weight answers 500), or a
   * listener certificateRef to another namespace's Secret without one, or a Gateway's caCertificateRef to another
   * namespace's ConfigMap without one.
   */
  RefNotPermitted: 'RefNotPermitted',
  /** A backendRef to a Service this translator does not serve yet (ExternalName). */
  UnsupportedBackendRef: 'UnsupportedBackendRef',
  /** spec.addresses asks for an address type other than IPAddress: the Gateway is not served (the spec's Accepted reason). */
  UnsupportedAddress: 'UnsupportedAddress',
  /**
   * spec.infrastructure.parametersRef names parameters, of a kind this controller reads none of: the Gateway is not
   * served (the spec's Accepted reason for parameters that cannot be resolved or are of an unsupported kind).
   */
  InvalidParameters: 'InvalidParameters',
  /** spec.addresses asks for an IP outside the address pool, or one an older Gateway has: the Gateway binds nothing. */
  AddressNotUsable: 'AddressNotUsable',
  /** No address or Envoy port is left for the Gateway (pool or port range used up): it, or that listener port, is not served. */
  AddressNotAssigned: 'AddressNotAssigned',
  /**
   * An Ingress routes a host this route is served on, on the same port (shared mode, --http-port or --https-port):
   * the older object keeps the host (coexistence.ts); the route also gets the condition
   * envoy-ingress.io/HostSharedWithIngress.
   */
  HostSharedWithIngress: 'HostSharedWithIngress',
  /**
   * A backendRef's Service port is targeted by a BackendTLSPolicy that is not accepted (no usable CA certificate,
   * an unsupported setting): its share of the weight answers 500, never plaintext (the spec); the route's
   * references still resolve, the policy's status says what is wrong.
   */
  BackendTLSPolicyNotAccepted: 'BackendTLSPolicyNotAccepted',
  /**
   * A RoutePolicy asking for access control or authentication (sourceRanges, basicAuth, externalAuth) targets the
   * rule but cannot be honoured (a bad CIDR, its Secret or authorization Service missing): the rule answers 500
   * until it is fixed, never served open; the policy's status says what is wrong.
   */
  RoutePolicyNotAccepted: 'RoutePolicyNotAccepted',
  /**
   * On a RoutePolicy: a field cannot be honoured (a value that is not a CIDR, its Secret or authorization Service
   * missing, targetRefs naming something other than HTTPRoutes and GRPCRoutes): Accepted=False/Invalid; access
   * control it asked for closes its rules (500).
   */
  RoutePolicyInvalid: 'RoutePolicyInvalid',
  /**
   * On a RoutePolicy: no HTTPRoute or GRPCRoute (or named rule) it targets exists in its namespace (targets are local:
   * another namespace's route is never one): Accepted=False/TargetNotFound.
   */
  RoutePolicyTargetNotFound: 'RoutePolicyTargetNotFound',
  /** On a RoutePolicy: an older policy (then the first by namespace/name) targets the same route or rule: Accepted=False/Conflicted, not applied. */
  RoutePolicyConflicted: 'RoutePolicyConflicted',
  /**
   * A Gateway's tls.backend.clientCertificateRef is not a Secret, not found, or not a usable kubernetes.io/tls
   * certificate: the Gateway's ResolvedRefs is False, TLS backends get no client certificate.
   */
  InvalidClientCertificateRef: 'InvalidClientCertificateRef',
  /**
   * A caCertificateRef of the Gateway's spec.tls.frontend (the config an HTTPS listener's port takes) names an object
   * not found, or one without a usable `ca.crt` (ResolvedRefs=False on every HTTPS listener it applies to).
   */
  InvalidCACertificateRef: 'InvalidCACertificateRef',
  /** A caCertificateRef names a kind other than a core ConfigMap. */
  InvalidCACertificateKind: 'InvalidCACertificateKind',
  /**
   * No caCertificateRef of the listener's frontend validation is usable: the listener is not served (Accepted=False),
   * rather than served without checking client certificates.
   */
  NoValidCACertificate: 'NoValidCACertificate',
} as const;

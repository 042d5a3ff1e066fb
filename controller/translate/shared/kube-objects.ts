// The subset of Kubernetes objects the translator reads, as plain data (the JSON shape the API server and
// YAML manifests use). Sources normalise into these types, so the pure translator never sees client classes.
import type { SourceRef } from '../../../ir/index.js';
import { type KindName, kindTable, namespaceOf } from './kinds.js';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339 string; sources convert Date objects to strings. */
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ServiceBackendPort {
  name?: string;
  number?: number;
}

export interface IngressBackend {
  service?: { name: string; port?: ServiceBackendPort };
  resource?: { apiGroup?: string; kind: string; name: string };
}

export interface HTTPIngressPath {
  path?: string;
  pathType?: string;
  backend: IngressBackend;
}

export interface IngressRule {
  host?: string;
  http?: { paths: HTTPIngressPath[] };
}

export interface IngressTLS {
  hosts?: string[];
  secretName?: string;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

export interface Ingress {
  apiVersion?: string;
  kind: 'Ingress';
  metadata: ObjectMeta;
  spec?: {
    ingressClassName?: string;
    defaultBackend?: IngressBackend;
    rules?: IngressRule[];
    tls?: IngressTLS[];
  };
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] } };
}

export interface IngressClass {
  apiVersion?: string;
  kind: 'IngressClass';
  metadata: ObjectMeta;
  spec?: { controller?: string };
}

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
  appProtocol?: string;
}

export interface Service {
  apiVersion?: string;
  kind: 'Service';
  metadata: ObjectMeta;
  spec?: {
    type?: string;
    clusterIP?: string;
    externalName?: string;
    selector?: Record<string, string>;
    ports?: ServicePort[];
    /** Asked of the load balancer (the Gateway Services carry a Gateway's spec.addresses IP here). */
    loadBalancerIP?: string;
  };
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] } };
}

export interface EndpointSliceEndpoint {
  addresses: string[];
  conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean };
  hostname?: string;
  nodeName?: string;
  zone?: string;
}

export interface EndpointSlicePort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSlice {
  apiVersion?: string;
  kind: 'EndpointSlice';
  metadata: ObjectMeta;
  addressType: string;
  endpoints?: EndpointSliceEndpoint[];
  ports?: EndpointSlicePort[];
}

export interface EndpointAddress {
  ip: string;
  hostname?: string;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
}

export interface Endpoints {
  apiVersion?: string;
  kind: 'Endpoints';
  metadata: ObjectMeta;
  subsets?: { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[]; ports?: EndpointPort[] }[];
}

export interface Secret {
  apiVersion?: string;
  kind: 'Secret';
  metadata: ObjectMeta;
  type?: string;
  /** base64 values, as in the API. Sources fold `stringData` into `data`. */
  data?: Record<string, string>;
}

/**
 * The ingress-nginx ConfigMap (--nginx-configmap), and ConfigMaps Gateways and BackendTLSPolicies name for CA
 * certificates (`ca.crt`); `data` holds string values.
 */
export interface ConfigMap {
  apiVersion?: string;
  kind: 'ConfigMap';
  metadata: ObjectMeta;
  data?: Record<string, string>;
}

/** Only `metadata.name` and `metadata.labels` are kept (normalize.ts): what allowedRoutes `from: Selector` reads. */
export interface Namespace {
  apiVersion?: string;
  kind: 'Namespace';
  metadata: ObjectMeta;
}

export type KubeObject =
  | Ingress
  | IngressClass
  | Service
  | EndpointSlice
  | Endpoints
  | Secret
  | ConfigMap
  | Namespace
  | GatewayClass
  | Gateway
  | HTTPRoute
  | GRPCRoute
  | TLSRoute
  | TCPRoute
  | ReferenceGrant
  | ListenerSet
  | BackendTLSPolicy
  | RoutePolicy;
export type KubeKind = KubeObject['kind'];
export type ObjectOfKind<K extends KubeKind> = Extract<KubeObject, { kind: K }>;

// Gateway API (gateway.networking.k8s.io/v1): the fields the translator reads so far (gateway-api/).

export interface GatewayClass {
  apiVersion?: string;
  kind: 'GatewayClass';
  metadata: ObjectMeta;
  spec?: { controllerName?: string };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: Record<string, unknown>;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface GatewayListener {
  name: string;
  hostname?: string;
  port: number;
  protocol: string;
  allowedRoutes?: {
    namespaces?: { from?: 'All' | 'Same' | 'Selector'; selector?: LabelSelector };
    kinds?: { group?: string; kind: string }[];
  };
  tls?: GatewayTLSConfig;
}

/** A reference to a Secret (or another kind) holding a listener's certificate. */
export interface SecretObjectReference {
  group?: string;
  kind?: string;
  name: string;
  namespace?: string;
}

export interface GatewayTLSConfig {
  /** Terminate by default (HTTPS); TLS listeners must say. */
  mode?: 'Terminate' | 'Passthrough';
  certificateRefs?: SecretObjectReference[];
}

export interface Gateway {
  apiVersion?: string;
  kind: 'Gateway';
  metadata: ObjectMeta;
  spec?: {
    gatewayClassName?: string;
    listeners?: GatewayListener[];
    /** Addresses asked for; `type` absent means IPAddress (the spec's default). */
    addresses?: { type?: string; value?: string }[];
    /**
     * Labels and annotations for the resources the implementation creates for this Gateway (its Service);
     * parametersRef: implementation-specific parameters (none are read: such a Gateway is InvalidParameters).
     */
    infrastructure?: { labels?: Record<string, string>; annotations?: Record<string, string>; parametersRef?: { group: string; kind: string; name: string } };
    /** Which namespaces' ListenerSets may add listeners to this Gateway; absent: none (the spec's default). */
    allowedListeners?: { namespaces?: { from?: 'All' | 'Same' | 'Selector' | 'None'; selector?: LabelSelector } };
    /**
     * Gateway-wide TLS: `frontend` is client-certificate validation on its HTTPS listeners (GEP-91);
     * `backend.clientCertificateRef` the certificate the Gateway presents to TLS backends (BackendTLSPolicy).
     */
    tls?: { frontend?: GatewayFrontendTLS; backend?: { clientCertificateRef?: SecretObjectReference } };
  };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: Record<string, unknown>;
}

/** spec.tls.frontend: client-certificate validation for HTTPS listeners, per port or else `default`. */
export interface GatewayFrontendTLS {
  default?: { validation?: FrontendTLSValidation };
  perPort?: { port: number; tls?: { validation?: FrontendTLSValidation } }[];
}

export interface FrontendTLSValidation {
  /** Objects holding the trusted CA certificates (a ConfigMap's `ca.crt`). */
  caCertificateRefs?: SecretObjectReference[];
  /** AllowValidOnly (the default) or AllowInsecureFallback. */
  mode?: string;
}

export interface ParentReference {
  group?: string;
  kind?: string;
  namespace?: string;
  name: string;
  sectionName?: string;
  port?: number;
}

export interface HTTPPathMatch {
  type?: 'Exact' | 'PathPrefix' | 'RegularExpression';
  value?: string;
}

export interface HTTPHeaderMatch {
  type?: 'Exact' | 'RegularExpression';
  name: string;
  value: string;
}

export interface HTTPRouteMatch {
  path?: HTTPPathMatch;
  headers?: HTTPHeaderMatch[];
  queryParams?: HTTPHeaderMatch[];
  method?: string;
}

export interface HTTPBackendRef {
  group?: string;
  kind?: string;
  namespace?: string;
  name: string;
  port?: number;
  weight?: number;
  /** HTTPRoute (and GRPCRoute) backendRefs only: applied to the requests sent to this backend alone. */
  filters?: HTTPRouteFilter[];
}

export interface HTTPRouteRule {
  name?: string;
  matches?: HTTPRouteMatch[];
  backendRefs?: HTTPBackendRef[];
  filters?: HTTPRouteFilter[];
  /** Gateway API Durations (GEP-2257), e.g. `500ms`, `1m30s`. */
  timeouts?: { request?: string; backendRequest?: string };
  /** Experimental channel. */
  retry?: { codes?: number[]; attempts?: number; backoff?: string };
}

export interface HTTPRequestMirrorFilter {
  backendRef: HTTPBackendRef;
  percent?: number;
  fraction?: { numerator: number; denominator?: number };
}

export interface HTTPCORSFilter {
  allowOrigins?: string[];
  allowCredentials?: boolean;
  allowMethods?: string[];
  allowHeaders?: string[];
  exposeHeaders?: string[];
  maxAge?: number;
}

export interface HTTPHeaderFilter {
  set?: { name: string; value: string }[];
  add?: { name: string; value: string }[];
  remove?: string[];
}

export interface HTTPPathModifier {
  type: 'ReplaceFullPath' | 'ReplacePrefixMatch';
  replaceFullPath?: string;
  replacePrefixMatch?: string;
}

export interface HTTPRouteFilter {
  type: string;
  requestHeaderModifier?: HTTPHeaderFilter;
  responseHeaderModifier?: HTTPHeaderFilter;
  requestRedirect?: { scheme?: string; hostname?: string; path?: HTTPPathModifier; port?: number; statusCode?: number };
  urlRewrite?: { hostname?: string; path?: HTTPPathModifier };
  requestMirror?: HTTPRequestMirrorFilter;
  cors?: HTTPCORSFilter;
  extensionRef?: { group: string; kind: string; name: string };
}

export interface HTTPRoute {
  apiVersion?: string;
  kind: 'HTTPRoute';
  metadata: ObjectMeta;
  spec?: { parentRefs?: ParentReference[]; hostnames?: string[]; rules?: HTTPRouteRule[] };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: { parents?: Record<string, unknown>[] } & Record<string, unknown>;
}

/** A TLSRoute or TCPRoute rule: where the connections go (backendRefs of Services, by weight). */
export interface L4RouteRule {
  name?: string;
  backendRefs?: HTTPBackendRef[];
}

/** SNI-routed TLS connections (v1 since Gateway API v1.5): passed through, or terminated by a TLS listener. */
export interface TLSRoute {
  apiVersion?: string;
  kind: 'TLSRoute';
  metadata: ObjectMeta;
  spec?: { parentRefs?: ParentReference[]; hostnames?: string[]; rules?: L4RouteRule[] };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: { parents?: Record<string, unknown>[] } & Record<string, unknown>;
}

/** TCP connections of a TCP listener. */
export interface TCPRoute {
  apiVersion?: string;
  kind: 'TCPRoute';
  metadata: ObjectMeta;
  spec?: { parentRefs?: ParentReference[]; rules?: L4RouteRule[] };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: { parents?: Record<string, unknown>[] } & Record<string, unknown>;
}

export interface GRPCMethodMatch {
  type?: 'Exact' | 'RegularExpression';
  service?: string;
  method?: string;
}

export interface GRPCRouteMatch {
  method?: GRPCMethodMatch;
  headers?: HTTPHeaderMatch[];
}

export interface GRPCRouteRule {
  name?: string;
  matches?: GRPCRouteMatch[];
  /** RequestHeaderModifier, ResponseHeaderModifier, RequestMirror, ExtensionRef (the GRPCRoute filter types). */
  filters?: HTTPRouteFilter[];
  backendRefs?: HTTPBackendRef[];
}

export interface GRPCRoute {
  apiVersion?: string;
  kind: 'GRPCRoute';
  metadata: ObjectMeta;
  spec?: { parentRefs?: ParentReference[]; hostnames?: string[]; rules?: GRPCRouteRule[] };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: { parents?: Record<string, unknown>[] } & Record<string, unknown>;
}

/** Lets objects of `from` refer to objects of `to` in the grant's own namespace (Gateway API cross-namespace refs). */
export interface ReferenceGrant {
  apiVersion?: string;
  kind: 'ReferenceGrant';
  metadata: ObjectMeta;
  spec?: {
    from?: { group: string; kind: string; namespace: string }[];
    to?: { group: string; kind: string; name?: string }[];
  };
}

/**
 * Listeners added to a Gateway (its parentRef) from another object, possibly of another namespace: served only as
 * the Gateway's spec.allowedListeners permits (listener-sets.ts). Listener names are unique within the set only.
 */
export interface ListenerSet {
  apiVersion?: string;
  kind: 'ListenerSet';
  metadata: ObjectMeta;
  spec?: {
    parentRef?: { group?: string; kind?: string; name: string; namespace?: string };
    listeners?: GatewayListener[];
  };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: Record<string, unknown>;
}

/** A targetRef of a policy: an object of the policy's own namespace, optionally one section of it (a port name). */
export interface LocalPolicyTargetReferenceWithSectionName {
  group: string;
  kind: string;
  name: string;
  sectionName?: string;
}

/** How a Gateway connects to a Service over TLS (gateway.networking.k8s.io/v1 since Gateway API v1.4). */
export interface BackendTLSPolicy {
  apiVersion?: string;
  kind: 'BackendTLSPolicy';
  metadata: ObjectMeta;
  spec?: {
    targetRefs?: LocalPolicyTargetReferenceWithSectionName[];
    validation?: {
      caCertificateRefs?: { group?: string; kind?: string; name: string }[];
      wellKnownCACertificates?: string;
      hostname?: string;
      subjectAltNames?: { type?: string; hostname?: string; uri?: string }[];
    };
    options?: Record<string, string>;
  };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: { ancestors?: Record<string, unknown>[] } & Record<string, unknown>;
}

/**
 * Our own policy (gateway.envoy-ingress.io/v1alpha1, GEP-713 direct policy attachment) for what the Gateway API has
 * no field for: client address ranges, basic authentication, external authorization and cookie session affinity of
 * HTTPRoutes (or of one named rule) of its own namespace (gateway-api/route-policies.ts).
 */
export interface RoutePolicy {
  apiVersion?: string;
  kind: 'RoutePolicy';
  metadata: ObjectMeta;
  spec?: {
    targetRefs?: LocalPolicyTargetReferenceWithSectionName[];
    sourceRanges?: { allow?: string[]; deny?: string[] };
    basicAuth?: { secretRef?: { name?: string }; secretType?: string; realm?: string };
    externalAuth?: { backendRef?: { name?: string; port?: number }; path?: string; responseHeaders?: string[] };
    sessionAffinity?: {
      cookie?: { name?: string; path?: string; maxAgeSeconds?: number; expiresSeconds?: number; domain?: string; sameSite?: string; secure?: boolean; conditionalSameSiteNone?: boolean };
      mode?: string;
    };
  };
  /** Read only by the status writer (controller/status/), never by the translator. */
  status?: { ancestors?: Record<string, unknown>[] } & Record<string, unknown>;
}

// Every object type has its entry in the kind table (kinds.ts), and every entry its object type.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _everyKindInTable: Same<KubeKind, KindName> = true;
void _everyKindInTable;

type Table = typeof kindTable;
type RequiredKinds = { [K in KubeKind]: Table[K]['optional'] extends true ? never : K }[KubeKind];
type OptionalKinds = Exclude<KubeKind, RequiredKinds>;

/**
 * Everything the translator reads: a consistent snapshot of the store, one list per kind of the kind table, under
 * the table's field name. An optional kind's list may be absent, meaning none (configMaps: the one
 * --nginx-configmap names, if any).
 */
export type ClusterState = { [K in RequiredKinds as Table[K]['state']]: readonly ObjectOfKind<K>[] } & {
  [K in OptionalKinds as Table[K]['state']]?: readonly ObjectOfKind<K>[];
};

/** A reference to one of the objects the translator reads: the IR's SourceRef with a known kind. */
export type ObjectRef<Kind extends KubeKind = KubeKind> = SourceRef<Kind>;

export function refOf<Obj extends KubeObject>(obj: Obj): ObjectRef<Obj['kind']> {
  return { kind: obj.kind, namespace: namespaceOf(obj.metadata), name: obj.metadata.name };
}

export function refKey(ref: SourceRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** The objects of `kind` in `state` (none when an optional kind's list is absent). */
export function objectsOf<K extends KubeKind>(state: ClusterState, kind: K): readonly ObjectOfKind<K>[] {
  return ((state as Readonly<Record<string, readonly KubeObject[] | undefined>>)[kindTable[kind].state] ?? []) as readonly ObjectOfKind<K>[];
}

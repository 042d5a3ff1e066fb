// The kinds of Kubernetes object the controller reads: one entry per kind. The store, the sources, ClusterState,
// the reconciler and the incremental builds all derive from this table, so adding a kind is one entry here (plus
// its object type and its translator), and whatever does not know a kind treats a change of it as needing a full
// build. Pure data: the translator may import it; the API paths and watching live in controller/sources/kinds.ts.

/**
 * The cheapest build that can take a change of a kind, cheapest first; each build also takes what the cheaper ones
 * take (a `secrets` build recomputes endpoints, a `routes` build takes Secrets and endpoints), and a `full` build
 * takes everything.
 * - `endpoints`: only the endpoints of the Services concerned are rebuilt (EDS).
 * - `secrets`: only certificate bytes may change (SDS), see controller/pipeline/certificate-only-changes.ts.
 * - `routes`: the objects around the change are translated again and spliced (incremental-translate.ts).
 * - `full`: everything is translated again (a global input: classes, the ingress-nginx ConfigMap).
 */
export const builds = ['endpoints', 'secrets', 'routes', 'full'] as const;
export type Build = (typeof builds)[number];

/**
 * Which objects of a kind a build reads, so which changes are worth a build at all:
 * `all` of them; those `referenced` by what is served (by a Service name or a Secret name); the one the options
 * `name` (the ingress-nginx ConfigMap).
 */
export type Reads = 'all' | { referenced: 'service' | 'secret' } | 'named';

export interface KindInfo {
  /** The ClusterState field holding its objects. */
  readonly state: string;
  /** `group/version` (`v1` for the core group): the first is the one watched, all are accepted in manifests. */
  readonly apiVersions: readonly [string, ...string[]];
  readonly namespaced: boolean;
  /**
   * The state may lack the kind's list, absent meaning none: a CRD that may not be installed, or a kind read only
   * when an option names an object of it.
   */
  readonly optional: boolean;
  readonly build: Build;
  readonly reads: Reads;
}

export const kindTable = {
  Ingress: { state: 'ingresses', apiVersions: ['networking.k8s.io/v1'], namespaced: true, optional: false, build: 'routes', reads: 'all' },
  IngressClass: { state: 'ingressClasses', apiVersions: ['networking.k8s.io/v1'], namespaced: false, optional: false, build: 'full', reads: 'all' },
  Service: { state: 'services', apiVersions: ['v1'], namespaced: true, optional: false, build: 'routes', reads: { referenced: 'service' } },
  EndpointSlice: {
    state: 'endpointSlices',
    apiVersions: ['discovery.k8s.io/v1'],
    namespaced: true,
    optional: false,
    build: 'endpoints',
    reads: { referenced: 'service' },
  },
  Endpoints: { state: 'endpoints', apiVersions: ['v1'], namespaced: true, optional: false, build: 'endpoints', reads: { referenced: 'service' } },
  Secret: { state: 'secrets', apiVersions: ['v1'], namespaced: true, optional: false, build: 'secrets', reads: { referenced: 'secret' } },
  // `named`: the ingress-nginx ConfigMap; also those Gateways (caCertificateRefs) and BackendTLSPolicies name for CA
  // certificates, watched in a second informer while the Gateway API is served (cluster-source.ts) and read when
  // referenced (reconciler.ts).
  ConfigMap: { state: 'configMaps', apiVersions: ['v1'], namespaced: true, optional: true, build: 'full', reads: 'named' },
  // Labels only (normalize.ts keeps nothing else): Gateway listeners' allowedRoutes `from: Selector`. Optional in the
  // state (translations without it, goldens before it) though always watched; `full`, as a label change may admit
  // or refuse routes anywhere.
  Namespace: { state: 'namespaces', apiVersions: ['v1'], namespaced: false, optional: true, build: 'full', reads: 'all' },
  // The Gateway API: CRDs that may not be installed. HTTPRoutes are `routes` (controller/translate/incremental-translate.ts:
  // the routes and virtual hosts a changed one touches are translated again); the other kinds are `full`: correct,
  // not fast (no incremental build knows them yet).
  GatewayClass: { state: 'gatewayClasses', apiVersions: ['gateway.networking.k8s.io/v1'], namespaced: false, optional: true, build: 'full', reads: 'all' },
  Gateway: { state: 'gateways', apiVersions: ['gateway.networking.k8s.io/v1'], namespaced: true, optional: true, build: 'full', reads: 'all' },
  HTTPRoute: { state: 'httpRoutes', apiVersions: ['gateway.networking.k8s.io/v1'], namespaced: true, optional: true, build: 'routes', reads: 'all' },
  TLSRoute: {
    state: 'tlsRoutes',
    apiVersions: ['gateway.networking.k8s.io/v1', 'gateway.networking.k8s.io/v1alpha3', 'gateway.networking.k8s.io/v1alpha2'],
    namespaced: true,
    optional: true,
    build: 'full',
    reads: 'all',
  },
  TCPRoute: {
    state: 'tcpRoutes',
    apiVersions: ['gateway.networking.k8s.io/v1', 'gateway.networking.k8s.io/v1alpha2'],
    namespaced: true,
    optional: true,
    build: 'full',
    reads: 'all',
  },
  GRPCRoute: { state: 'grpcRoutes', apiVersions: ['gateway.networking.k8s.io/v1'], namespaced: true, optional: true, build: 'full', reads: 'all' },
  ReferenceGrant: {
    state: 'referenceGrants',
    apiVersions: ['gateway.networking.k8s.io/v1', 'gateway.networking.k8s.io/v1beta1'],
    namespaced: true,
    optional: true,
    build: 'full',
    reads: 'all',
  },
  ListenerSet: { state: 'listenerSets', apiVersions: ['gateway.networking.k8s.io/v1'], namespaced: true, optional: true, build: 'full', reads: 'all' },
  BackendTLSPolicy: { state: 'backendTlsPolicies', apiVersions: ['gateway.networking.k8s.io/v1'], namespaced: true, optional: true, build: 'full', reads: 'all' },
  // Our own CRD (deploy/00-crds.yaml): HTTPRoute access control, authentication and affinity (route-policies.ts).
  RoutePolicy: { state: 'routePolicies', apiVersions: ['gateway.envoy-ingress.io/v1alpha1'], namespaced: true, optional: true, build: 'full', reads: 'all' },
} as const satisfies Record<string, KindInfo>;

export type KindName = keyof typeof kindTable;
export const kindNames = Object.keys(kindTable) as KindName[];

/** The Gateway API kinds (the gateway-api/ translator's inputs). */
export const gatewayApiKinds = ['GatewayClass', 'Gateway', 'HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'ReferenceGrant', 'ListenerSet', 'BackendTLSPolicy', 'RoutePolicy'] as const satisfies readonly KindName[];

/**
 * Kinds whose `status` no build reads (our Gateway API status writer writes it, and translations read only their
 * spec and metadata): a change of their status alone (a status write coming back) needs no build, and builds may
 * keep translating the copy they saw before it (controller/store.ts buildState).
 */
export const statusNotReadKinds: ReadonlySet<string> = new Set(['GatewayClass', 'Gateway', 'HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute'] satisfies KindName[]);

/** The kinds whose cheapest build is `build`. */
export type KindsWithBuild<B extends Build> = { [K in KindName]: (typeof kindTable)[K]['build'] extends B ? K : never }[KindName];

/** The kinds of which builds read only the object the options name. */
export type NamedKind = { [K in KindName]: (typeof kindTable)[K]['reads'] extends 'named' ? K : never }[KindName];

export function kindInfo(kind: KindName): KindInfo {
  return kindTable[kind];
}

export function isKindName(kind: unknown): kind is KindName {
  return typeof kind === 'string' && Object.hasOwn(kindTable, kind);
}

/** Whether a `build` build can take a change of `kind`. */
export function buildTakes(build: Build, kind: KindName): boolean {
  return builds.indexOf(kindTable[kind].build) <= builds.indexOf(build);
}

/** The ClusterState fields of the kinds a `build` build can take a change of. */
export function stateFieldsTakenBy(build: Build): ReadonlySet<string> {
  return new Set(kindNames.filter((kind) => buildTakes(build, kind)).map((kind) => kindTable[kind].state));
}

export const defaultNamespace = 'default';

/** The namespace an object is read in: a namespaced object written without one is in `default`, as the API says. */
export function namespaceOf(metadata: { namespace?: string | undefined }): string {
  return metadata.namespace ?? defaultNamespace;
}

/** The namespace the store and the sources key an object of `kind` by: namespaceOf, or '' for a cluster-scoped kind. */
export function keyNamespaceOf(kind: KindName, metadata: { namespace?: string | undefined }): string {
  return kindTable[kind].namespaced ? namespaceOf(metadata) : '';
}

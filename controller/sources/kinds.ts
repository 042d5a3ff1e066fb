// The source side of the kind table (controller/translate/shared/kinds.ts): how each kind is found in the API —
// its path, how it is listed, whether it is an optional CRD. The cluster source watches exactly these kinds.
import {
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  NetworkingV1Api,
} from '@kubernetes/client-node';
import { kindNames, kindTable } from '../translate/shared/kinds.js';

export type AnyList = KubernetesListObject<KubernetesObject>;

/** What a list call gets: the namespace (undefined: all namespaces) and a field selector. */
export interface ListRequest {
  namespace: string | undefined;
  fieldSelector: string | undefined;
}

export interface SourceKind {
  /** The kind as the store and the translator name it. */
  kind: string;
  /** API group ('' for the core group) and version: the first apiVersion of the kind table. */
  group: string;
  version: string;
  /** The resource name in API paths, e.g. `ingresses`. */
  plural: string;
  namespaced: boolean;
  /**
   * A CRD that may not be installed: not watched while the API does not serve it (found by polling discovery),
   * never waited for by the first sync, and watched from when it appears.
   */
  optional: boolean;
  /** The typed list call of a built-in kind; a kind without one is listed as a custom object. */
  list?: (kubeConfig: KubeConfig, request: ListRequest) => Promise<AnyList>;
}

type Lister = (kubeConfig: KubeConfig, request: ListRequest) => Promise<AnyList>;

/** Built-in kinds: listed by their typed call, always served. */
const typedLists: Partial<Record<(typeof kindNames)[number], { plural: string; list: Lister }>> = {
  Ingress: {
    plural: 'ingresses',
    list: (kc, { namespace, fieldSelector }) => {
      const api = kc.makeApiClient(NetworkingV1Api);
      return (namespace ? api.listNamespacedIngress({ namespace, ...selector(fieldSelector) }) : api.listIngressForAllNamespaces(selector(fieldSelector))) as Promise<AnyList>;
    },
  },
  IngressClass: {
    plural: 'ingressclasses',
    list: (kc, { fieldSelector }) => kc.makeApiClient(NetworkingV1Api).listIngressClass(selector(fieldSelector)) as Promise<AnyList>,
  },
  Service: {
    plural: 'services',
    list: (kc, { namespace, fieldSelector }) => {
      const api = kc.makeApiClient(CoreV1Api);
      return (namespace ? api.listNamespacedService({ namespace, ...selector(fieldSelector) }) : api.listServiceForAllNamespaces(selector(fieldSelector))) as Promise<AnyList>;
    },
  },
  EndpointSlice: {
    plural: 'endpointslices',
    list: (kc, { namespace, fieldSelector }) => {
      const api = kc.makeApiClient(DiscoveryV1Api);
      return (
        namespace ? api.listNamespacedEndpointSlice({ namespace, ...selector(fieldSelector) }) : api.listEndpointSliceForAllNamespaces(selector(fieldSelector))
      ) as Promise<AnyList>;
    },
  },
  Endpoints: {
    plural: 'endpoints',
    list: (kc, { namespace, fieldSelector }) => {
      const api = kc.makeApiClient(CoreV1Api);
      return (namespace ? api.listNamespacedEndpoints({ namespace, ...selector(fieldSelector) }) : api.listEndpointsForAllNamespaces(selector(fieldSelector))) as Promise<AnyList>;
    },
  },
  Secret: {
    plural: 'secrets',
    list: (kc, { namespace, fieldSelector }) => {
      const api = kc.makeApiClient(CoreV1Api);
      return (namespace ? api.listNamespacedSecret({ namespace, ...selector(fieldSelector) }) : api.listSecretForAllNamespaces(selector(fieldSelector))) as Promise<AnyList>;
    },
  },
  Namespace: {
    plural: 'namespaces',
    list: (kc, { fieldSelector }) => kc.makeApiClient(CoreV1Api).listNamespace(selector(fieldSelector)) as Promise<AnyList>,
  },
  ConfigMap: {
    plural: 'configmaps',
    list: (kc, { namespace, fieldSelector }) => {
      const api = kc.makeApiClient(CoreV1Api);
      return (namespace ? api.listNamespacedConfigMap({ namespace, ...selector(fieldSelector) }) : api.listConfigMapForAllNamespaces(selector(fieldSelector))) as Promise<AnyList>;
    },
  },
};

function selector(fieldSelector: string | undefined): { fieldSelector?: string } {
  return fieldSelector === undefined ? {} : { fieldSelector };
}

function groupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** CRD kinds: listed as custom objects, watched only while the API serves them. */
const customPlurals: Partial<Record<(typeof kindNames)[number], string>> = {
  GatewayClass: 'gatewayclasses',
  Gateway: 'gateways',
  HTTPRoute: 'httproutes',
  TLSRoute: 'tlsroutes',
  TCPRoute: 'tcproutes',
  GRPCRoute: 'grpcroutes',
  ReferenceGrant: 'referencegrants',
  ListenerSet: 'listenersets',
  BackendTLSPolicy: 'backendtlspolicies',
  RoutePolicy: 'routepolicies',
};

/** Every kind of the table as the sources find it in the API. */
export const sourceKinds: readonly SourceKind[] = kindNames.map((kind) => {
  const info = kindTable[kind];
  const typed = typedLists[kind];
  const common = { kind, ...groupVersion(info.apiVersions[0]), namespaced: info.namespaced };
  if (typed !== undefined) {
    // Built-in kinds are always served; only a CRD's kind is optional in the API.
    return { ...common, plural: typed.plural, optional: false, list: typed.list };
  }
  const plural = customPlurals[kind];
  if (plural === undefined) throw new Error(`kind ${kind} has neither a typed list nor a custom resource plural`);
  return { ...common, plural, optional: true };
});

export function sourceKind(kind: string): SourceKind {
  const found = sourceKinds.find((k) => k.kind === kind);
  if (found === undefined) throw new Error(`no source kind ${kind}`);
  return found;
}

/** The API path of a kind's collection: all namespaces, or one (a cluster-scoped kind ignores `namespace`). */
export function collectionPath(kind: SourceKind, namespace: string | undefined): string {
  const base = kind.group === '' ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  return kind.namespaced && namespace !== undefined ? `${base}/namespaces/${namespace}/${kind.plural}` : `${base}/${kind.plural}`;
}

/** Lists a kind: its typed call, or the custom objects API (a CRD). */
export function listKind(kubeConfig: KubeConfig, kind: SourceKind, request: ListRequest): Promise<AnyList> {
  if (kind.list !== undefined) return kind.list(kubeConfig, request);
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const common = { group: kind.group, version: kind.version, plural: kind.plural, ...selector(request.fieldSelector) };
  return (
    kind.namespaced && request.namespace !== undefined
      ? api.listNamespacedCustomObject({ ...common, namespace: request.namespace })
      : api.listClusterCustomObject(common)
  ) as Promise<AnyList>;
}

/** Whether the API serves a kind now (its group/version lists the resource): discovery, not a list of objects. */
export async function isServed(kubeConfig: KubeConfig, kind: SourceKind): Promise<boolean> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  try {
    const resources = (await api.getAPIResources({ group: kind.group, version: kind.version })) as { resources?: { name?: string }[] };
    return (resources.resources ?? []).some((r) => r.name === kind.plural);
  } catch (err: unknown) {
    // 404: the group/version is not served (the CRD is not installed).
    if (statusOf(err) === 404) return false;
    throw err;
  }
}

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  return typeof e.code === 'number' ? e.code : typeof e.statusCode === 'number' ? e.statusCode : undefined;
}

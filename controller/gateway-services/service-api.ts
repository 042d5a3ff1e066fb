// The effects of the Gateway Service manager against Kubernetes: create, replace and delete a Service or an
// EndpointSlice in a Gateway's namespace (or the controller's, for the Services kept there before), and create and
// replace the port record (a ConfigMap in the controller's namespace), with the API server's status codes kept on
// the errors. No reads: the store has them (a stale one fails the write with 409,
// retried once the store caught up), so RBAC needs no `get`.
import { CoreV1Api, DiscoveryV1Api, type KubeConfig, type V1ConfigMap, type V1EndpointSlice, type V1Service } from '@kubernetes/client-node';
import { requestTimeoutOptions } from '../leader-election.js';
import { statusOf } from '../service-ingress/ingress-api.js';
import { normalizeObject } from '../sources/normalize.js';
import { namespaceOf } from '../translate/shared/kinds.js';
import type { ConfigMap, EndpointSlice, Service } from '../translate/shared/kube-objects.js';

export type GatewayServiceObject = Service | EndpointSlice;

export interface ServiceApi {
  /** Returns the port record as written (its new resourceVersion); nothing for the others. */
  create(object: GatewayServiceObject): Promise<void>;
  create(object: ConfigMap): Promise<ConfigMap>;
  /** Full update; fails with 409 unless metadata.resourceVersion is current. */
  replace(object: GatewayServiceObject): Promise<void>;
  replace(object: ConfigMap): Promise<ConfigMap>;
  /** Deletes only if the object still has this uid and resourceVersion (else 409); a missing one is fine. */
  delete(kind: GatewayServiceObject['kind'], namespace: string, name: string, preconditions: { uid: string; resourceVersion: string }): Promise<void>;
}

/**
 * A client for Services and EndpointSlices of any namespace (the manager's RBAC is a ClusterRole), and ConfigMaps (a
 * Role of the controller's namespace).
 */
export function createServiceApi(kubeConfig: KubeConfig, options: { timeoutMs?: number } = {}): ServiceApi {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
  const timeout = (): ReturnType<typeof requestTimeoutOptions> => requestTimeoutOptions(options.timeoutMs ?? 10_000);
  const check = (object: object, kind: string, apiVersion: string): void => {
    if (!normalizeObject({ ...object, kind, apiVersion }).ok) throw new Error(`the API server returned an unreadable ${kind}`);
  };
  // Our plain objects already have the API's JSON shape; a Service's status is not written here.
  const service = (object: Service): V1Service => {
    const { status: _status, ...rest } = object;
    return rest as unknown as V1Service;
  };
  const slice = (object: EndpointSlice): V1EndpointSlice => object as unknown as V1EndpointSlice;
  const configMap = (object: ConfigMap): V1ConfigMap => object as unknown as V1ConfigMap;
  const record = (written: V1ConfigMap): ConfigMap => {
    const n = normalizeObject({ ...written, kind: 'ConfigMap', apiVersion: 'v1' });
    if (!n.ok) throw new Error('the API server returned an unreadable ConfigMap');
    return n.object as ConfigMap;
  };
  // Overloads are checked against this implementation's signature.
  const api = {
    async create(object: GatewayServiceObject | ConfigMap): Promise<ConfigMap | undefined> {
      const namespace = namespaceOf(object.metadata);
      if (object.kind === 'ConfigMap') return record(await core.createNamespacedConfigMap({ namespace, body: configMap(object) }, timeout()));
      if (object.kind === 'Service') check(await core.createNamespacedService({ namespace, body: service(object) }, timeout()), 'Service', 'v1');
      else check(await discovery.createNamespacedEndpointSlice({ namespace, body: slice(object) }, timeout()), 'EndpointSlice', 'discovery.k8s.io/v1');
      return undefined;
    },
    async replace(object: GatewayServiceObject | ConfigMap): Promise<ConfigMap | undefined> {
      const namespace = namespaceOf(object.metadata);
      const name = object.metadata.name;
      if (object.kind === 'ConfigMap') return record(await core.replaceNamespacedConfigMap({ namespace, name, body: configMap(object) }, timeout()));
      if (object.kind === 'Service') check(await core.replaceNamespacedService({ namespace, name, body: service(object) }, timeout()), 'Service', 'v1');
      else check(await discovery.replaceNamespacedEndpointSlice({ namespace, name, body: slice(object) }, timeout()), 'EndpointSlice', 'discovery.k8s.io/v1');
      return undefined;
    },
    async delete(kind: GatewayServiceObject['kind'], namespace: string, name: string, preconditions: { uid: string; resourceVersion: string }): Promise<void> {
      try {
        if (kind === 'Service') await core.deleteNamespacedService({ namespace, name, body: { preconditions } }, timeout());
        else await discovery.deleteNamespacedEndpointSlice({ namespace, name, body: { preconditions } }, timeout());
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw error;
      }
    },
  };
  return api as ServiceApi;
}

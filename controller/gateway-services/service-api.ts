// The effects of the Gateway Service manager against Kubernetes: create, replace and delete one Service in
// the controller's namespace, with the API server's status codes kept on the errors. No reads: the store has the
// Services (a stale one fails the write with 409, retried once the store caught up), so RBAC needs no `get`.
import { CoreV1Api, type KubeConfig, type V1Service } from '@kubernetes/client-node';
import { requestTimeoutOptions } from '../leader-election.js';
import { statusOf } from '../service-ingress/ingress-api.js';
import { normalizeObject } from '../sources/normalize.js';
import type { Service } from '../translate/shared/kube-objects.js';

export interface ServiceApi {
  create(service: Service): Promise<Service>;
  /** Full update; fails with 409 unless metadata.resourceVersion is current. */
  replace(service: Service): Promise<Service>;
  /** Deletes only if the Service still has this uid and resourceVersion (else 409); a missing one is fine. */
  delete(name: string, preconditions: { uid: string; resourceVersion: string }): Promise<void>;
}

/** A client for Services of `namespace` only: the manager's RBAC is a Role there. */
export function createServiceApi(kubeConfig: KubeConfig, namespace: string, options: { timeoutMs?: number } = {}): ServiceApi {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const timeout = (): ReturnType<typeof requestTimeoutOptions> => requestTimeoutOptions(options.timeoutMs ?? 10_000);
  const plain = (service: V1Service): Service => {
    const n = normalizeObject({ ...service, kind: 'Service', apiVersion: 'v1' });
    if (!n.ok || n.object.kind !== 'Service') throw new Error('the API server returned an unreadable Service');
    return n.object;
  };
  // Our plain objects already have the API's JSON shape.
  const body = (service: Omit<Service, 'status'>): V1Service => service as unknown as V1Service;
  return {
    async create(service) {
      return plain(await api.createNamespacedService({ namespace, body: body(service) }, timeout()));
    },
    async replace(service) {
      const { status: _status, ...rest } = service;
      return plain(await api.replaceNamespacedService({ namespace, name: service.metadata.name, body: body(rest) }, timeout()));
    },
    async delete(name, preconditions) {
      try {
        await api.deleteNamespacedService({ namespace, name, body: { preconditions } }, timeout());
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw error;
      }
    },
  };
}

// The effects of the Service-annotation Ingress manager against Kubernetes: read, create, replace and delete one
// Ingress, with the API server's status codes kept on the errors so the manager can tell a stale read (409) from a
// failure.
import { ApiException, NetworkingV1Api, type KubeConfig, type V1Ingress } from '@kubernetes/client-node';
import { requestTimeoutOptions } from '../leader-election.js';
import { normalizeObject } from '../sources/normalize.js';
import type { Ingress } from '../translate/shared/kube-objects.js';

/** The Ingress writes the manager makes; errors carry the HTTP status as `code` (ApiException). */
export interface IngressApi {
  /** The Ingress as stored now, or undefined when there is none. */
  read(namespace: string, name: string): Promise<Ingress | undefined>;
  create(ingress: Ingress): Promise<Ingress>;
  /** Full update; fails with 409 unless metadata.resourceVersion is current. */
  replace(ingress: Ingress): Promise<Ingress>;
  /** Deletes only if the Ingress still has this uid and resourceVersion (else 409); a missing one is fine. */
  delete(namespace: string, name: string, preconditions: { uid: string; resourceVersion: string }): Promise<void>;
}

export function createIngressApi(kubeConfig: KubeConfig, options: { timeoutMs?: number } = {}): IngressApi {
  const api = kubeConfig.makeApiClient(NetworkingV1Api);
  const timeout = (): ReturnType<typeof requestTimeoutOptions> => requestTimeoutOptions(options.timeoutMs ?? 10_000);
  const plain = (ingress: V1Ingress): Ingress => {
    const n = normalizeObject({ ...ingress, kind: 'Ingress', apiVersion: 'networking.k8s.io/v1' });
    if (!n.ok || n.object.kind !== 'Ingress') throw new Error('the API server returned an unreadable Ingress');
    return n.object;
  };
  return {
    async read(namespace, name) {
      try {
        return plain(await api.readNamespacedIngress({ namespace, name }, timeout()));
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    },
    async create(ingress) {
      const namespace = ingress.metadata.namespace ?? 'default';
      return plain(await api.createNamespacedIngress({ namespace, body: toV1Ingress(ingress) }, timeout()));
    },
    async replace(ingress) {
      const namespace = ingress.metadata.namespace ?? 'default';
      const { status: _status, ...body } = ingress;
      return plain(await api.replaceNamespacedIngress({ namespace, name: ingress.metadata.name, body: toV1Ingress(body) }, timeout()));
    },
    async delete(namespace, name, preconditions) {
      try {
        await api.deleteNamespacedIngress({ namespace, name, body: { preconditions } }, timeout());
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw error;
      }
    },
  };
}

/**
 * Our plain objects already have the API's JSON shape; the client's serializer copies fields by those names and
 * passes timestamps that are strings through unchanged.
 */
function toV1Ingress(ingress: Omit<Ingress, 'status'>): V1Ingress {
  return ingress as unknown as V1Ingress;
}

export function statusOf(error: unknown): number | undefined {
  if (error instanceof ApiException) return error.code;
  return undefined;
}

/** An API error in one line for logs and diagnostics (status and the server's message, cut short). */
export function describeError(error: unknown): string {
  if (error instanceof ApiException) {
    const body: unknown = error.body;
    const message = typeof body === 'string' ? body : (body as { message?: unknown } | undefined)?.message;
    return `HTTP ${error.code}${message ? `: ${String(message).slice(0, 300)}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

// `migrate --listener-sets`: a TLS host's HTTPS listener goes into a ListenerSet of its certificate's namespace (the
// Ingress's: the Ingress translator serves only Secrets of the Ingress's own namespace), instead of the class's
// Gateway. The spec (apis/v1/listenerset_types.go): "A ListenerSet can reference secrets/backends in its own
// namespace without a ReferenceGrant", so a tenant's certificate stays in its namespace with no grant to the
// Gateway's; each namespace owns its listeners (and can add hosts without editing the shared Gateway), its listeners
// take only routes of their own namespace, and the Gateway's 64-listener limit counts the Gateway's own listeners only.
// The Gateway admits ListenerSets of every namespace (allowedListeners All), as any namespace may claim a host by an
// Ingress today (the oldest claim wins on both sides: the Gateway's own listeners, then sets oldest first).
import type { GatewayListener, ListenerSet, ParentReference } from '../shared/kube-objects.js';

const gatewayApiGroup = 'gateway.networking.k8s.io';
/** A ListenerSet holds at most 64 listeners (the CRD's limit). */
const maxListenersPerSet = 64;

export interface ListenerSetPlan {
  /** Adds a host's HTTPS listener (its certificate in `namespace`) to that namespace's set. */
  add(namespace: string, host: string, listener: GatewayListener): void;
  /** The parentRef of a host's HTTPS listener, once added. */
  parentOf(host: string): ParentReference | undefined;
  /**
   * What a route of `host` in `namespace` attaches to in the sets, where on the Gateway its Gateway parentRef
   * reached every listener whose hostname covers the host: the host's own HTTPS listener and the wildcard ones
   * covering it (`*.example.com` covers names at any depth below). `foreign`: covering listeners of another namespace
   * that take only their own namespace's routes.
   */
  parentsFor(host: string, namespace: string): { parents: ParentReference[]; foreign: ParentReference[] };
  /** The ListenerSets, by namespace then name; none when no listener was added. */
  sets(): ListenerSet[];
}

/**
 * The ListenerSets of one Gateway: `<gateway>-https` in each namespace (`-2`, `-3`... past 64 listeners), listener
 * names as the Gateway would have them. `crossNamespaceRoutes`: the listeners take routes of every namespace (run's
 * --allow-cross-namespace-hosts, where another namespace's Ingress may serve paths of the host), else of their own.
 */
export function listenerSetPlan(gateway: { name: string; namespace: string }, crossNamespaceRoutes: boolean, truncateName: (name: string) => string): ListenerSetPlan {
  const byNamespace = new Map<string, { host: string; listener: GatewayListener }[]>();
  const parents = new Map<string, ParentReference>();
  const setName = (index: number): string => truncateName(index === 0 ? `${gateway.name}-https` : `${gateway.name}-https-${index + 1}`);
  return {
    add(namespace, host, listener) {
      const list = byNamespace.get(namespace) ?? [];
      list.push({ host, listener: { ...listener, allowedRoutes: { namespaces: { from: crossNamespaceRoutes ? 'All' : 'Same' } } } });
      byNamespace.set(namespace, list);
      const name = setName(Math.floor((list.length - 1) / maxListenersPerSet));
      parents.set(host, { group: gatewayApiGroup, kind: 'ListenerSet', name, namespace, sectionName: listener.name });
    },
    parentOf: (host) => parents.get(host),
    parentsFor(host, namespace) {
      const covering = [...parents].filter(([listenerHost]) => listenerHost === host || (listenerHost.startsWith('*.') && host !== listenerHost && host.endsWith(listenerHost.slice(1))));
      const refs = covering.map(([, ref]) => ref);
      const reachable = (ref: ParentReference): boolean => crossNamespaceRoutes || ref.namespace === namespace;
      return { parents: refs.filter(reachable), foreign: refs.filter((r) => !reachable(r)) };
    },
    sets() {
      return [...byNamespace].sort(([a], [b]) => (a < b ? -1 : 1)).flatMap(([namespace, list]) =>
        Array.from({ length: Math.ceil(list.length / maxListenersPerSet) }, (_, i): ListenerSet => ({
          apiVersion: `${gatewayApiGroup}/v1`,
          kind: 'ListenerSet',
          metadata: { name: setName(i), namespace },
          spec: {
            parentRef: { group: gatewayApiGroup, kind: 'Gateway', name: gateway.name, namespace: gateway.namespace },
            listeners: list.slice(i * maxListenersPerSet, (i + 1) * maxListenersPerSet).map((e) => e.listener),
          },
        })),
      );
    },
  };
}

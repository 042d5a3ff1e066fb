// Which addresses the controller publishes in Ingress status.loadBalancer.ingress: explicit --publish-address
// values win; otherwise the addresses of the --publish-service Service (the one in front of Envoy); otherwise,
// with --publish-nodes (Envoy on the nodes' own network, no Service in front), the addresses of the nodes whose
// Envoy pod is ready. Pure.
import { isIP } from 'node:net';
import type { LoadBalancerIngress, Service } from '../translate/shared/kube-objects.js';

export interface PublishOptions {
  /** The Service that exposes Envoy; its load balancer, external or cluster IPs are published. */
  publishService?: { namespace: string; name: string };
  /** Fixed addresses (IPs or hostnames) to publish instead of reading a Service. */
  publishAddresses?: readonly string[];
  /** Publish the addresses of the nodes running ready pods that match `podSelector` in `namespace`. */
  publishNodes?: PublishNodesOptions;
}

export type NodeAddressType = 'ExternalIP' | 'InternalIP';

export interface PublishNodesOptions {
  namespace: string;
  /** Label selector of the pods whose nodes serve traffic (the hostNetwork Envoy pods). */
  podSelector: string;
  /** Which of a node's addresses to publish; a node without one of this type publishes the other type. */
  addressType: NodeAddressType;
}

/** The fields of a Pod that say where it runs and whether it serves. */
export interface PodPlacement {
  metadata?: { deletionTimestamp?: unknown };
  spec?: { nodeName?: string };
  status?: { conditions?: readonly { type: string; status: string }[] };
}

/** The fields of a Node that carry its addresses. */
export interface NodeAddresses {
  metadata?: { name?: string };
  status?: { addresses?: readonly { type: string; address: string }[] };
}

/**
 * Addresses of the nodes running a ready pod (a terminating pod no longer counts: its node is being drained), one
 * per node, of `addressType` when the node has one, else of the other type; sorted, without duplicates.
 */
export function nodeAddresses(pods: readonly PodPlacement[], nodes: readonly NodeAddresses[], addressType: NodeAddressType): LoadBalancerIngress[] {
  const serving = new Set(
    pods
      .filter((p) => p.metadata?.deletionTimestamp == null && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .map((p) => p.spec?.nodeName)
      .filter((n): n is string => !!n),
  );
  const other: NodeAddressType = addressType === 'ExternalIP' ? 'InternalIP' : 'ExternalIP';
  const found: string[] = [];
  for (const node of nodes) {
    if (!serving.has(node.metadata?.name ?? '')) continue;
    const addresses = node.status?.addresses ?? [];
    const ofType = (type: NodeAddressType) => addresses.filter((a) => a.type === type && a.address.trim() !== '').map((a) => a.address);
    const chosen = ofType(addressType);
    found.push(...(chosen.length > 0 ? chosen : ofType(other)));
  }
  return unique(found.sort().map(addressOf));
}

/** Fields of a Service the kube-objects subset leaves out but the API (and our normalised copy) carries. */
interface ServiceAddressFields {
  spec?: { externalIPs?: string[]; clusterIP?: string; type?: string; externalName?: string };
}

/** An IP becomes `{ip}`, anything else `{hostname}`. Empty values are skipped. */
export function addressOf(value: string): LoadBalancerIngress | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  return isIP(trimmed) ? { ip: trimmed } : { hostname: trimmed };
}

/**
 * The addresses to publish, in a stable order without duplicates. `service` is the publish Service as found in
 * the store (undefined when it does not exist or none is configured); `nodes` the nodeAddresses() of the
 * --publish-nodes pods, used when neither explicit addresses nor a publish Service are configured.
 */
export function publishedAddresses(options: PublishOptions, service: Service | undefined, nodes: readonly LoadBalancerIngress[] = []): LoadBalancerIngress[] {
  if (options.publishAddresses && options.publishAddresses.length > 0) {
    return unique(options.publishAddresses.map(addressOf));
  }
  if (!options.publishService && options.publishNodes) return unique(nodes);
  if (!options.publishService || !service) return [];
  const loadBalancer = (service.status?.loadBalancer?.ingress ?? []).map((entry) => {
    // Keep only ip/hostname: ports and ipMode are not part of an Ingress's status.
    const out: LoadBalancerIngress = {};
    if (entry.ip) out.ip = entry.ip;
    else if (entry.hostname) out.hostname = entry.hostname;
    return out.ip || out.hostname ? out : undefined;
  });
  const fromLoadBalancer = unique(loadBalancer);
  if (fromLoadBalancer.length > 0) return fromLoadBalancer;
  const spec = (service as ServiceAddressFields).spec;
  const external = unique((spec?.externalIPs ?? []).map(addressOf));
  if (external.length > 0) return external;
  if (spec?.type === 'ExternalName' && spec.externalName) return unique([addressOf(spec.externalName)]);
  const clusterIP = spec?.clusterIP;
  // Headless Services ("None") have no address to publish.
  if (clusterIP && clusterIP !== 'None') return unique([addressOf(clusterIP)]);
  return [];
}

/** Canonical text of an address list, independent of order: for comparing what is with what should be. */
export function addressesKey(addresses: readonly LoadBalancerIngress[]): string {
  return addresses
    .map((a) => `${a.ip ?? ''}|${a.hostname ?? ''}`)
    .sort()
    .join(',');
}

function unique(list: readonly (LoadBalancerIngress | undefined)[]): LoadBalancerIngress[] {
  const seen = new Set<string>();
  const out: LoadBalancerIngress[] = [];
  for (const a of list) {
    if (!a) continue;
    const key = `${a.ip ?? ''}|${a.hostname ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(a);
  }
  return out;
}

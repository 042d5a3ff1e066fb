// Which addresses the controller publishes in Ingress status.loadBalancer.ingress: explicit --publish-address
// values win; otherwise the addresses of the --publish-service Service (the one in front of Envoy). Pure.
import { isIP } from 'node:net';
import type { LoadBalancerIngress, Service } from '../translate/kube-objects.js';

export interface PublishOptions {
  /** The Service that exposes Envoy; its load balancer, external or cluster IPs are published. */
  publishService?: { namespace: string; name: string };
  /** Fixed addresses (IPs or hostnames) to publish instead of reading a Service. */
  publishAddresses?: readonly string[];
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
 * the store (undefined when it does not exist or none is configured).
 */
export function publishedAddresses(options: PublishOptions, service: Service | undefined): LoadBalancerIngress[] {
  if (options.publishAddresses && options.publishAddresses.length > 0) {
    return unique(options.publishAddresses.map(addressOf));
  }
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

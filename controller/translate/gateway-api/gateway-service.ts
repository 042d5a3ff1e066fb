// The Service the controller keeps for each Gateway in cluster mode (--gateway-port-range): its name, the labels and
// the annotation that tie it to its Gateway, its type, and the addresses it gives the Gateway's status. Pure: the
// translator reads it to keep Envoy ports stable (gateway-ports.ts) and to compute status.addresses; the Service
// manager (controller/gateway-services/) writes what gateway-service-plan.ts derives from the same functions.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { namespaceOf } from '../shared/kinds.js';
import type { Gateway, GatewayClass, Service } from '../shared/kube-objects.js';
import { canonicalIp } from './canonical-ip.js';

/** Annotation on a managed Service naming its Gateway (`namespace/name`): the record the ports and the manager read. */
export const gatewayServiceAnnotation = 'envoy-ingress.io/gateway';
/** The Gateway API's well-known label for resources generated for a Gateway. */
export const gatewayNameLabel = 'gateway.networking.k8s.io/gateway-name';
export const gatewayNamespaceLabel = 'envoy-ingress.io/gateway-namespace';
export const managedByLabel = 'app.kubernetes.io/managed-by';
export const managedByValue = 'envoy-ingress';
/**
 * The Service type, as an annotation on the Gateway's spec.infrastructure, on the Gateway, or on its GatewayClass
 * (the first that has it wins); absent: LoadBalancer.
 */
export const serviceTypeAnnotation = 'envoy-ingress.io/service-type';
export const serviceTypes = ['LoadBalancer', 'ClusterIP', 'NodePort'] as const;
export type GatewayServiceType = (typeof serviceTypes)[number];

/** A Gateway's key, `namespace/name`. */
export function gatewayKey(gateway: Gateway): string {
  return `${namespaceOf(gateway.metadata)}/${gateway.metadata.name}`;
}

/**
 * `gw-<namespace>-<name>` cut to fit a Service name (a 63-character DNS label), then a hash of `namespace/name` so
 * names that read alike (`a-b/c`, `a/b-c`) or were cut stay distinct.
 */
export function gatewayServiceName(gateway: Gateway): string {
  const hash = createHash('sha256').update(gatewayKey(gateway)).digest('hex').slice(0, 8);
  const readable = `gw-${namespaceOf(gateway.metadata)}-${gateway.metadata.name}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63 - 1 - hash.length)
    .replace(/-+$/, '');
  return `${readable}-${hash}`;
}

/** Whether `service` is one the controller manages for a Gateway, and for which (`namespace/name`). */
export function managedGatewayKey(service: Service, namespace: string): string | undefined {
  if (namespaceOf(service.metadata) !== namespace) return undefined;
  if (service.metadata.labels?.[managedByLabel] !== managedByValue) return undefined;
  return service.metadata.annotations?.[gatewayServiceAnnotation];
}

/** The managed Service of each Gateway key, among `services` (those of the controller's namespace count). */
export function managedServicesByGateway(services: Iterable<Service>, namespace: string): Map<string, Service> {
  const byGateway = new Map<string, Service>();
  for (const service of services) {
    const key = managedGatewayKey(service, namespace);
    if (key !== undefined) byGateway.set(key, service);
  }
  return byGateway;
}

/** The Service type the Gateway asks for, or a problem with what it wrote (LoadBalancer is used then). */
export function gatewayServiceType(gateway: Gateway, gatewayClass: GatewayClass | undefined): { type: GatewayServiceType; problem?: string } {
  const sources: [string, string | undefined][] = [
    ['spec.infrastructure.annotations', gateway.spec?.infrastructure?.annotations?.[serviceTypeAnnotation]],
    ['metadata.annotations', gateway.metadata.annotations?.[serviceTypeAnnotation]],
    [`GatewayClass ${gatewayClass?.metadata.name ?? ''} metadata.annotations`, gatewayClass?.metadata.annotations?.[serviceTypeAnnotation]],
  ];
  for (const [where, value] of sources) {
    if (value === undefined) continue;
    if ((serviceTypes as readonly string[]).includes(value)) return { type: value as GatewayServiceType };
    return { type: 'LoadBalancer', problem: `${where} ${serviceTypeAnnotation}: ${JSON.stringify(value)} is not one of ${serviceTypes.join(', ')}; LoadBalancer is used` };
  }
  return { type: 'LoadBalancer' };
}

/** An entry of Gateway status.addresses. */
export interface GatewayStatusAddress {
  type: 'IPAddress' | 'Hostname';
  value: string;
}

/**
 * The addresses a Gateway's Service gives it: status.loadBalancer.ingress for a LoadBalancer (empty until the load
 * balancer assigned one), else its ClusterIP(s).
 */
export function serviceAddresses(service: Service | undefined): GatewayStatusAddress[] {
  if (service === undefined) return [];
  if ((service.spec?.type ?? 'ClusterIP') === 'LoadBalancer') {
    const addresses: GatewayStatusAddress[] = [];
    for (const ingress of service.status?.loadBalancer?.ingress ?? []) {
      if (ingress.ip) addresses.push({ type: 'IPAddress', value: ingress.ip });
      else if (ingress.hostname) addresses.push({ type: 'Hostname', value: ingress.hostname });
    }
    return addresses;
  }
  const clusterIP = service.spec?.clusterIP;
  return clusterIP !== undefined && isIP(clusterIP) !== 0 ? [{ type: 'IPAddress', value: clusterIP }] : [];
}

/**
 * In cluster mode a Gateway may ask only for IPAddress addresses (given to the load balancer); another type makes it
 * not Accepted (UnsupportedAddress): it gets no Envoy port and no Service. The message, or undefined when fine.
 */
export function unsupportedServiceAddress(gateway: Gateway): string | undefined {
  const unsupported = gateway.spec?.addresses?.find((a) => (a.type ?? 'IPAddress') !== 'IPAddress');
  return unsupported === undefined ? undefined : `spec.addresses: type ${unsupported.type} is not supported; only IPAddress is (asked of the load balancer)`;
}

/** The IPAddress values a Gateway's spec.addresses names (empty values, "any address", left out). */
function requestedIps(gateway: Gateway): string[] {
  return (gateway.spec?.addresses ?? []).filter((a) => (a.type ?? 'IPAddress') === 'IPAddress' && a.value !== undefined && a.value !== '').map((a) => a.value as string);
}

/**
 * The spec.addresses the load balancer cannot give: not IPs, or outside `loadBalancerAddresses` when that list is known
 * (--gateway-load-balancer-addresses). The Gateway is then not Programmed (AddressNotUsable), and they are not asked for.
 */
export function unusableServiceAddresses(gateway: Gateway, loadBalancerAddresses: readonly string[] | undefined): string[] {
  const usable = loadBalancerAddresses === undefined ? undefined : new Set(loadBalancerAddresses.map((a) => canonicalIp(a) ?? a));
  return requestedIps(gateway).filter((value) => {
    const ip = canonicalIp(value);
    return ip === undefined || (usable !== undefined && !usable.has(ip));
  });
}

/** The address asked of the load balancer (spec.loadBalancerIP: one only): the first usable one the Gateway names. */
export function requestedServiceAddress(gateway: Gateway, loadBalancerAddresses: readonly string[] | undefined): string | undefined {
  const unusable = new Set(unusableServiceAddresses(gateway, loadBalancerAddresses));
  return requestedIps(gateway).find((value) => !unusable.has(value));
}


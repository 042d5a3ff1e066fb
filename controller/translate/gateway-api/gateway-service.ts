// The Service the controller keeps for each Gateway in cluster mode (--gateway-port-range), in the Gateway's own
// namespace: its name, the labels and the annotation that tie it to its Gateway, its type, and the addresses it gives
// the Gateway's status. Its targetPorts follow the port record (gateway-port-record.ts), never the other way: its
// tenant may write it. (Before, it lived in the controller's namespace; such a Service still gives its Envoy ports
// to a Gateway the record does not have yet, gateway-ports.ts.) Pure: the translator reads it for status.addresses;
// the Service manager (controller/gateway-services/) writes what gateway-service-plan.ts derives from the same
// functions.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { namespaceOf } from '../shared/kinds.js';
import type { EndpointSlice, Gateway, GatewayClass, Service } from '../shared/kube-objects.js';
import { canonicalIp } from './canonical-ip.js';

/** Annotation on a managed Service naming its Gateway (`namespace/name`), which the manager reads. */
export const gatewayServiceAnnotation = 'envoy-ingress.io/gateway';
/**
 * Annotation on a managed Service or EndpointSlice naming the GatewayClass controllerName it was written for: with
 * several installs (controllerNames) keeping Services in the same Gateway namespaces, each deletes only its own.
 */
export const gatewayControllerAnnotation = 'envoy-ingress.io/gateway-controller';
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

/**
 * Whether `service` is one the controller manages for a Gateway, and for which (`namespace/name`). Only where the
 * controller puts them counts: the Gateway's own namespace (a tenant's Service cannot claim another namespace's
 * Gateway) or, from before, the controller's `namespace`.
 */
export function managedGatewayKey(service: Service, namespace: string): string | undefined {
  if (service.metadata.labels?.[managedByLabel] !== managedByValue) return undefined;
  const key = service.metadata.annotations?.[gatewayServiceAnnotation];
  if (key === undefined) return undefined;
  const own = namespaceOf(service.metadata);
  return own === namespace || own === key.slice(0, key.indexOf('/')) ? key : undefined;
}

/** Whether `service` is the one a Gateway's Service is now: in the Gateway's namespace, under its name. */
export function isCurrentGatewayService(service: Service, gateway: Gateway): boolean {
  return namespaceOf(service.metadata) === namespaceOf(gateway.metadata) && service.metadata.name === gatewayServiceName(gateway);
}

/** Every managed Service of each Gateway key, among `services` (the Gateway's namespace and the controller's count). */
export function managedServicesOfGateways(services: Iterable<Service>, namespace: string): Map<string, Service[]> {
  const byGateway = new Map<string, Service[]>();
  for (const service of services) {
    const key = managedGatewayKey(service, namespace);
    if (key !== undefined) byGateway.set(key, [...(byGateway.get(key) ?? []), service]);
  }
  return byGateway;
}

/**
 * The managed Service of each Gateway key whose addresses are the Gateway's: the one in the Gateway's namespace, else
 * one the controller kept in its own `namespace` before (until the manager moved it). Not its ports' record.
 */
export function managedServicesByGateway(services: Iterable<Service>, namespace: string): Map<string, Service> {
  const byGateway = new Map<string, Service>();
  for (const [key, all] of managedServicesOfGateways(services, namespace)) {
    const inGatewayNamespace = all.find((s) => namespaceOf(s.metadata) === key.slice(0, key.indexOf('/')));
    byGateway.set(key, inGatewayNamespace ?? (all[0] as Service));
  }
  return byGateway;
}

/**
 * The Service under a Gateway's Service name in its namespace when it is not the controller's (a tenant's own, or
 * another Gateway's): the controller leaves it alone, and the Gateway has no Service. Undefined when free or ours.
 */
export function foreignServiceAt(gateway: Gateway, services: Iterable<Service>, namespace: string): Service | undefined {
  for (const service of services) {
    if (!isCurrentGatewayService(service, gateway)) continue;
    return managedGatewayKey(service, namespace) === gatewayKey(gateway) ? undefined : service;
  }
  return undefined;
}

/**
 * The EndpointSlice the controller keeps for a Gateway's Service (which has no selector): the ready Envoy pods, on
 * the Envoy ports. This managed-by value (not the EndpointSlice controller's) makes Kubernetes leave it alone.
 */
export const endpointSliceManagedByLabel = 'endpointslice.kubernetes.io/managed-by';
export const endpointSliceManagedByValue = 'gateway-services.envoy-ingress.io';
export const endpointSliceServiceNameLabel = 'kubernetes.io/service-name';

/** Whether `slice` is the one the controller keeps for `gateway`. */
export function isGatewayEndpointSlice(slice: EndpointSlice, gateway: Gateway): boolean {
  return slice.metadata.labels?.[endpointSliceManagedByLabel] === endpointSliceManagedByValue && slice.metadata.annotations?.[gatewayServiceAnnotation] === gatewayKey(gateway);
}

/** The EndpointSlice under a Gateway Service's name in its namespace when it is not the controller's one for it. */
export function foreignEndpointSliceAt(gateway: Gateway, slices: Iterable<EndpointSlice>): EndpointSlice | undefined {
  for (const slice of slices) {
    if (namespaceOf(slice.metadata) !== namespaceOf(gateway.metadata) || slice.metadata.name !== gatewayServiceName(gateway)) continue;
    return isGatewayEndpointSlice(slice, gateway) ? undefined : slice;
  }
  return undefined;
}

/**
 * Why the controller cannot keep a Gateway's Service or EndpointSlice: the name is taken by an object it does not
 * manage for this Gateway (left alone). Undefined when free or ours.
 */
export function gatewayServiceCollision(gateway: Gateway, services: Iterable<Service>, slices: Iterable<EndpointSlice>, namespace: string): string | undefined {
  const where = `${namespaceOf(gateway.metadata)}/${gatewayServiceName(gateway)}`;
  if (foreignServiceAt(gateway, services, namespace) !== undefined) {
    return `the Service ${where} exists and is not managed by envoy-ingress for this Gateway; it is left alone, so the Gateway has no Service (delete or rename it)`;
  }
  if (foreignEndpointSliceAt(gateway, slices) !== undefined) {
    return `the EndpointSlice ${where} exists and is not managed by envoy-ingress for this Gateway; it is left alone, so the Gateway's Service has no endpoints (delete or rename it)`;
  }
  return undefined;
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


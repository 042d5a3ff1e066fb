// What the Gateway Service manager should do for one Gateway key: the Service it wants (from the Gateway, its
// class, and the Envoy ports gateway-ports.ts gives it) against the managed Service that exists: create, update,
// delete, or nothing. Pure: gateway-service-manager.ts carries it out through service-api.ts.
import { namespaceOf } from '../translate/shared/kinds.js';
import { type ClusterState, type Gateway, type GatewayClass, type Service, objectsOf } from '../translate/shared/kube-objects.js';
import { compareByAge } from '../translate/shared/ordering.js';
import { allocateGatewayPorts, type GatewayPortAllocation } from '../translate/gateway-api/gateway-ports.js';
import { invalidParameters } from '../translate/gateway-api/listener-bindings.js';
import { listenerSetsOf } from '../translate/gateway-api/listener-sets.js';
import {
  gatewayKey,
  gatewayNameLabel,
  gatewayNamespaceLabel,
  gatewayServiceAnnotation,
  gatewayServiceName,
  gatewayServiceType,
  managedByLabel,
  managedByValue,
  managedServicesByGateway,
  requestedServiceAddress,
  unsupportedServiceAddress,
} from '../translate/gateway-api/gateway-service.js';

export interface GatewayServiceSettings {
  /** The GatewayClass controllerName that marks a class as ours. */
  controllerName: string;
  /** The controller's namespace, where the Services live. */
  namespace: string;
  /** Labels of the Envoy pods the Services select. */
  selector: Record<string, string>;
  portRange: { first: number; last: number };
  /** Envoy ports never given to Gateways (the Ingress listeners'). */
  reservedPorts: ReadonlySet<number>;
  /** --gateway-load-balancer-addresses: the IPs the load balancer gives on request; absent: unknown. */
  loadBalancerAddresses?: readonly string[];
}

export type GatewayServicePlan =
  | { action: 'create'; service: Service }
  | { action: 'update'; service: Service }
  | { action: 'delete'; name: string; uid: string; resourceVersion: string }
  | { action: 'none' };

/** Our Gateways (their class's controllerName is ours) that may have a Service, oldest first, with their classes. */
export function ourGateways(state: ClusterState, controllerName: string): { gateway: Gateway; gatewayClass: GatewayClass }[] {
  const classes = new Map(objectsOf(state, 'GatewayClass').filter((c) => c.spec?.controllerName === controllerName).map((c) => [c.metadata.name, c]));
  return [...objectsOf(state, 'Gateway')]
    .sort(compareByAge)
    .flatMap((gateway) => {
      const gatewayClass = classes.get(gateway.spec?.gatewayClassName ?? '');
      // A Gateway the translator does not accept for its addresses or parameters gets no Service (listener-bindings.ts).
      return gatewayClass === undefined || unsupportedServiceAddress(gateway) !== undefined || invalidParameters(gateway) !== undefined ? [] : [{ gateway, gatewayClass }];
    });
}

/** Whether `value` may be a label value (63 characters, alphanumerics with `-_.` inside). */
function isLabelValue(value: string): boolean {
  return /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/.test(value);
}

/** The Service a Gateway should have; undefined when none of its listener ports got an Envoy port. */
export function desiredGatewayService(
  gateway: Gateway,
  gatewayClass: GatewayClass | undefined,
  ports: ReadonlyMap<number, number> | undefined,
  settings: Pick<GatewayServiceSettings, 'namespace' | 'selector' | 'loadBalancerAddresses'>,
): Service | undefined {
  if (ports === undefined || ports.size === 0) return undefined;
  const infrastructure = gateway.spec?.infrastructure;
  const { type } = gatewayServiceType(gateway, gatewayClass);
  // spec.addresses: a usable IPAddress is asked of the load balancer (loadBalancerIP; whether it got it shows in status).
  const requestedIp = type === 'LoadBalancer' ? requestedServiceAddress(gateway, settings.loadBalancerAddresses) : undefined;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: gatewayServiceName(gateway),
      namespace: settings.namespace,
      labels: {
        ...infrastructure?.labels,
        [managedByLabel]: managedByValue,
        ...(isLabelValue(gateway.metadata.name) ? { [gatewayNameLabel]: gateway.metadata.name } : {}),
        [gatewayNamespaceLabel]: namespaceOf(gateway.metadata),
      },
      annotations: { ...infrastructure?.annotations, [gatewayServiceAnnotation]: gatewayKey(gateway) },
    },
    spec: {
      type,
      selector: { ...settings.selector },
      ports: [...ports].map(([port, targetPort]) => ({ name: `port-${port}`, protocol: 'TCP', port, targetPort })),
      ...(requestedIp === undefined ? {} : { loadBalancerIP: requestedIp }),
    },
  };
}

/** Everything a plan needs, computed once per store state. */
export interface GatewayServiceView {
  gateways: Map<string, { gateway: Gateway; gatewayClass: GatewayClass }>;
  existing: Map<string, Service>;
  allocation: GatewayPortAllocation;
}

export function gatewayServiceView(state: ClusterState, settings: GatewayServiceSettings): GatewayServiceView {
  const ours = ourGateways(state, settings.controllerName);
  const services = objectsOf(state, 'Service');
  // The ports of the ListenerSets a Gateway takes are the Gateway's too (its Service exposes them).
  const listenerSets = listenerSetsOf(state, new Map(ours.map((g) => [`${namespaceOf(g.gateway.metadata)}/${g.gateway.metadata.name}`, g.gateway])));
  return {
    gateways: new Map(ours.map((g) => [gatewayKey(g.gateway), g])),
    existing: managedServicesByGateway(services, settings.namespace),
    allocation: allocateGatewayPorts(
      ours.map((g) => g.gateway),
      services,
      settings,
      settings.reservedPorts,
      listenerSets.taken,
    ),
  };
}

/** The Gateway keys a view has work for: every Gateway of ours and every managed Service. */
export function viewKeys(view: GatewayServiceView): string[] {
  return [...new Set([...view.gateways.keys(), ...view.existing.keys()])].sort();
}

export function planGatewayService(key: string, view: GatewayServiceView, settings: GatewayServiceSettings): GatewayServicePlan {
  const entry = view.gateways.get(key);
  const existing = view.existing.get(key);
  const desired = entry === undefined ? undefined : desiredGatewayService(entry.gateway, entry.gatewayClass, view.allocation.ports.get(key), settings);
  if (desired === undefined) {
    if (existing === undefined) return { action: 'none' };
    return { action: 'delete', name: existing.metadata.name, uid: existing.metadata.uid ?? '', resourceVersion: existing.metadata.resourceVersion ?? '' };
  }
  // A managed Service under an older name scheme, or a namesake: replace it rather than adopt it.
  if (existing !== undefined && existing.metadata.name !== desired.metadata.name) {
    return { action: 'delete', name: existing.metadata.name, uid: existing.metadata.uid ?? '', resourceVersion: existing.metadata.resourceVersion ?? '' };
  }
  if (existing === undefined) return { action: 'create', service: desired };
  if (upToDate(existing, desired)) return { action: 'none' };
  return { action: 'update', service: merged(existing, desired) };
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return Object.entries(b ?? {}).every(([k, v]) => a?.[k] === v);
}

/** The fields this manager owns match (labels and annotations others added are tolerated). */
function upToDate(existing: Service, desired: Service): boolean {
  const portsOf = (s: Service): string =>
    JSON.stringify((s.spec?.ports ?? []).map((p) => [p.name ?? '', p.protocol ?? 'TCP', p.port, p.targetPort ?? p.port]));
  return (
    (existing.spec?.type ?? 'ClusterIP') === desired.spec?.type &&
    JSON.stringify(Object.entries(existing.spec?.selector ?? {}).sort()) === JSON.stringify(Object.entries(desired.spec?.selector ?? {}).sort()) &&
    portsOf(existing) === portsOf(desired) &&
    existing.spec?.loadBalancerIP === desired.spec?.loadBalancerIP &&
    sameRecord(existing.metadata.labels, desired.metadata.labels) &&
    sameRecord(existing.metadata.annotations, desired.metadata.annotations)
  );
}

/** `desired` on top of what was read: its resourceVersion makes the write fail if anyone changed it since. */
function merged(existing: Service, desired: Service): Service {
  const spec: Record<string, unknown> = { ...existing.spec, ...desired.spec };
  // The API server keeps allocated node ports and the ClusterIP when a port stays; fields of another type go.
  const type = desired.spec?.type;
  if (type !== 'LoadBalancer') for (const f of ['allocateLoadBalancerNodePorts', 'loadBalancerClass', 'loadBalancerIP', 'loadBalancerSourceRanges', 'healthCheckNodePort']) delete spec[f];
  if (type === 'ClusterIP') delete spec['externalTrafficPolicy'];
  if (desired.spec && !('loadBalancerIP' in desired.spec)) delete spec['loadBalancerIP'];
  const nodePorts = new Map((existing.spec?.ports ?? []).map((p) => [p.port, (p as { nodePort?: number }).nodePort]));
  spec['ports'] = (desired.spec?.ports ?? []).map((p) => {
    const nodePort = type === 'ClusterIP' ? undefined : nodePorts.get(p.port);
    return nodePort === undefined ? p : { ...p, nodePort };
  });
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...existing.metadata.labels, ...desired.metadata.labels },
      annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations },
    },
    spec: spec as NonNullable<Service['spec']>,
  };
}

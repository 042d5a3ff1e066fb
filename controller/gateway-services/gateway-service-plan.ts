// What the Gateway Service manager should do for one Gateway key: the Service it wants in the Gateway's namespace
// (from the Gateway, its class, and the Envoy ports gateway-ports.ts gives it) and that Service's EndpointSlice (the
// ready Envoy pods, on those Envoy ports), against what exists: the steps that create, update or delete them, and
// that delete the Service the controller kept in its own namespace before, once the new one exists. And the port
// record (gateway-port-record.ts, in the controller's namespace) that must say those Envoy ports before any Service
// does. Pure: gateway-service-manager.ts carries the steps out through service-api.ts.
import { namespaceOf } from '../translate/shared/kinds.js';
import { type ClusterState, type ConfigMap, type EndpointSlice, type EndpointSliceEndpoint, type Gateway, type GatewayClass, type OwnerReference, type Service, objectsOf } from '../translate/shared/kube-objects.js';
import { compareByAge } from '../translate/shared/ordering.js';
import { findGatewayPortRecord, gatewayPortRecordData, gatewayPortRecordKey, gatewayPortRecordName } from '../translate/gateway-api/gateway-port-record.js';
import { allocateGatewayPorts, recordedGatewayPorts, type GatewayPortAllocation } from '../translate/gateway-api/gateway-ports.js';
import { invalidParameters } from '../translate/gateway-api/listener-bindings.js';
import { listenerSetsOf } from '../translate/gateway-api/listener-sets.js';
import {
  endpointSliceManagedByLabel,
  endpointSliceManagedByValue,
  endpointSliceServiceNameLabel,
  foreignEndpointSliceAt,
  foreignServiceAt,
  gatewayControllerAnnotation,
  gatewayKey,
  gatewayNameLabel,
  gatewayNamespaceLabel,
  gatewayServiceAnnotation,
  gatewayServiceName,
  gatewayServiceType,
  isCurrentGatewayService,
  isGatewayEndpointSlice,
  managedByLabel,
  managedByValue,
  managedServicesOfGateways,
  requestedServiceAddress,
  unsupportedServiceAddress,
} from '../translate/gateway-api/gateway-service.js';

export interface GatewayServiceSettings {
  /** The GatewayClass controllerName that marks a class as ours. */
  controllerName: string;
  /** The controller's namespace: where the Envoy pods run (and where the Services lived before). */
  namespace: string;
  /**
   * Labels of the Envoy pods: the Services of the controller's namespace with exactly this selector (deploy/'s
   * envoy-ingress Service) give their ready addresses, from their EndpointSlices.
   */
  selector: Record<string, string>;
  portRange: { first: number; last: number };
  /** Envoy ports never given to Gateways (the Ingress listeners'). */
  reservedPorts: ReadonlySet<number>;
  /** --gateway-load-balancer-addresses: the IPs the load balancer gives on request; absent: unknown. */
  loadBalancerAddresses?: readonly string[];
}

/** One write: `object` is a Service or an EndpointSlice (its kind says which). */
export type GatewayServiceStep =
  | { action: 'create'; object: Service | EndpointSlice }
  | { action: 'update'; object: Service | EndpointSlice }
  | { action: 'delete'; kind: 'Service' | 'EndpointSlice'; namespace: string; name: string; uid: string; resourceVersion: string };

/** The steps, in order; none: everything is as wanted (or left alone). */
export interface GatewayServicePlan {
  steps: GatewayServiceStep[];
  /** Why the Service or EndpointSlice is not written (a name taken by an object we do not manage for the Gateway). */
  collision?: string;
}

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
  settings: Pick<GatewayServiceSettings, 'controllerName' | 'loadBalancerAddresses'>,
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
      namespace: namespaceOf(gateway.metadata),
      labels: {
        ...infrastructure?.labels,
        [managedByLabel]: managedByValue,
        ...(isLabelValue(gateway.metadata.name) ? { [gatewayNameLabel]: gateway.metadata.name } : {}),
        [gatewayNamespaceLabel]: namespaceOf(gateway.metadata),
      },
      annotations: { ...infrastructure?.annotations, [gatewayServiceAnnotation]: gatewayKey(gateway), [gatewayControllerAnnotation]: settings.controllerName },
      ...ownedBy(gateway),
    },
    // No selector: the controller keeps its EndpointSlice (the Envoy pods live in the controller's namespace).
    spec: {
      type,
      ports: [...ports].map(([port, targetPort]) => ({ name: `port-${port}`, protocol: 'TCP', port, targetPort })),
      ...(requestedIp === undefined ? {} : { loadBalancerIP: requestedIp }),
    },
  };
}

/** Owned by its Gateway, in the same namespace: the garbage collector deletes it with the Gateway. */
function ownedBy(gateway: Gateway): { ownerReferences?: OwnerReference[] } {
  const uid = gateway.metadata.uid;
  // No blockOwnerDeletion: setting it needs update on gateways/finalizers.
  return uid === undefined ? {} : { ownerReferences: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', name: gateway.metadata.name, uid, controller: true }] };
}

/** The ready Envoy pods, as EndpointSlice endpoints of one address type. */
export interface EnvoyEndpoints {
  addressType: string;
  endpoints: EndpointSliceEndpoint[];
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const entries = Object.entries(a ?? {});
  return entries.length === Object.keys(b).length && entries.every(([k, v]) => b[k] === v);
}

/**
 * The ready Envoy pods: the endpoints of the EndpointSlices of the Services in the controller's namespace whose
 * selector is exactly `settings.selector` (those Kubernetes keeps, from the pods themselves: no Pod watch needed),
 * ready, one per address, IPv4 when there are both.
 */
export function envoyEndpoints(state: ClusterState, settings: Pick<GatewayServiceSettings, 'namespace' | 'selector'>): EnvoyEndpoints {
  const names = new Set(
    objectsOf(state, 'Service')
      .filter((s) => namespaceOf(s.metadata) === settings.namespace && sameLabels(s.spec?.selector, settings.selector))
      .map((s) => s.metadata.name),
  );
  const slices = objectsOf(state, 'EndpointSlice').filter(
    (e) =>
      namespaceOf(e.metadata) === settings.namespace &&
      names.has(e.metadata.labels?.[endpointSliceServiceNameLabel] ?? '') &&
      e.metadata.labels?.[endpointSliceManagedByLabel] !== endpointSliceManagedByValue,
  );
  const addressType = slices.some((e) => e.addressType === 'IPv4') || !slices.some((e) => e.addressType === 'IPv6') ? 'IPv4' : 'IPv6';
  const byAddress = new Map<string, EndpointSliceEndpoint>();
  for (const slice of slices) {
    if (slice.addressType !== addressType) continue;
    for (const endpoint of slice.endpoints ?? []) {
      // Unknown readiness counts as ready (the EndpointSlice API's rule).
      const address = endpoint.addresses[0];
      if (address === undefined || endpoint.conditions?.ready === false || byAddress.has(address)) continue;
      byAddress.set(address, {
        addresses: [address],
        conditions: { ready: true },
        ...(endpoint.nodeName === undefined ? {} : { nodeName: endpoint.nodeName }),
        ...(endpoint.zone === undefined ? {} : { zone: endpoint.zone }),
      });
    }
  }
  return { addressType, endpoints: [...byAddress.values()].sort((a, b) => (a.addresses[0] as string).localeCompare(b.addresses[0] as string)) };
}

/** The EndpointSlice of a Gateway's Service: the ready Envoy pods on the Envoy ports, port names as the Service's. */
export function desiredEndpointSlice(gateway: Gateway, service: Service, envoy: EnvoyEndpoints, controllerName: string): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: service.metadata.name,
      namespace: namespaceOf(gateway.metadata),
      labels: {
        [endpointSliceServiceNameLabel]: service.metadata.name,
        [endpointSliceManagedByLabel]: endpointSliceManagedByValue,
        [managedByLabel]: managedByValue,
        ...(service.metadata.labels?.[gatewayNameLabel] === undefined ? {} : { [gatewayNameLabel]: service.metadata.labels[gatewayNameLabel] }),
      },
      annotations: { [gatewayServiceAnnotation]: gatewayKey(gateway), [gatewayControllerAnnotation]: controllerName },
      ...ownedBy(gateway),
    },
    addressType: envoy.addressType,
    endpoints: envoy.endpoints,
    ports: (service.spec?.ports ?? []).map((p) => ({ name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: p.targetPort as number })),
  };
}

/** Everything a plan needs, computed once per store state. */
export interface GatewayServiceView {
  gateways: Map<string, { gateway: Gateway; gatewayClass: GatewayClass }>;
  /** Every managed Service per Gateway key: the current one and any the controller kept in its namespace before. */
  existing: Map<string, Service[]>;
  /** The managed EndpointSlices per Gateway key. */
  slices: Map<string, EndpointSlice[]>;
  services: readonly Service[];
  allSlices: readonly EndpointSlice[];
  allocation: GatewayPortAllocation;
  envoy: EnvoyEndpoints;
  /** The port record the allocation was read from (absent: none yet). */
  record: ConfigMap | undefined;
}

/** The port record of this controller in the store (the manager may know a newer one it wrote: gatewayServiceView's `record`). */
export function storedPortRecord(state: ClusterState, settings: Pick<GatewayServiceSettings, 'controllerName' | 'namespace'>): ConfigMap | undefined {
  return findGatewayPortRecord(objectsOf(state, 'ConfigMap'), settings.namespace, settings.controllerName);
}

/**
 * `record`: the port record to read, when the manager wrote one the store has not caught up with; by default the
 * store's.
 */
export function gatewayServiceView(state: ClusterState, settings: GatewayServiceSettings, record: ConfigMap | undefined = storedPortRecord(state, settings)): GatewayServiceView {
  const ours = ourGateways(state, settings.controllerName);
  const services = objectsOf(state, 'Service');
  const allSlices = objectsOf(state, 'EndpointSlice');
  const slices = new Map<string, EndpointSlice[]>();
  for (const slice of allSlices) {
    const key = slice.metadata.annotations?.[gatewayServiceAnnotation];
    // Only in the Gateway's own namespace, as the controller writes them.
    if (slice.metadata.labels?.[endpointSliceManagedByLabel] !== endpointSliceManagedByValue || key === undefined || key.slice(0, key.indexOf('/')) !== namespaceOf(slice.metadata)) continue;
    slices.set(key, [...(slices.get(key) ?? []), slice]);
  }
  // The ports of the ListenerSets a Gateway takes are the Gateway's too (its Service exposes them).
  const listenerSets = listenerSetsOf(state, new Map(ours.map((g) => [`${namespaceOf(g.gateway.metadata)}/${g.gateway.metadata.name}`, g.gateway])));
  return {
    gateways: new Map(ours.map((g) => [gatewayKey(g.gateway), g])),
    existing: managedServicesOfGateways(services, settings.namespace),
    slices,
    services,
    allSlices,
    envoy: envoyEndpoints(state, settings),
    record,
    allocation: allocateGatewayPorts(
      ours.map((g) => g.gateway),
      recordedGatewayPorts(record, services, settings.namespace),
      settings,
      settings.reservedPorts,
      listenerSets.taken,
    ),
  };
}

/**
 * The write that makes the port record say the view's allocation (every Gateway's Envoy ports), or undefined when it
 * does. Carried out before any Service step, so a crash between leaves the record saying what the Services will.
 */
export function planPortRecord(view: GatewayServiceView, settings: Pick<GatewayServiceSettings, 'controllerName' | 'namespace'>): { action: 'create' | 'update'; object: ConfigMap } | undefined {
  const data = gatewayPortRecordData(view.allocation.ports, new Map([...view.gateways].map(([key, g]) => [key, g.gateway])));
  const current = view.record;
  if (current !== undefined && current.data?.[gatewayPortRecordKey] === data[gatewayPortRecordKey]) return undefined;
  const metadata = {
    name: gatewayPortRecordName(settings.controllerName),
    namespace: settings.namespace,
    labels: { ...current?.metadata.labels, [managedByLabel]: managedByValue },
    annotations: { ...current?.metadata.annotations, [gatewayControllerAnnotation]: settings.controllerName },
  };
  if (current === undefined) return { action: 'create', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata, data } };
  // Its resourceVersion makes the write fail if anyone changed it since.
  return { action: 'update', object: { ...current, metadata: { ...current.metadata, ...metadata }, data: { ...current.data, ...data } } };
}

/** The Gateway keys a view has work for: every Gateway of ours, every managed Service and EndpointSlice. */
export function viewKeys(view: GatewayServiceView): string[] {
  return [...new Set([...view.gateways.keys(), ...view.existing.keys(), ...view.slices.keys()])].sort();
}

/**
 * Whether this controller may delete `object`, one marked as managed for a Gateway: it says this controllerName (so
 * another install's, in the same namespaces, is never deleted), or it is one kept in the controller's namespace
 * before that mark existed. (One it would write anyway, under the Gateway's Service name, is adopted by an update.)
 */
function deletable(object: Service | EndpointSlice, settings: Pick<GatewayServiceSettings, 'controllerName' | 'namespace'>): boolean {
  const controller = object.metadata.annotations?.[gatewayControllerAnnotation];
  return controller === undefined ? namespaceOf(object.metadata) === settings.namespace : controller === settings.controllerName;
}

function deletion(object: Service | EndpointSlice): GatewayServiceStep {
  const { name, uid, resourceVersion } = object.metadata;
  return { action: 'delete', kind: object.kind, namespace: namespaceOf(object.metadata), name, uid: uid ?? '', resourceVersion: resourceVersion ?? '' };
}

export function planGatewayService(key: string, view: GatewayServiceView, settings: GatewayServiceSettings): GatewayServicePlan {
  const entry = view.gateways.get(key);
  const existing = view.existing.get(key) ?? [];
  const slices = view.slices.get(key) ?? [];
  const desired = entry === undefined ? undefined : desiredGatewayService(entry.gateway, entry.gatewayClass, view.allocation.ports.get(key), settings);
  // No Gateway (or no port): everything of the key goes (the garbage collector would too, but not when the Gateway
  // only left our class or lost its ports).
  if (entry === undefined || desired === undefined) return { steps: [...existing, ...slices].filter((o) => deletable(o, settings)).map(deletion) };
  const { gateway } = entry;
  const current = existing.find((s) => isCurrentGatewayService(s, gateway));
  const older = existing.filter((s) => s !== current);
  const steps: GatewayServiceStep[] = [];
  const foreignService = current === undefined ? foreignServiceAt(gateway, view.services, settings.namespace) : undefined;
  if (foreignService !== undefined) {
    // The name is a tenant's (or another Gateway's): left alone, and the Service kept before keeps serving.
    const where = `${namespaceOf(gateway.metadata)}/${desired.metadata.name}`;
    return { steps: [], collision: `the Service ${where} exists and is not managed by envoy-ingress for this Gateway` };
  }
  if (current === undefined) steps.push({ action: 'create', object: desired });
  else if (!upToDate(current, desired)) steps.push({ action: 'update', object: merged(current, desired) });
  let collision: string | undefined;
  const slice = desiredEndpointSlice(gateway, desired, view.envoy, settings.controllerName);
  const currentSlice = slices.find((s) => namespaceOf(s.metadata) === slice.metadata.namespace && s.metadata.name === slice.metadata.name);
  if (currentSlice === undefined && foreignEndpointSliceAt(gateway, view.allSlices) !== undefined) {
    collision = `the EndpointSlice ${slice.metadata.namespace}/${slice.metadata.name} exists and is not managed by envoy-ingress for this Gateway`;
  } else if (currentSlice === undefined) {
    steps.push({ action: 'create', object: slice });
  } else if (!sliceUpToDate(currentSlice, slice)) {
    steps.push({ action: 'update', object: mergedSlice(currentSlice, slice) });
  }
  // Other slices of ours for the key (a name scheme since changed) go.
  for (const other of slices) if (other !== currentSlice && isGatewayEndpointSlice(other, gateway) && deletable(other, settings)) steps.push(deletion(other));
  // The Service kept before (the controller's namespace, or an older name) goes once the new one exists, so the load
  // balancer of the old one serves until then.
  if (current !== undefined) steps.push(...older.filter((o) => deletable(o, settings)).map(deletion));
  return collision === undefined ? { steps } : { steps, collision };
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
    Object.keys(existing.spec?.selector ?? {}).length === 0 &&
    ownerUids(existing).join() === ownerUids(desired).join() &&
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
  // A Service kept in the Gateway's namespace before, with the old selector: it selects nothing now.
  delete spec['selector'];
  const nodePorts = new Map((existing.spec?.ports ?? []).map((p) => [p.port, (p as { nodePort?: number }).nodePort]));
  spec['ports'] = (desired.spec?.ports ?? []).map((p) => {
    const nodePort = type === 'ClusterIP' ? undefined : nodePorts.get(p.port);
    return nodePort === undefined ? p : { ...p, nodePort };
  });
  return {
    ...existing,
    metadata: mergedMetadata(existing, desired),
    spec: spec as NonNullable<Service['spec']>,
  };
}

/** The uids of the Gateways owning `object`, sorted. */
function ownerUids(object: Service | EndpointSlice): string[] {
  return (object.metadata.ownerReferences ?? []).filter((r) => r.kind === 'Gateway').map((r) => r.uid).sort();
}

/** `existing`'s metadata with `desired`'s labels, annotations and Gateway owner on top (what others set is kept). */
function mergedMetadata<T extends Service | EndpointSlice>(existing: T, desired: T): T['metadata'] {
  return {
    ...existing.metadata,
    labels: { ...existing.metadata.labels, ...desired.metadata.labels },
    annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations },
    ...withOwners(existing, desired),
  };
}

/** The owner references of `existing` others set, and ours in place of any Gateway's. */
function withOwners(existing: Service | EndpointSlice, desired: Service | EndpointSlice): { ownerReferences?: OwnerReference[] } {
  const owners = [...(existing.metadata.ownerReferences ?? []).filter((r) => r.kind !== 'Gateway'), ...(desired.metadata.ownerReferences ?? [])];
  return owners.length === 0 ? {} : { ownerReferences: owners };
}

function sliceUpToDate(existing: EndpointSlice, desired: EndpointSlice): boolean {
  const canonical = (e: EndpointSlice): string =>
    JSON.stringify([
      e.addressType,
      (e.endpoints ?? []).map((x) => [x.addresses, x.conditions?.ready ?? true, x.nodeName ?? '', x.zone ?? '']),
      (e.ports ?? []).map((p) => [p.name ?? '', p.protocol ?? 'TCP', p.port]),
    ]);
  return (
    canonical(existing) === canonical(desired) &&
    ownerUids(existing).join() === ownerUids(desired).join() &&
    sameRecord(existing.metadata.labels, desired.metadata.labels) &&
    sameRecord(existing.metadata.annotations, desired.metadata.annotations)
  );
}

/** `desired`'s endpoints and ports on what was read (addressType cannot change: a new type replaces the slice). */
function mergedSlice(existing: EndpointSlice, desired: EndpointSlice): EndpointSlice {
  return {
    ...existing,
    metadata: mergedMetadata(existing, desired),
    endpoints: desired.endpoints ?? [],
    ports: desired.ports ?? [],
  };
}

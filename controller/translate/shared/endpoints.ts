// Cluster endpoints from EndpointSlices (or legacy Endpoints). Kept apart from translate() so endpoint churn
// recomputes only this, and per cluster, without rebuilding listeners and routes.
import { type ClusterEndpointsIR, type ClusterIR, compareStrings, type EndpointIR } from '../../../ir/index.js';
import { isIP } from 'node:net';
import { isTcpServicePort, serviceKey } from './backend.js';
import { namespaceOf, type KindsWithBuild } from './kinds.js';
import type { ClusterState, EndpointSlice, Endpoints, ObjectOfKind, Service } from './kube-objects.js';

/** The label the EndpointSlice controller puts on every slice of a Service. */
export const serviceNameLabel = 'kubernetes.io/service-name';

/** The Service an EndpointSlice belongs to, or undefined for a slice without the service-name label. */
export function serviceKeyOfSlice(slice: EndpointSlice): string | undefined {
  const service = slice.metadata.labels?.[serviceNameLabel];
  return service === undefined ? undefined : serviceKey(namespaceOf(slice.metadata), service);
}

/** The kinds whose objects hold a Service's endpoints (kinds.ts: those an `endpoints` build takes). */
export type EndpointObject = ObjectOfKind<KindsWithBuild<'endpoints'>>;

/** The Service an endpoint object belongs to (undefined: a slice that names none). */
export function serviceKeyOfEndpointObject(obj: EndpointObject): string | undefined {
  switch (obj.kind) {
    case 'EndpointSlice':
      return serviceKeyOfSlice(obj);
    case 'Endpoints':
      return serviceKey(namespaceOf(obj.metadata), obj.metadata.name);
    default: {
      // A kind added to the table as an endpoints kind needs its rule here.
      const unknown: never = obj;
      return unknown;
    }
  }
}

/** Everything endpoint resolution reads, grouped by Service key. Build once per state, query per cluster. */
export interface EndpointSourceIndex {
  services: ReadonlyMap<string, Service>;
  slices: ReadonlyMap<string, readonly EndpointSlice[]>;
  endpoints: ReadonlyMap<string, Endpoints>;
}

/** The index of every Service's endpoint objects, or of those of the Services in `only` (keys as serviceKey). */
export function indexEndpointSources(state: ClusterState, only?: ReadonlySet<string>): EndpointSourceIndex {
  const wanted = (key: string): boolean => only === undefined || only.has(key);
  const services = new Map<string, Service>();
  for (const s of state.services) {
    const key = serviceKey(namespaceOf(s.metadata), s.metadata.name);
    if (wanted(key)) services.set(key, s);
  }
  const slices = new Map<string, EndpointSlice[]>();
  for (const slice of state.endpointSlices) {
    const key = serviceKeyOfSlice(slice);
    if (key === undefined || !wanted(key)) continue;
    const list = slices.get(key);
    if (list === undefined) slices.set(key, [slice]);
    else list.push(slice);
  }
  const endpoints = new Map<string, Endpoints>();
  for (const e of state.endpoints) {
    const key = serviceKey(namespaceOf(e.metadata), e.metadata.name);
    if (wanted(key)) endpoints.set(key, e);
  }
  return { services, slices, endpoints };
}

function compareEndpoints(a: EndpointIR, b: EndpointIR): number {
  return compareStrings(a.address, b.address) || a.port - b.port;
}

/**
 * Ready endpoints of one cluster, sorted and de-duplicated. The backend port is found by the Service port's
 * name, as the EndpointSlice controller names slice ports after Service ports: this is what resolves a named
 * targetPort (whose number may differ per pod) correctly. A Service with no EndpointSlices at all falls back to
 * its core/v1 Endpoints (older clusters or mirrored objects). Anything missing gives an empty list, which Envoy
 * answers with 503.
 */
export function endpointsForCluster(
  state: ClusterState,
  cluster: ClusterIR,
  index: EndpointSourceIndex = indexEndpointSources(state),
): ClusterEndpointsIR {
  const { namespace, name, port } = cluster.service;
  const key = serviceKey(namespace, name);
  const servicePort = index.services.get(key)?.spec?.ports?.find((p) => p.port === port && isTcpServicePort(p));
  if (servicePort === undefined) return { cluster: cluster.name, endpoints: [] };
  const portName = servicePort.name ?? '';

  const found = new Map<string, EndpointIR>();
  const add = (address: string, targetPort: number): void => {
    if (!isUsableEndpoint(address, targetPort)) return;
    found.set(`${address}|${targetPort}`, { address, port: targetPort });
  };
  const slices = index.slices.get(key) ?? [];
  if (slices.length > 0) {
    for (const slice of slices) {
      if (slice.addressType !== 'IPv4' && slice.addressType !== 'IPv6') continue;
      const slicePort = slice.ports?.find((p) => (p.name ?? '') === portName)?.port;
      if (slicePort === undefined) continue;
      for (const endpoint of slice.endpoints ?? []) {
        // The API says a missing ready condition is to be read as ready.
        if (endpoint.conditions?.ready === false) continue;
        for (const address of endpoint.addresses) add(address, slicePort);
      }
    }
  } else {
    for (const subset of index.endpoints.get(key)?.subsets ?? []) {
      const subsetPort = subset.ports?.find((p) => (p.name ?? '') === portName)?.port;
      if (subsetPort === undefined) continue;
      for (const address of subset.addresses ?? []) add(address.ip, subsetPort);
    }
  }
  return { cluster: cluster.name, endpoints: [...found.values()].sort(compareEndpoints) };
}

/**
 * Whether Envoy can connect to the endpoint: an IP address (no name, no CIDR, no leading zeros) and a port in
 * 1-65535. The API server validates both, but objects read from manifest files are not, and one unusable endpoint
 * makes Envoy reject the whole ClusterLoadAssignment (with SotW EDS, the update of every cluster); it is left out.
 */
function isUsableEndpoint(address: string, port: number): boolean {
  return isIP(address) !== 0 && Number.isInteger(port) && port >= 1 && port <= 65535;
}

/** Endpoints of every cluster, in the clusters' (sorted) order. */
export function translateEndpoints(state: ClusterState, clusters: readonly ClusterIR[]): ClusterEndpointsIR[] {
  const index = indexEndpointSources(state);
  return clusters.map((cluster) => endpointsForCluster(state, cluster, index));
}

/** The clusters whose endpoints depend on a Service: what a reconciler recomputes when its slices change. */
export function clustersOfService(clusters: readonly ClusterIR[], namespace: string, name: string): ClusterIR[] {
  return clusters.filter((c) => c.service.namespace === namespace && c.service.name === name);
}

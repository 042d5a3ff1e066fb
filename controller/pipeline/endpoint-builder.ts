// The endpoints build of the build pipeline: when only the endpoint objects (EndpointSlices, Endpoints) of
// referenced Services changed, only the ClusterLoadAssignments of those Services' clusters are recomputed, so an
// endpoint change costs the same at 10 or 10,000 Services. What it needs between configuration builds: the
// clusters of each Service (from the last configuration build) and the EndpointSlices of each Service (kept up to
// date from store changes, since a slice may be relabelled to another Service).
import type { ClusterEndpointsIR, ClusterIR, DataPlaneIR } from '../../ir/index.js';
import { buildClusterLoadAssignment } from '../../envoy/cluster-load-assignment.js';
import type { NamedResource } from '../../envoy/resource-types.js';
import type { ObjectStore, StoreChange } from '../store.js';
import { endpointsForCluster, serviceKeyOfSlice, type EndpointSourceIndex } from '../translate/shared/endpoints.js';
import type { ClusterState, EndpointSlice, Endpoints, KubeObject, Service } from '../translate/shared/kube-objects.js';
import { keyNamespaceOf } from '../translate/shared/kinds.js';

/** What the endpoints build reads of the store: single objects by key, never a copy of the whole state. */
export type ObjectLookup = Pick<ObjectStore, 'get'>;

/** The endpoints of some clusters, recomputed, and their ClusterLoadAssignments to hand to the cache. */
export interface EndpointsBuild {
  endpoints: ClusterEndpointsIR[];
  resources: NamedResource[];
}

const noState: ClusterState = { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], endpoints: [], secrets: [] };

/** The store's key of an object. */
const keyOf = (obj: KubeObject): string => `${keyNamespaceOf(obj.kind, obj.metadata)}/${obj.metadata.name}`;

function clustersByService(clusters: readonly ClusterIR[]): Map<string, ClusterIR[]> {
  const byService = new Map<string, ClusterIR[]>();
  for (const cluster of clusters) {
    const key = `${cluster.service.namespace}/${cluster.service.name}`;
    const list = byService.get(key);
    if (list) list.push(cluster);
    else byService.set(key, [cluster]);
  }
  return byService;
}

function slicesByService(endpointSlices: readonly EndpointSlice[]): Map<string, Set<string>> {
  const byService = new Map<string, Set<string>>();
  for (const slice of endpointSlices) {
    const svc = serviceKeyOfSlice(slice);
    if (svc === undefined) continue;
    let set = byService.get(svc);
    if (!set) byService.set(svc, (set = new Set()));
    set.add(keyOf(slice));
  }
  return byService;
}

export class EndpointBuilder {
  /** Endpoints of the last build, by cluster name (what Envoy's EDS carries). */
  #endpoints = new Map<string, ClusterEndpointsIR>();
  #clustersByService = new Map<string, ClusterIR[]>();
  #slicesByService = new Map<string, Set<string>>();

  get endpoints(): ReadonlyMap<string, ClusterEndpointsIR> {
    return this.#endpoints;
  }

  /** What the two indexes below were made from: a routes build that changed neither does not walk them again. */
  #indexedClusters: readonly ClusterIR[] | undefined;
  #indexedSlices: readonly EndpointSlice[] | undefined;

  /**
   * After a configuration build: its endpoints, which clusters each Service has, and which slices. Each index is
   * remade only when its input changed (the store hands the same list while none of its objects changes, and an
   * unchanged cluster list is the same array): a one-Ingress change does not walk every cluster and slice.
   */
  rebase(ir: DataPlaneIR, state: ClusterState, endpoints: Map<string, ClusterEndpointsIR>): void {
    this.#endpoints = endpoints;
    if (ir.clusters !== this.#indexedClusters) {
      this.#clustersByService = clustersByService(ir.clusters);
      this.#indexedClusters = ir.clusters;
    }
    // trackSlice keeps the slice index in step between builds; while the list is the same, nothing changed.
    if (state.endpointSlices !== this.#indexedSlices) {
      this.#slicesByService = slicesByService(state.endpointSlices);
      this.#indexedSlices = state.endpointSlices;
    }
  }

  /** Keeps the slices of each Service in step with one EndpointSlice change (its service label may have changed). */
  trackSlice(c: StoreChange): void {
    const sliceKey = `${c.namespace}/${c.name}`;
    if (c.previous?.kind === 'EndpointSlice') {
      const before = serviceKeyOfSlice(c.previous);
      if (before !== undefined) this.#slicesByService.get(before)?.delete(sliceKey);
    }
    if (c.type !== 'deleted' && c.object.kind === 'EndpointSlice') {
      const after = serviceKeyOfSlice(c.object);
      if (after === undefined) return;
      let set = this.#slicesByService.get(after);
      if (!set) this.#slicesByService.set(after, (set = new Set()));
      set.add(sliceKey);
    }
  }

  /** The endpoints of the clusters of these Services (`namespace/name`), from the objects `store` has now. */
  build(services: readonly string[], store: ObjectLookup): EndpointsBuild {
    const index = this.#endpointSources(services, store);
    const endpoints: ClusterEndpointsIR[] = [];
    const resources: NamedResource[] = [];
    for (const key of services) {
      for (const cluster of this.#clustersByService.get(key) ?? []) {
        const result = endpointsForCluster(noState, cluster, index);
        endpoints.push(result);
        resources.push({ name: result.cluster, resource: buildClusterLoadAssignment(result) });
      }
    }
    return { endpoints, resources };
  }

  /**
   * Makes a build's endpoints those of the last build. Only once the cache took them: if the update is refused,
   * the endpoints stay those Envoy has, so a bad slice of one Service does not poison later updates of the others.
   */
  commit(build: EndpointsBuild): void {
    for (const result of build.endpoints) this.#endpoints.set(result.cluster, result);
  }

  /** What endpointsForCluster reads, for these Services only (looked up in the store, not a copy of it). */
  #endpointSources(services: readonly string[], store: ObjectLookup): EndpointSourceIndex {
    const index = { services: new Map<string, Service>(), slices: new Map<string, EndpointSlice[]>(), endpoints: new Map<string, Endpoints>() };
    for (const key of services) {
      const slash = key.indexOf('/');
      const [namespace, name] = [key.slice(0, slash), key.slice(slash + 1)];
      const service = store.get('Service', namespace, name);
      if (service?.kind === 'Service') index.services.set(key, service);
      const legacy = store.get('Endpoints', namespace, name);
      if (legacy?.kind === 'Endpoints') index.endpoints.set(key, legacy);
      const slices: EndpointSlice[] = [];
      for (const sliceKey of this.#slicesByService.get(key) ?? []) {
        const cut = sliceKey.indexOf('/');
        const slice = store.get('EndpointSlice', sliceKey.slice(0, cut), sliceKey.slice(cut + 1));
        if (slice?.kind === 'EndpointSlice') slices.push(slice);
      }
      // Store order (insertion) is not name order: sort, so the result does not depend on arrival order.
      slices.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
      if (slices.length > 0) index.slices.set(key, slices);
    }
    return index;
  }
}

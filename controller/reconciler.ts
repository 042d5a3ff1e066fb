// Level-triggered, coalescing reconcile: store changes -> translate -> Envoy resources -> snapshot cache.
// The first change after a quiet period is built at once; changes arriving during a build are folded into one
// next build. Endpoint-only changes recompute only the affected ClusterLoadAssignments. Nothing is published
// until every source has synced, and a failed build keeps the last good config.
import type { ClusterEndpointsIR, ClusterIR, GatewayIR } from '../ir/index.js';
import { EventEmitter } from 'node:events';
import { buildClusterLoadAssignment } from '../envoy/cluster-load-assignment.js';
import type { EnvoyOptions, NamedResource } from '../envoy/resource-types.js';
import type { SnapshotCache } from '../xds/snapshot-cache.js';
import { ConfigBuilder } from './build-config.js';
import type { ObjectStore, StoreChange } from './store.js';
import type { Diagnostic } from './translate/diagnostics.js';
import { endpointsForCluster, serviceKeyOfSlice, type EndpointSourceIndex } from './translate/endpoints.js';
import type { ClusterState, EndpointSlice, Endpoints, KubeObject, ObjectRef, Service } from './translate/kube-objects.js';
import type { TranslateOptions } from './translate/options.js';

export interface ReconcileLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface BuildResult {
  /** `secrets`: only Secrets' certificates changed and only SDS was rebuilt (see ConfigBuilder). */
  kind: 'full' | 'routes' | 'secrets' | 'endpoints';
  durationMs: number;
  changedTypes: string[];
  diagnostics: Diagnostic[];
  servedIngresses: ObjectRef[];
  generation: number;
}

/** `namespace/name` of the Services and Secrets the served Ingresses name (see translate's `references`). */
interface ReferenceSets {
  services: ReadonlySet<string>;
  secrets: ReadonlySet<string>;
}

export interface ReconcilerOptions {
  translate: TranslateOptions;
  envoy: EnvoyOptions;
}

const noState: ClusterState = { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], endpoints: [], secrets: [] };

/** The store's key of an object. */
const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;

function diagnosticKey(d: Diagnostic): string {
  return `${d.object.kind}/${d.object.namespace}/${d.object.name}|${d.reason}|${d.message}`;
}

export class Reconciler extends EventEmitter<{ built: [BuildResult]; failed: [unknown] }> {
  #ready = false;
  #running = false;
  #fullPending = true;
  /** Services (namespace/name) whose endpoints changed since the last build. */
  readonly #endpointServices = new Set<string>();
  #ir: GatewayIR | undefined;
  #references: ReferenceSets = { services: new Set(), secrets: new Set() };
  #endpoints = new Map<string, ClusterEndpointsIR>();
  /**
   * For the endpoint fast path, so an endpoint change costs the same at 10 or 10,000 Services: the clusters of
   * each Service (from the last full build), and the EndpointSlices of each Service (`namespace/name` of the
   * slices, kept up to date from store changes; rebuilt at each full build).
   */
  #clustersByService = new Map<string, ClusterIR[]>();
  #slicesByService = new Map<string, Set<string>>();
  #diagnostics: Diagnostic[] = [];
  #served: ObjectRef[] = [];
  #loggedDiagnostics = new Set<string>();
  #generation = 0;
  readonly #builder: ConfigBuilder;
  #idle: (() => void)[] = [];
  readonly #onChange = (changes: StoreChange[]): void => this.notify(changes);

  constructor(
    private readonly store: ObjectStore,
    private readonly cache: SnapshotCache,
    private readonly options: ReconcilerOptions,
    private readonly log: ReconcileLog,
  ) {
    super();
    this.#builder = new ConfigBuilder(options);
    store.on('change', this.#onChange);
  }

  get diagnostics(): readonly Diagnostic[] {
    return this.#diagnostics;
  }

  get servedIngresses(): readonly ObjectRef[] {
    return this.#served;
  }

  get ir(): GatewayIR | undefined {
    return this.#ir;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Endpoints of the last build, by cluster name (what Envoy's EDS carries). */
  get endpoints(): ReadonlyMap<string, ClusterEndpointsIR> {
    return this.#endpoints;
  }

  /** Sources have synced: from now on builds are published. Triggers the first build. */
  markReady(): void {
    this.#ready = true;
    this.#fullPending = true;
    this.#kick();
  }

  stop(): void {
    this.store.off('change', this.#onChange);
  }

  /** Classify store changes: ignore irrelevant ones, note endpoint-only ones, else ask for a full build. */
  notify(changes: readonly StoreChange[]): void {
    let relevant = false;
    for (const c of changes) {
      const key = `${c.namespace}/${c.name}`;
      switch (c.kind) {
        case 'Ingress':
        case 'IngressClass':
          this.#fullPending = true;
          relevant = true;
          break;
        case 'Service':
          if (this.#ir === undefined || this.#references.services.has(key)) {
            this.#fullPending = true;
            relevant = true;
          }
          break;
        case 'Secret':
          if (this.#ir === undefined || this.#references.secrets.has(key)) {
            this.#fullPending = true;
            relevant = true;
          }
          break;
        case 'EndpointSlice': {
          const services = new Set<string>();
          for (const obj of [c.object, c.previous]) {
            const svc = obj && obj.kind === 'EndpointSlice' ? serviceKeyOfSlice(obj) : undefined;
            if (svc) services.add(svc);
          }
          this.#indexSlice(c);
          for (const svc of services) {
            if (this.#references.services.has(svc)) {
              this.#endpointServices.add(svc);
              relevant = true;
            }
          }
          break;
        }
        case 'Endpoints':
          if (this.#references.services.has(key)) {
            this.#endpointServices.add(key);
            relevant = true;
          }
          break;
        case 'ConfigMap': {
          // Only the ingress-nginx ConfigMap (--nginx-configmap) is read; a manifest directory may hold others.
          const ref = this.options.translate.nginxConfigMap;
          if (ref !== undefined && ref.namespace === c.namespace && ref.name === c.name) {
            this.#fullPending = true;
            relevant = true;
          }
          break;
        }
      }
    }
    if (relevant) this.#kick();
  }

  /** Keep #slicesByService in step with one EndpointSlice change (its service label may have changed). */
  #indexSlice(c: StoreChange): void {
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

  /** Resolves when no build is running or pending (for tests and orderly shutdown). */
  idle(): Promise<void> {
    if (!this.#running && !this.#hasWork()) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #hasWork(): boolean {
    return this.#ready && (this.#fullPending || this.#endpointServices.size > 0);
  }

  #kick(): void {
    if (!this.#ready || this.#running) return;
    this.#running = true;
    // setImmediate: events delivered in the same tick (a relist, a directory re-read) form one build.
    setImmediate(() => this.#loop());
  }

  #loop(): void {
    try {
      while (this.#hasWork()) {
        if (this.#fullPending || this.#ir === undefined) {
          this.#fullPending = false;
          this.#endpointServices.clear();
          this.#fullBuild();
          // What the next incremental build needs (the host index) is made on a later turn, unless a build
          // comes first: a change right after a full build does not pay for it, and neither does this one.
          setImmediate(() => {
            if (!this.#running && !this.#hasWork()) this.#builder.prepare();
          });
        } else {
          const services = [...this.#endpointServices];
          this.#endpointServices.clear();
          this.#endpointBuild(services);
        }
      }
    } finally {
      this.#running = false;
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  #fullBuild(): void {
    const started = performance.now();
    const state = this.store.state();
    try {
      const { built, published: changed } = this.#builder.build(state, (update) => this.cache.update(update));
      const { translation: result, endpoints } = built;
      this.#ir = result.ir;
      this.#endpoints = endpoints;
      this.#indexForEndpointBuilds(result.ir, state);
      this.#references = { services: new Set(result.references.services), secrets: new Set(result.references.secrets) };
      this.#diagnostics = result.diagnostics;
      this.#served = result.servedIngresses;
      this.#logDiagnostics(result.diagnostics);
      this.#finish(built.kind, started, changed);
    } catch (err: unknown) {
      this.log.error({ err }, 'build failed; Envoy keeps the last good config');
      this.emit('failed', err);
    }
  }

  /** After a full build: which clusters each Service has, and which slices each Service has. */
  #indexForEndpointBuilds(ir: GatewayIR, state: ClusterState): void {
    const clusters = new Map<string, ClusterIR[]>();
    for (const cluster of ir.clusters) {
      const key = `${cluster.service.namespace}/${cluster.service.name}`;
      const list = clusters.get(key);
      if (list) list.push(cluster);
      else clusters.set(key, [cluster]);
    }
    this.#clustersByService = clusters;
    const slices = new Map<string, Set<string>>();
    for (const slice of state.endpointSlices) {
      const svc = serviceKeyOfSlice(slice);
      if (svc === undefined) continue;
      let set = slices.get(svc);
      if (!set) slices.set(svc, (set = new Set()));
      set.add(keyOf(slice));
    }
    this.#slicesByService = slices;
  }

  /** What endpointsForCluster reads, for these Services only (looked up in the store, not a copy of it). */
  #endpointSources(services: readonly string[]): EndpointSourceIndex {
    const index = { services: new Map<string, Service>(), slices: new Map<string, EndpointSlice[]>(), endpoints: new Map<string, Endpoints>() };
    for (const key of services) {
      const slash = key.indexOf('/');
      const [namespace, name] = [key.slice(0, slash), key.slice(slash + 1)];
      const service = this.store.get('Service', namespace, name);
      if (service?.kind === 'Service') index.services.set(key, service);
      const legacy = this.store.get('Endpoints', namespace, name);
      if (legacy?.kind === 'Endpoints') index.endpoints.set(key, legacy);
      const slices: EndpointSlice[] = [];
      for (const sliceKey of this.#slicesByService.get(key) ?? []) {
        const cut = sliceKey.indexOf('/');
        const slice = this.store.get('EndpointSlice', sliceKey.slice(0, cut), sliceKey.slice(cut + 1));
        if (slice?.kind === 'EndpointSlice') slices.push(slice);
      }
      // Store order (insertion) is not name order: sort, so the result does not depend on arrival order.
      slices.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
      if (slices.length > 0) index.slices.set(key, slices);
    }
    return index;
  }

  #endpointBuild(services: readonly string[]): void {
    const started = performance.now();
    try {
      const index = this.#endpointSources(services);
      // Only the ClusterLoadAssignments of the changed Services are rebuilt and offered to the cache: the cost of
      // an endpoint change does not grow with the number of Services.
      const computed: ClusterEndpointsIR[] = [];
      const clas: NamedResource[] = [];
      for (const key of services) {
        for (const cluster of this.#clustersByService.get(key) ?? []) {
          const result = endpointsForCluster(noState, cluster, index);
          computed.push(result);
          clas.push({ name: result.cluster, resource: buildClusterLoadAssignment(result) });
        }
      }
      const changed = this.cache.patch('clusterLoadAssignment', clas);
      // Only once the cache took them: if the update is refused, the endpoints stay those Envoy has, so a bad
      // slice of one Service does not poison later endpoint updates of the others.
      for (const result of computed) this.#endpoints.set(result.cluster, result);
      this.#finish('endpoints', started, changed);
    } catch (err: unknown) {
      this.log.error({ err }, 'endpoint update failed; Envoy keeps the last good endpoints');
      this.emit('failed', err);
    }
  }

  #finish(kind: BuildResult['kind'], started: number, changed: string[]): void {
    this.#generation += 1;
    const result: BuildResult = {
      kind,
      durationMs: performance.now() - started,
      changedTypes: changed,
      diagnostics: this.#diagnostics,
      servedIngresses: this.#served,
      generation: this.#generation,
    };
    this.log.debug({ kind, durationMs: Math.round(result.durationMs * 10) / 10, changed }, 'config built');
    this.emit('built', result);
  }

  /** Log each diagnostic once while it persists; log when it clears. */
  #logDiagnostics(diagnostics: readonly Diagnostic[]): void {
    const now = new Set<string>();
    for (const d of diagnostics) {
      const key = diagnosticKey(d);
      now.add(key);
      if (this.#loggedDiagnostics.has(key)) continue;
      const { kind, namespace, name } = d.object;
      this.log.warn({ object: `${kind}/${namespace}/${name}`, reason: d.reason, severity: d.severity }, d.message);
    }
    for (const key of this.#loggedDiagnostics) {
      if (!now.has(key)) this.log.info({ diagnostic: key }, 'problem resolved');
    }
    this.#loggedDiagnostics = now;
  }
}

// Level-triggered, coalescing reconcile: store changes are classified and coalesced, and builds are scheduled on
// the build pipeline (controller/pipeline/), which makes them and hands them to the snapshot cache. The first
// change after a quiet period is built at once; changes arriving during a build are folded into one next build.
// Endpoint-only changes are an endpoints build of the Services concerned. Nothing is published until every source
// has synced, and a failed build keeps the last good config.
import type { ClusterEndpointsIR, DataPlaneIR } from '../ir/index.js';
import { EventEmitter } from 'node:events';
import type { EnvoyOptions } from '../envoy/resource-types.js';
import type { SnapshotCache } from '../xds/snapshot-cache.js';
import { BuildPipeline, type BuildKind, type PipelineBuild } from './pipeline/build-pipeline.js';
import type { ObjectStore, StoreChange } from './store.js';
import type { GatewayApiStatus } from './translate/gateway-api/status-data.js';
import type { Diagnostic } from './translate/shared/diagnostics.js';
import { type EndpointObject, serviceKeyOfEndpointObject } from './translate/shared/endpoints.js';
import { isKindName, kindTable, type NamedKind } from './translate/shared/kinds.js';
import type { ObjectRef } from './translate/shared/kube-objects.js';
import type { TranslateOptions } from './translate/shared/options.js';

export interface ReconcileLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface BuildResult {
  /** `secrets`: only Secrets' certificates changed and only SDS was rebuilt (see controller/pipeline/). */
  kind: BuildKind;
  durationMs: number;
  changedTypes: string[];
  diagnostics: Diagnostic[];
  servedIngresses: ObjectRef[];
  /** The Gateway API objects' status as data of the last translation (absent: no Gateway API object is ours). */
  gatewayApiStatus?: GatewayApiStatus;
  generation: number;
}

/** `namespace/name` of the Services, Secrets and ConfigMaps the served objects name (see translate's `references`). */
interface ReferenceSets {
  services: ReadonlySet<string>;
  secrets: ReadonlySet<string>;
  /** CA ConfigMaps (`namespace/name`) Gateways and BackendTLSPolicies name: read besides the `named` one. */
  configMaps: ReadonlySet<string>;
}

export interface ReconcilerOptions {
  translate: TranslateOptions;
  envoy: EnvoyOptions;
}

/** The object of each `named` kind that builds read, from the options. */
function namedObjects(options: TranslateOptions): Record<NamedKind, { namespace: string; name: string } | undefined> {
  return { ConfigMap: options.nginxConfigMap };
}

/** The Services whose endpoints an endpoint object's change concerns (both versions': a slice may change Service). */
function endpointServicesOf(c: StoreChange): Set<string> {
  const services = new Set<string>();
  for (const obj of [c.object, c.previous]) {
    const svc = obj !== undefined && kindTable[obj.kind].build === 'endpoints' ? serviceKeyOfEndpointObject(obj as EndpointObject) : undefined;
    if (svc !== undefined) services.add(svc);
  }
  return services;
}

function diagnosticKey(d: Diagnostic): string {
  return `${d.object.kind}/${d.object.namespace}/${d.object.name}|${d.reason}|${d.message}`;
}

export class Reconciler extends EventEmitter<{ built: [BuildResult]; failed: [unknown] }> {
  #ready = false;
  #running = false;
  #fullPending = true;
  /** Services (namespace/name) whose endpoints changed since the last build. */
  readonly #endpointServices = new Set<string>();
  #ir: DataPlaneIR | undefined;
  #references: ReferenceSets = { services: new Set(), secrets: new Set(), configMaps: new Set() };
  #diagnostics: Diagnostic[] = [];
  #served: ObjectRef[] = [];
  #gatewayApiStatus: GatewayApiStatus | undefined;
  #loggedDiagnostics = new Set<string>();
  #generation = 0;
  readonly #pipeline: BuildPipeline;
  #idle: (() => void)[] = [];
  readonly #onChange = (changes: StoreChange[]): void => this.notify(changes);

  constructor(
    private readonly store: ObjectStore,
    cache: SnapshotCache,
    private readonly options: ReconcilerOptions,
    private readonly log: ReconcileLog,
  ) {
    super();
    this.#pipeline = new BuildPipeline(store, cache, options);
    store.on('change', this.#onChange);
  }

  get diagnostics(): readonly Diagnostic[] {
    return this.#diagnostics;
  }

  get servedIngresses(): readonly ObjectRef[] {
    return this.#served;
  }

  get ir(): DataPlaneIR | undefined {
    return this.#ir;
  }

  /** The Gateway API status data of the last configuration build (absent before one, or without Gateway API objects). */
  get gatewayApiStatus(): GatewayApiStatus | undefined {
    return this.#gatewayApiStatus;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Endpoints of the last build, by cluster name (what Envoy's EDS carries). */
  get endpoints(): ReadonlyMap<string, ClusterEndpointsIR> {
    return this.#pipeline.endpoints;
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

  /**
   * Classify store changes by their kind's entry in the kind table: ignore those no build reads, note those of
   * endpoint objects (an endpoints build of their Services), else ask for a configuration build.
   */
  notify(changes: readonly StoreChange[]): void {
    let relevant = false;
    for (const c of changes) {
      if (c.kind === 'EndpointSlice') this.#pipeline.trackEndpointSlice(c);
      // Our own status writes (and other controllers') come back as changes; no translation reads these kinds' status.
      if (c.statusOnly === true) continue;
      if (!isKindName(c.kind)) {
        // A kind the table does not have (an optional kind a source was given): nothing is known to ignore it.
        this.#fullPending = true;
        relevant = true;
      } else if (kindTable[c.kind].build === 'endpoints') {
        for (const svc of endpointServicesOf(c)) {
          if (this.#references.services.has(svc)) {
            this.#endpointServices.add(svc);
            relevant = true;
          }
        }
      } else if (this.#reads(c)) {
        this.#fullPending = true;
        relevant = true;
      }
    }
    if (relevant) this.#kick();
  }

  /** Whether a build reads the changed object (kinds.ts `reads`). */
  #reads(c: StoreChange): boolean {
    const reads = kindTable[c.kind].reads;
    if (reads === 'all') return true;
    if (reads === 'named') {
      // Only the object the options name is read (the ingress-nginx ConfigMap); a manifest directory may hold others.
      // And the ConfigMaps Gateways name for their CA certificates (spec.tls.frontend).
      const ref = namedObjects(this.options.translate)[c.kind as NamedKind];
      if (ref !== undefined && ref.namespace === c.namespace && ref.name === c.name) return true;
      // A CA ConfigMap of a Gateway or a BackendTLSPolicy (before the first build nothing is known to be referenced).
      return c.kind === 'ConfigMap' && (this.#ir === undefined || this.#references.configMaps.has(`${c.namespace}/${c.name}`));
    }
    // Before the first build nothing is known to be referenced.
    return this.#ir === undefined || this.#references[reads.referenced === 'service' ? 'services' : 'secrets'].has(`${c.namespace}/${c.name}`);
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
          this.#configurationBuild();
          // What the next incremental build needs (the host index) is made on a later turn, unless a build
          // comes first: a change right after a full build does not pay for it, and neither does this one.
          setImmediate(() => {
            if (!this.#running && !this.#hasWork()) this.#pipeline.prepare();
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

  #configurationBuild(): void {
    const started = performance.now();
    try {
      const built = this.#pipeline.build();
      const result = built.translation;
      this.#ir = result.ir;
      this.#references = { services: new Set(result.references.services), secrets: new Set(result.references.secrets), configMaps: new Set(result.references.configMaps) };
      this.#diagnostics = result.diagnostics;
      this.#served = result.servedIngresses;
      this.#gatewayApiStatus = result.gatewayApiStatus;
      this.#logDiagnostics(result.diagnostics);
      this.#finish(built, started);
    } catch (err: unknown) {
      this.log.error({ err }, 'build failed; Envoy keeps the last good config');
      this.emit('failed', err);
    }
  }

  #endpointBuild(services: readonly string[]): void {
    const started = performance.now();
    try {
      this.#finish(this.#pipeline.buildEndpoints(services), started);
    } catch (err: unknown) {
      this.log.error({ err }, 'endpoint update failed; Envoy keeps the last good endpoints');
      this.emit('failed', err);
    }
  }

  #finish({ kind, changedTypes: changed }: PipelineBuild, started: number): void {
    this.#generation += 1;
    const result: BuildResult = {
      kind,
      durationMs: performance.now() - started,
      changedTypes: changed,
      diagnostics: this.#diagnostics,
      servedIngresses: this.#served,
      ...(this.#gatewayApiStatus === undefined ? {} : { gatewayApiStatus: this.#gatewayApiStatus }),
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

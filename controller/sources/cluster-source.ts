// The Kubernetes source: one ListWatch informer per kind feeding the store. Secrets are watched with a field
// selector for kubernetes.io/tls only (less memory, less exposure), plus Opaque ones in a second informer when
// ingress-nginx basic auth may need them (opaqueSecrets: always with --nginx-annotations, else only while an
// IngressClass of ours opts in, started and stopped as IngressClasses change). An informer that fails is restarted with
// backoff (1 s doubling to 30 s); an expired resourceVersion (410 Gone) makes it relist. `synced` turns true
// only once every informer has completed its first list, so a restarted controller never publishes a partial
// view to a running Envoy. The kinds watched are those of the kind table (controller/sources/kinds.ts); an optional
// one (a CRD) is watched only while discovery says the API serves it, polled, and the first sync does not wait for it.
// While the API serves Gateways, ConfigMaps are watched too, in an informer of their own: Gateways name them for the
// CA certificates that client certificates are verified against (spec.tls.frontend); builds read only those.
import { KubeConfig, ListWatch, Watch, type KubernetesObject } from '@kubernetes/client-node';
import type { ObjectStore } from '../store.js';
import { isKindName, keyNamespaceOf, kindTable, namespaceOf, type NamedKind } from '../translate/shared/kinds.js';
import type { IngressClass, KubeKind, RoutePolicy } from '../translate/shared/kube-objects.js';
import { type AnyList, collectionPath, isServed, listKind, sourceKind, sourceKinds, type SourceKind } from './kinds.js';
import { normalizeObject } from './normalize.js';

export interface ClusterSourceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface ClusterSourceOptions {
  /** Watch only this namespace (IngressClasses are cluster-scoped and always watched). */
  namespace?: string;
  /** Called whenever an informer restarts after an error (for metrics). */
  onRestart?: (kind: KubeKind, error: unknown) => void;
  /**
   * Also watch Opaque Secrets, in a second informer: ingress-nginx basic auth (auth-secret) and RoutePolicy
   * basicAuth read their users from them. true: always; a function: while it returns true for the IngressClasses and
   * RoutePolicies in the store (re-asked on every change of either; when it turns false the informer stops and its
   * Secrets leave the store). Off, only kubernetes.io/tls Secrets are watched.
   */
  opaqueSecrets?: boolean | ((ingressClasses: readonly IngressClass[], routePolicies: readonly RoutePolicy[]) => boolean);
  /**
   * The ingress-nginx ConfigMap (--nginx-configmap): that one ConfigMap is watched (a field selector on its name,
   * so RBAC can grant get/list/watch on it alone), whatever `namespace` says.
   */
  nginxConfigMap?: { namespace: string; name: string };
  /** Backoff bounds, for tests. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** The kinds to watch: every kind of the kind table unless a test says otherwise. */
  kinds?: readonly SourceKind[];
  /** How often discovery is asked whether an optional kind (a CRD) is served now (default 30 s). */
  discoveryIntervalMs?: number;
}

interface KindSpec {
  /** Distinguishes informers of one kind (Secrets: TLS and Opaque); the kind when there is one. */
  id?: string;
  kind: KubeKind;
  source: SourceKind;
  /** The namespace watched (undefined: all); a cluster-scoped kind has none. */
  namespace: string | undefined;
  fieldSelector?: string;
}

export class ClusterSource {
  // By informer id (the kind, or KindSpec.id).
  readonly #informers = new Map<string, ListWatch<KubernetesObject>>();
  readonly #synced = new Set<string>();
  /** Informers whose list call has succeeded at least once. */
  readonly #listed = new Set<string>();
  readonly #backoff = new Map<string, number>();
  readonly #listCalls = new Map<string, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;
  /** List calls per kind: the first is the initial sync, later ones are relists. */
  readonly lists = new Map<KubeKind, number>();
  #onSynced: (() => void)[] = [];
  /** Latched: once every informer wanted at start has listed, later changes (an Opaque informer) do not unsync. */
  #initialSyncDone = false;
  #stopStoreListener: (() => void) | undefined;
  /** Optional kinds (CRDs) whose informer runs because discovery found them served. */
  readonly #servedOptional = new Set<string>();
  /** API groups of optional kinds already reported as not served (said once, not at every discovery round). */
  readonly #reportedAbsent = new Set<string>();

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly store: ObjectStore,
    private readonly log: ClusterSourceLog,
    private readonly options: ClusterSourceOptions = {},
  ) {}

  get synced(): boolean {
    return this.#initialSyncDone;
  }

  /** Whether the Opaque Secrets informer is running now. */
  get watchingOpaqueSecrets(): boolean {
    return this.#informers.has(opaqueInformerId);
  }

  #opaqueWanted(): boolean {
    const want = this.options.opaqueSecrets;
    if (typeof want === 'function') return want(this.store.list('IngressClass') as IngressClass[], this.store.list('RoutePolicy') as RoutePolicy[]);
    return want === true;
  }

  #checkSynced(): void {
    if (this.#initialSyncDone) return;
    const wanted = [...this.#staticSpecs().map((s) => s.id ?? s.kind), ...(this.#informers.has(opaqueInformerId) ? [opaqueInformerId] : [])];
    if (!wanted.every((id) => this.#synced.has(id))) return;
    this.#initialSyncDone = true;
    this.log.info({ kinds: wanted }, 'all informers synced');
    for (const resolve of this.#onSynced.splice(0)) resolve();
  }

  /** Starts or stops the Opaque Secrets informer to match opaqueSecrets. */
  #reconcileOpaque(): void {
    if (this.#stopped) return;
    const wanted = this.#opaqueWanted();
    const running = this.#informers.get(opaqueInformerId);
    if (wanted && running === undefined) {
      this.log.info({}, 'watching Opaque Secrets (ingress-nginx basic auth: auth-secret)');
      void this.#startKind(opaqueSecretsSpec(this.options.namespace)).catch((e: unknown) =>
        this.log.warn({ err: describe(e) }, 'Opaque Secrets informer failed to start'),
      );
    } else if (!wanted && running !== undefined) {
      this.log.info({}, 'no longer watching Opaque Secrets: no IngressClass opts in to nginx annotations');
      this.#forget(opaqueInformerId);
      void running.stop();
      const opaque = this.store.list('Secret').filter((s) => (s as { type?: string }).type !== 'kubernetes.io/tls');
      for (const s of opaque) this.store.delete('Secret', namespaceOf(s.metadata), s.metadata.name);
      this.#checkSynced(); // it may have been the last informer the first sync waited for
    }
  }

  /**
   * Starts the Gateway API's ConfigMap informer (CA certificates that Gateways' spec.tls.frontend and BackendTLSPolicies
   * name, of any name) while the API serves Gateways; stops it (its ConfigMaps leave) when not.
   */
  async #reconcileGatewayConfigMaps(served: boolean): Promise<void> {
    const source = this.#kinds().find((k) => k.kind === 'ConfigMap');
    if (source === undefined || this.#stopped) return;
    const running = this.#informers.get(gatewayConfigMapsInformerId);
    if (served && running === undefined) {
      this.log.info({}, 'watching ConfigMaps (Gateway API: CA certificates of spec.tls.frontend and BackendTLSPolicies)');
      const spec: KindSpec = { id: gatewayConfigMapsInformerId, kind: 'ConfigMap', source, namespace: this.options.namespace };
      await this.#startKind(spec).catch((e: unknown) => this.log.warn({ err: describe(e) }, 'ConfigMap informer failed to start'));
    } else if (!served && running !== undefined) {
      this.#forget(gatewayConfigMapsInformerId);
      void running.stop();
      // The ingress-nginx ConfigMap stays: its own informer keeps it.
      const named = this.options.nginxConfigMap;
      for (const c of this.store.list('ConfigMap')) {
        const namespace = namespaceOf(c.metadata);
        if (named === undefined || named.namespace !== namespace || named.name !== c.metadata.name) this.store.delete('ConfigMap', namespace, c.metadata.name);
      }
    }
  }

  #forget(id: string): void {
    this.#informers.delete(id);
    this.#synced.delete(id);
    this.#listed.delete(id);
    this.#listCalls.delete(id);
    this.#backoff.delete(id);
  }

  /** Resolves once every informer has listed once. */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.#onSynced.push(resolve));
  }

  #kinds(): readonly SourceKind[] {
    return this.options.kinds ?? sourceKinds;
  }

  /** The informer of a kind: which of its objects are watched, or undefined when none are. */
  #specOf(source: SourceKind): KindSpec | undefined {
    const kind = source.kind as KubeKind;
    const namespace = source.namespaced ? this.options.namespace : undefined;
    // Only TLS Secrets by default (the Opaque ones in their own informer, see #reconcileOpaque).
    if (kind === 'Secret') return { kind, source, namespace, fieldSelector: 'type=kubernetes.io/tls' };
    if (isKindName(kind) && kindTable[kind].reads === 'named') {
      // One object by name, whatever `namespace` says: list and watch with a metadata.name field selector (RBAC
      // resourceNames allows that); none while the options name none.
      const ref = this.#named()[kind as NamedKind];
      return ref === undefined ? undefined : { kind, source, namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}` };
    }
    return { kind, source, namespace };
  }

  #named(): Record<NamedKind, { namespace: string; name: string } | undefined> {
    return { ConfigMap: this.options.nginxConfigMap };
  }

  /** The informers that always run (the Opaque Secrets one is started by #reconcileOpaque, optional kinds by #discover). */
  #staticSpecs(): KindSpec[] {
    return this.#kinds()
      .filter((source) => !source.optional)
      .map((source) => this.#specOf(source))
      .filter((spec) => spec !== undefined);
  }

  /** Starts an optional kind's informer when discovery finds it served, stops it (its objects leave) when it goes. */
  async #discover(source: SourceKind): Promise<void> {
    if (this.#stopped) return;
    const spec = this.#specOf(source);
    if (spec === undefined) return;
    const id = spec.id ?? spec.kind;
    let served: boolean;
    try {
      served = await isServed(this.kubeConfig, source);
    } catch (e: unknown) {
      this.log.warn({ kind: source.kind, err: describe(e) }, 'discovery failed; asking again later');
      return;
    }
    if (this.#stopped) return;
    const running = this.#informers.get(id);
    if (!served && !this.#reportedAbsent.has(source.group)) {
      this.#reportedAbsent.add(source.group);
      const kinds = this.#kinds().filter((k) => k.optional && k.group === source.group).map((k) => k.kind);
      this.log.info(
        { group: source.group, kinds },
        source.group === 'gateway.networking.k8s.io'
          ? 'Gateway API is off: the API does not serve its CRDs (Ingress is served as usual; installing them turns it on)'
          : `the API does not serve ${source.group}: not watching ${kinds.join(', ')} until their CRDs are installed`,
      );
    }
    if (served) this.#reportedAbsent.delete(source.group);
    // Listed before the Gateways are: a Gateway is never translated without the CA ConfigMaps it names (its listeners
    // would be refused, NoValidCACertificate, until they come).
    if (source.kind === 'Gateway') await this.#reconcileGatewayConfigMaps(served);
    if (this.#stopped) return;
    if (served && running === undefined) {
      this.log.info({ kind: source.kind }, 'the API serves an optional kind now: watching it');
      this.#servedOptional.add(id);
      void this.#startKind(spec).catch((e: unknown) => this.log.warn({ kind: source.kind, err: describe(e) }, 'informer failed to start'));
    } else if (!served && running !== undefined) {
      this.log.info({ kind: source.kind }, 'the API no longer serves an optional kind: not watching it');
      this.#servedOptional.delete(id);
      this.#forget(id);
      void running.stop();
      this.store.replace([spec.kind], []);
    }
  }

  #pollOptional(): void {
    const optional = this.#kinds().filter((source) => source.optional);
    if (optional.length === 0 || this.#stopped) return;
    const poll = (): void => {
      void Promise.all(optional.map((source) => this.#discover(source))).finally(() => {
        if (this.#stopped) return;
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          poll();
        }, this.options.discoveryIntervalMs ?? 30_000);
        this.#timers.add(timer);
      });
    };
    poll();
  }

  /** Whether the informer of an optional kind (a CRD) runs now. */
  watching(kind: string): boolean {
    return this.#informers.has(kind);
  }

  /**
   * Whether the informer of `kind` runs and has listed: the store holds all its objects. An optional kind's informer
   * starts after the first sync (discovery), so "no Gateway in the store" means "none" only once this is true.
   */
  kindSynced(kind: string): boolean {
    return this.#informers.has(kind) && this.#synced.has(kind);
  }

  /**
   * Whether the Gateway API's ConfigMap informer runs and has listed: the store holds the ConfigMaps of the watched
   * namespaces, the Gateway port record among them (the Gateway Service manager writes nothing until then).
   */
  get gatewayConfigMapsSynced(): boolean {
    return this.#informers.has(gatewayConfigMapsInformerId) && this.#synced.has(gatewayConfigMapsInformerId);
  }

  async start(): Promise<void> {
    if (typeof this.options.opaqueSecrets === 'function') {
      const onChange = (changes: readonly { kind: KubeKind }[]): void => {
        if (changes.some((c) => c.kind === 'IngressClass' || c.kind === 'RoutePolicy')) this.#reconcileOpaque();
      };
      this.store.on('change', onChange);
      this.#stopStoreListener = () => this.store.off('change', onChange);
    }
    this.#reconcileOpaque();
    this.#pollOptional();
    await Promise.all(this.#staticSpecs().map((spec) => this.#startKind(spec)));
  }

  async #startKind(spec: KindSpec): Promise<void> {
    const id = spec.id ?? spec.kind;
    const listFn = async (): Promise<AnyList> => {
      const list = await listKind(this.kubeConfig, spec.source, { namespace: spec.namespace, fieldSelector: spec.fieldSelector });
      const count = (this.#listCalls.get(id) ?? 0) + 1;
      this.#listCalls.set(id, count);
      // Per kind: 1 + the relists of all its informers.
      this.lists.set(spec.kind, (this.lists.get(spec.kind) ?? 0) + (count > 1 || !this.lists.has(spec.kind) ? 1 : 0));
      // A second list means the watch could not resume (410 Gone: resourceVersion expired) and we relisted.
      if (count > 1) this.log.info({ kind: spec.kind, informer: id, items: list.items.length, lists: count }, 'relisted');
      this.#listed.add(id);
      this.#backoff.delete(id); // the API answers again: the next failure starts from the short delay
      return list;
    };
    const informer = new ListWatch<KubernetesObject>(
      collectionPath(spec.source, spec.namespace),
      new Watch(this.kubeConfig),
      listFn,
      false,
      undefined,
      spec.fieldSelector,
    );
    this.#informers.set(id, informer);
    // A stopped informer (the Opaque one, after no class opts in any more) may still deliver a late event.
    const current = (): boolean => this.#informers.get(id) === informer;
    const upsert = (obj: KubernetesObject): void => {
      if (!current()) return;
      this.#backoff.delete(id);
      // A kind the table lacks (an optional kind given by a test) is read as its source entry describes it.
      const n = normalizeObject({ ...obj, kind: spec.kind }, isKindName(spec.kind) ? undefined : { apiVersions: [apiVersionOf(spec.source)], namespaced: spec.source.namespaced });
      if (n.ok) this.store.upsert(n.object);
      else if (!n.ignored) this.log.warn({ kind: spec.kind, name: obj.metadata?.name, error: n.error }, 'skipping object');
    };
    informer.on('add', upsert);
    informer.on('update', upsert);
    informer.on('delete', (obj) => {
      if (!current()) return;
      const namespace = isKindName(spec.kind) ? keyNamespaceOf(spec.kind, obj.metadata ?? {}) : spec.source.namespaced ? namespaceOf(obj.metadata ?? {}) : '';
      this.store.delete(spec.kind, namespace, obj.metadata?.name ?? '');
    });
    informer.on('error', (err: unknown) => {
      if (current()) this.#restart(spec.kind, id, informer, err);
    });
    await this.#run(id, informer);
  }

  async #run(id: string, informer: ListWatch<KubernetesObject>): Promise<void> {
    await informer.start();
    // Stopped while it listed: ListWatch still opened its watch after the list; close it.
    if (this.#informers.get(id) !== informer || this.#stopped) {
      await informer.stop();
      return;
    }
    // start() resolves after the first list (or after an error was reported, which schedules a restart).
    if (this.#listed.has(id) && !this.#synced.has(id)) {
      this.#synced.add(id);
      this.log.debug({ informer: id }, 'informer synced');
      this.#checkSynced();
    }
  }

  #restart(kind: KubeKind, id: string, informer: ListWatch<KubernetesObject>, err: unknown): void {
    if (this.#stopped) return;
    const min = this.options.minBackoffMs ?? 1000;
    const delay = Math.min(this.#backoff.get(id) ?? min, this.options.maxBackoffMs ?? 30_000);
    this.#backoff.set(id, delay * 2);
    this.options.onRestart?.(kind, err);
    this.log.warn({ kind, err: describe(err), retryInMs: delay }, 'watch failed; restarting');
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (this.#stopped || this.#informers.get(id) !== informer) return;
      void this.#run(id, informer).catch((e: unknown) => this.log.warn({ kind, err: describe(e) }, 'informer restart failed'));
    }, delay);
    this.#timers.add(timer);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopStoreListener?.();
    for (const t of this.#timers) clearTimeout(t);
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null) {
    const e = err as { code?: unknown; statusCode?: unknown; message?: unknown };
    return String(e.message ?? e.code ?? e.statusCode ?? JSON.stringify(err));
  }
  return String(err);
}

function apiVersionOf(source: SourceKind): string {
  return source.group === '' ? source.version : `${source.group}/${source.version}`;
}

const opaqueInformerId = 'Secret/Opaque';
const gatewayConfigMapsInformerId = 'ConfigMap/gateway-api';

/** Opaque Secrets (ingress-nginx basic-auth users), in their own informer: a field selector cannot say "tls or Opaque". */
function opaqueSecretsSpec(namespace: string | undefined): KindSpec {
  return { id: opaqueInformerId, kind: 'Secret', source: sourceKind('Secret'), namespace, fieldSelector: 'type=Opaque' };
}

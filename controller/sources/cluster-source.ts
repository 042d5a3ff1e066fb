// The Kubernetes source: one ListWatch informer per kind feeding the store. Secrets are watched with a field
// selector for kubernetes.io/tls only (less memory, less exposure), plus Opaque ones in a second informer when
// ingress-nginx basic auth may need them (opaqueSecrets, with --nginx-annotations). An informer that fails is restarted with
// backoff (1 s doubling to 30 s); an expired resourceVersion (410 Gone) makes it relist. `synced` turns true
// only once every informer has completed its first list, so a restarted controller never publishes a partial
// view to a running Envoy.
import {
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  ListWatch,
  NetworkingV1Api,
  Watch,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { ObjectStore } from '../store.js';
import type { KubeKind } from '../translate/kube-objects.js';
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
   * Also watch Opaque Secrets, in a second informer: ingress-nginx basic auth (--nginx-annotations) reads its users
   * from them (auth-secret). Off, only kubernetes.io/tls Secrets are watched.
   */
  opaqueSecrets?: boolean;
  /** Backoff bounds, for tests. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

interface KindSpec {
  /** Distinguishes informers of one kind (Secrets: TLS and Opaque); the kind when there is one. */
  id?: string;
  kind: KubeKind;
  path: (ns: string | undefined) => string;
  list: (ns: string | undefined) => Promise<KubernetesListObject<KubernetesObject>>;
  fieldSelector?: string;
}

type AnyList = KubernetesListObject<KubernetesObject>;

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

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly store: ObjectStore,
    private readonly log: ClusterSourceLog,
    private readonly options: ClusterSourceOptions = {},
  ) {}

  get synced(): boolean {
    return this.#synced.size === this.#specs().length;
  }

  /** Resolves once every informer has listed once. */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.#onSynced.push(resolve));
  }

  #specs(): KindSpec[] {
    const core = this.kubeConfig.makeApiClient(CoreV1Api);
    const networking = this.kubeConfig.makeApiClient(NetworkingV1Api);
    const discovery = this.kubeConfig.makeApiClient(DiscoveryV1Api);
    const at = (group: string, resource: string) => (ns: string | undefined) =>
      ns ? `${group}/namespaces/${ns}/${resource}` : `${group}/${resource}`;
    const tls = 'type=kubernetes.io/tls';
    return [
      {
        kind: 'IngressClass',
        path: () => '/apis/networking.k8s.io/v1/ingressclasses',
        list: () => networking.listIngressClass() as Promise<AnyList>,
      },
      {
        kind: 'Ingress',
        path: at('/apis/networking.k8s.io/v1', 'ingresses'),
        list: (ns) => (ns ? networking.listNamespacedIngress({ namespace: ns }) : networking.listIngressForAllNamespaces()) as Promise<AnyList>,
      },
      {
        kind: 'Service',
        path: at('/api/v1', 'services'),
        list: (ns) => (ns ? core.listNamespacedService({ namespace: ns }) : core.listServiceForAllNamespaces()) as Promise<AnyList>,
      },
      {
        kind: 'EndpointSlice',
        path: at('/apis/discovery.k8s.io/v1', 'endpointslices'),
        list: (ns) =>
          (ns ? discovery.listNamespacedEndpointSlice({ namespace: ns }) : discovery.listEndpointSliceForAllNamespaces()) as Promise<AnyList>,
      },
      {
        kind: 'Endpoints',
        path: at('/api/v1', 'endpoints'),
        list: (ns) => (ns ? core.listNamespacedEndpoints({ namespace: ns }) : core.listEndpointsForAllNamespaces()) as Promise<AnyList>,
      },
      {
        kind: 'Secret',
        path: at('/api/v1', 'secrets'),
        fieldSelector: tls,
        list: (ns) =>
          (ns
            ? core.listNamespacedSecret({ namespace: ns, fieldSelector: tls })
            : core.listSecretForAllNamespaces({ fieldSelector: tls })) as Promise<AnyList>,
      },
      ...(this.options.opaqueSecrets === true ? [opaqueSecretsSpec(core, at('/api/v1', 'secrets'))] : []),
    ];
  }

  async start(): Promise<void> {
    const ns = this.options.namespace;
    await Promise.all(this.#specs().map((spec) => this.#startKind(spec, ns)));
  }

  async #startKind(spec: KindSpec, ns: string | undefined): Promise<void> {
    const id = spec.id ?? spec.kind;
    const listFn = async (): Promise<AnyList> => {
      const list = await spec.list(ns);
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
      spec.path(ns),
      new Watch(this.kubeConfig),
      listFn,
      false,
      undefined,
      spec.fieldSelector,
    );
    this.#informers.set(id, informer);
    const upsert = (obj: KubernetesObject): void => {
      this.#backoff.delete(id);
      const n = normalizeObject({ ...obj, kind: spec.kind });
      if (n.ok) this.store.upsert(n.object);
      else if (!n.ignored) this.log.warn({ kind: spec.kind, name: obj.metadata?.name, error: n.error }, 'skipping object');
    };
    informer.on('add', upsert);
    informer.on('update', upsert);
    informer.on('delete', (obj) => {
      const namespace = spec.kind === 'IngressClass' ? '' : (obj.metadata?.namespace ?? 'default');
      this.store.delete(spec.kind, namespace, obj.metadata?.name ?? '');
    });
    informer.on('error', (err: unknown) => this.#restart(spec.kind, id, informer, err));
    await this.#run(id, informer);
  }

  async #run(id: string, informer: ListWatch<KubernetesObject>): Promise<void> {
    await informer.start();
    // start() resolves after the first list (or after an error was reported, which schedules a restart).
    if (this.#listed.has(id) && !this.#synced.has(id)) {
      this.#synced.add(id);
      this.log.debug({ informer: id }, 'informer synced');
      if (this.synced) {
        this.log.info({ kinds: [...this.#synced] }, 'all informers synced');
        for (const resolve of this.#onSynced.splice(0)) resolve();
      }
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
      if (this.#stopped) return;
      void this.#run(id, informer).catch((e: unknown) => this.log.warn({ kind, err: describe(e) }, 'informer restart failed'));
    }, delay);
    this.#timers.add(timer);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
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

/** Opaque Secrets (ingress-nginx basic-auth users), in their own informer: a field selector cannot say "tls or Opaque". */
function opaqueSecretsSpec(core: CoreV1Api, path: (ns: string | undefined) => string): KindSpec {
  const opaque = 'type=Opaque';
  return {
    id: 'Secret/Opaque',
    kind: 'Secret',
    path,
    fieldSelector: opaque,
    list: (ns) =>
      (ns ? core.listNamespacedSecret({ namespace: ns, fieldSelector: opaque }) : core.listSecretForAllNamespaces({ fieldSelector: opaque })) as Promise<AnyList>,
  };
}

// --publish-nodes: watches the pods matching a label selector in one namespace and the Nodes, and keeps the
// addresses of the nodes running a ready one (published-addresses.ts decides which). For Envoy on the nodes' own
// network (the edge-nodes install: a hostNetwork DaemonSet, no Service in front), where those addresses are
// where clients connect. A watch that fails restarts with backoff (1 s doubling to 30 s); `change` is emitted only
// when the address list changes.
import { EventEmitter } from 'node:events';
import {
  CoreV1Api,
  KubeConfig,
  ListWatch,
  Watch,
  type KubernetesListObject,
  type KubernetesObject,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import type { LoadBalancerIngress } from '../translate/shared/kube-objects.js';
import { addressesKey, nodeAddresses, type PublishNodesOptions } from './published-addresses.js';

export interface NodeAddressSourceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

type AnyList = KubernetesListObject<KubernetesObject>;

export class NodeAddressSource extends EventEmitter<{ change: [LoadBalancerIngress[]] }> {
  readonly #pods: ListWatch<KubernetesObject>;
  readonly #nodes: ListWatch<KubernetesObject>;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #backoff = new Map<string, number>();
  #addresses: LoadBalancerIngress[] = [];
  #stopped = false;

  constructor(
    kubeConfig: KubeConfig,
    private readonly options: PublishNodesOptions,
    private readonly log: NodeAddressSourceLog,
  ) {
    super();
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const ns = options.namespace;
    this.#pods = new ListWatch<KubernetesObject>(
      `/api/v1/namespaces/${ns}/pods`,
      new Watch(kubeConfig),
      () => core.listNamespacedPod({ namespace: ns, labelSelector: options.podSelector }) as Promise<AnyList>,
      false,
      options.podSelector,
    );
    this.#nodes = new ListWatch<KubernetesObject>('/api/v1/nodes', new Watch(kubeConfig), () => core.listNode() as Promise<AnyList>, false);
    for (const [kind, informer] of [['Pod', this.#pods], ['Node', this.#nodes]] as const) {
      for (const verb of ['add', 'update', 'delete'] as const) informer.on(verb, () => this.#recompute());
      informer.on('error', (err: unknown) => this.#restart(kind, informer, err));
    }
  }

  /** The current addresses (empty until both lists arrived). */
  addresses(): LoadBalancerIngress[] {
    return this.#addresses;
  }

  /** Resolves once pods and nodes were listed (or a list failed: its restart is scheduled). */
  async start(): Promise<void> {
    await Promise.all([this.#pods.start(), this.#nodes.start()]);
    this.#recompute();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    await Promise.all([this.#pods.stop(), this.#nodes.stop()]);
  }

  #recompute(): void {
    const next = nodeAddresses(this.#pods.list() as V1Pod[], this.#nodes.list() as V1Node[], this.options.addressType);
    if (addressesKey(next) === addressesKey(this.#addresses)) return;
    this.#addresses = next;
    this.log.info({ addresses: next }, 'node addresses to publish changed');
    this.emit('change', next);
  }

  #restart(kind: string, informer: ListWatch<KubernetesObject>, err: unknown): void {
    if (this.#stopped) return;
    const delay = Math.min(this.#backoff.get(kind) ?? 1000, 30_000);
    this.#backoff.set(kind, delay * 2);
    this.log.warn({ kind, err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'watch for --publish-nodes failed; restarting');
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (this.#stopped) return;
      informer.start().then(
        () => {
          this.#backoff.delete(kind);
          this.#recompute();
        },
        (e: unknown) => this.#restart(kind, informer, e),
      );
    }, delay);
    this.#timers.add(timer);
  }
}

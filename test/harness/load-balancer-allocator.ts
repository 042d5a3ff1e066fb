/**
 * A load balancer for the real node, the way cloud-provider-kind gives kind clusters one: it watches Services of
 * type LoadBalancer and writes status.loadBalancer.ingress with an IP from a pool routed to the node (the node's own
 * subnet, on the bridge the harness makes), so kube-proxy programs that IP like a cloud's and the host reaches the
 * Service on it. Test-side only: the product never allocates addresses, it reads them (a Gateway's Service's
 * addresses become the Gateway's).
 *
 * Rules: a Service that has an ingress address keeps it (and it counts as taken) unless its spec.loadBalancerIP
 * asks for another address of the pool that is free; spec.loadBalancerIP is honoured when it is in the pool and free;
 * otherwise the lowest free pool address. A Service with a loadBalancerClass is
 * another load balancer's. Addresses come back when their Service goes or stops being a LoadBalancer.
 */
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, type V1Service } from '@kubernetes/client-node';

export interface LoadBalancerAllocator {
  /** `namespace/name` -> IP, for the Services given an address by this allocator or found with one. */
  readonly assigned: ReadonlyMap<string, string>;
  /** Looks at every Service once now (the poll does so every interval). */
  sync(): Promise<void>;
  stop(): Promise<void>;
}

export interface LoadBalancerAllocatorOptions {
  /** A kubeconfig file that may list Services and write their status (the node's admin one). */
  kubeconfigPath: string;
  /** The addresses to give, in order. */
  pool: readonly string[];
  /** How often Services are listed (default 300 ms). */
  intervalMs?: number;
  /** Reports each assignment (e.g. t.log). */
  log?: (line: string) => void;
}

/** The IPv4 addresses first..last of `a.b.c.first`-`a.b.c.last`. */
export function addressRange(prefix: string, first: number, last: number): string[] {
  return Array.from({ length: last - first + 1 }, (_, i) => `${prefix}.${first + i}`);
}

export function startLoadBalancerAllocator(options: LoadBalancerAllocatorOptions): LoadBalancerAllocator {
  const kc = new KubeConfig();
  kc.loadFromFile(options.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  const assigned = new Map<string, string>();
  let running: Promise<void> | undefined;
  let stopped = false;

  const isOurs = (s: V1Service): boolean => s.spec?.type === 'LoadBalancer' && !s.spec.loadBalancerClass;
  const keyOf = (s: V1Service): string => `${s.metadata?.namespace}/${s.metadata?.name}`;

  const syncOnce = async (): Promise<void> => {
    const services = (await core.listServiceForAllNamespaces()).items;
    const present = new Set<string>();
    // Addresses Services already carry are taken, whoever gave them.
    for (const s of services) {
      if (!isOurs(s)) continue;
      present.add(keyOf(s));
      const ip = s.status?.loadBalancer?.ingress?.find((i) => i.ip)?.ip;
      if (ip !== undefined) assigned.set(keyOf(s), ip);
    }
    for (const key of [...assigned.keys()]) if (!present.has(key)) assigned.delete(key);
    for (const s of services) {
      if (!isOurs(s)) continue;
      const current = s.status?.loadBalancer?.ingress?.find((i) => i.ip)?.ip;
      const asked = s.spec?.loadBalancerIP;
      // A Service keeps its address unless it asks for another one that is in the pool and free (a cloud load
      // balancer re-provisions when loadBalancerIP changes).
      const reassign = current !== undefined && asked !== undefined && asked !== current && options.pool.includes(asked) && ![...assigned.values()].includes(asked);
      if ((s.status?.loadBalancer?.ingress?.length ?? 0) > 0 && !reassign) continue;
      if (reassign) assigned.delete(keyOf(s));
      const taken = new Set(assigned.values());
      const ip = asked !== undefined && options.pool.includes(asked) && !taken.has(asked) ? asked : options.pool.find((a) => !taken.has(a));
      if (ip === undefined) {
        options.log?.(`load balancer: no address left for ${keyOf(s)}`);
        continue;
      }
      await core.patchNamespacedServiceStatus(
        { namespace: s.metadata?.namespace ?? 'default', name: s.metadata?.name ?? '', body: { status: { loadBalancer: { ingress: [{ ip, ipMode: 'VIP' }] } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      assigned.set(keyOf(s), ip);
      options.log?.(`load balancer: ${keyOf(s)} -> ${ip}`);
    }
  };
  const sync = (): Promise<void> => (running ??= syncOnce().finally(() => (running = undefined)));
  const timer = setInterval(() => {
    if (!stopped) sync().catch((e: unknown) => options.log?.(`load balancer: ${String(e)}`));
  }, options.intervalMs ?? 300);
  return {
    assigned,
    sync,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}

// API requests over kept-alive connections. @kubernetes/client-node (1.x) makes a new undici Agent for every request
// (KubeConfig.applySecurityAuthentication -> createDispatcher), so every status write, Event and lease renewal paid a
// TLS handshake, on the controller's thread and the API server's, while Envoy applied the change the write was
// about. The dispatcher is made once per set of TLS options (its key: the options' bytes, so a rotated client
// certificate gets a new one) and reused.
import type { KubeConfig } from '@kubernetes/client-node';

type Dispatcher = object | undefined;
type CreateDispatcher = (cluster: unknown, agentOptions: Record<string, unknown>) => Dispatcher;

const reusing = new WeakSet<KubeConfig>();
/** Rotated certificates make new keys: the oldest dispatcher is dropped beyond this many. */
const maxDispatchers = 4;

function keyOf(options: object): string {
  // A Buffer reaches the replacer as its toJSON: { type: 'Buffer', data: [...] }.
  return JSON.stringify(options, (_key, value: unknown) => {
    const json = value as { type?: unknown; data?: unknown } | null;
    return typeof json === 'object' && json !== null && json.type === 'Buffer' && Array.isArray(json.data) ? Buffer.from(json.data as number[]).toString('base64') : value;
  });
}

/** Makes `kubeConfig` reuse one dispatcher (and its connections) per set of TLS options; returns it. */
export function reuseConnections(kubeConfig: KubeConfig): KubeConfig {
  if (reusing.has(kubeConfig)) return kubeConfig;
  // Private in client-node's typings, public at runtime: replaced on this instance only.
  const target = kubeConfig as unknown as { createDispatcher?: CreateDispatcher; createDispatcherOptions?: (cluster: unknown, agentOptions: object) => object };
  const create = target.createDispatcher?.bind(kubeConfig);
  const optionsOf = target.createDispatcherOptions?.bind(kubeConfig);
  // Another client-node than the one this was written for: leave it as it is.
  if (create === undefined || optionsOf === undefined) return kubeConfig;
  const dispatchers = new Map<string, Dispatcher>();
  target.createDispatcher = (cluster, agentOptions) => {
    const key = keyOf({ options: optionsOf(cluster, agentOptions), server: (cluster as { server?: string } | null)?.server });
    if (dispatchers.has(key)) return dispatchers.get(key);
    const dispatcher = create(cluster, agentOptions);
    dispatchers.set(key, dispatcher);
    if (dispatchers.size > maxDispatchers) dispatchers.delete(dispatchers.keys().next().value!);
    return dispatcher;
  };
  reusing.add(kubeConfig);
  return kubeConfig;
}

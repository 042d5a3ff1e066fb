// Which Envoy port serves each Gateway listener port in cluster mode (--gateway-port-range): every Gateway gets
// ports of its own, so one Envoy serves many Gateways on the same listener port (80 for each) without mixing their
// routes, and its Service maps the listener port back. Pure, from the store alone.
//
// The rule (docs/guides/gateway-api.md "Addresses"): the Service of a Gateway is the record. A Gateway keeps the
// Envoy port its Service's port already targets, when that port is in the range and no older Gateway kept it.
// Every other listener port (a new Gateway, a new listener, a range that moved) takes its own slot of the range (a
// hash of the Gateway and listener port) or the next free one after it, Gateways oldest first, listener ports
// ascending. So a new Gateway never moves an existing Gateway's ports, and neither does deleting one; and Gateways
// seen in another order (created together, their Services not yet written back) still get the same ports, so no
// two builds or replicas swap them. Ports the Ingress listeners use are never given out.
import type { Gateway, ListenerSet, Service } from '../shared/kube-objects.js';
import { gatewayKey, managedServicesByGateway } from './gateway-service.js';

export interface GatewayPortAllocation {
  /** Per Gateway key (`namespace/name`): listener port -> Envoy port. */
  ports: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** Per Gateway key: listener ports left without an Envoy port because the range is used up. */
  exhausted: ReadonlyMap<string, readonly number[]>;
}

/** FNV-1a of `text`, modulo `size`: where a listener port's search starts, the same in every replica and build. */
function preferredSlot(text: string, size: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash % size;
}

/**
 * The distinct listener ports of a Gateway and the ListenerSets it takes, ascending (every listener's, served or not,
 * so they never move later).
 */
export function listenerPortsOf(gateway: Gateway, listenerSets: readonly ListenerSet[] = []): number[] {
  const listeners = [gateway, ...listenerSets].flatMap((holder) => holder.spec?.listeners ?? []);
  return [...new Set(listeners.map((l) => l.port))].sort((a, b) => a - b);
}

/**
 * `gateways` oldest first; `services` any Services (the managed ones in `namespace` are read); `reserved` the
 * ports nobody may get (the Ingress listeners'); `listenerSets` the ListenerSets each Gateway takes (listener-sets.ts).
 */
export function allocateGatewayPorts(
  gateways: readonly Gateway[],
  services: Iterable<Service>,
  settings: { namespace: string; portRange: { first: number; last: number } },
  reserved: ReadonlySet<number>,
  listenerSets: ReadonlyMap<Gateway, readonly ListenerSet[]> = new Map(),
): GatewayPortAllocation {
  const { first, last } = settings.portRange;
  const byGateway = managedServicesByGateway(services, settings.namespace);
  const taken = new Set<number>(reserved);
  const ports = new Map<string, Map<number, number>>();
  const wanting: { key: string; port: number }[] = [];
  // Pass 1: keep what each Service records.
  for (const gateway of gateways) {
    const key = gatewayKey(gateway);
    const mapped = new Map<number, number>();
    ports.set(key, mapped);
    const recorded = byGateway.get(key)?.spec?.ports ?? [];
    for (const port of listenerPortsOf(gateway, listenerSets.get(gateway))) {
      const target = recorded.find((p) => p.port === port)?.targetPort;
      if (typeof target === 'number' && target >= first && target <= last && !taken.has(target)) {
        taken.add(target);
        mapped.set(port, target);
      } else {
        wanting.push({ key, port });
      }
    }
  }
  // Pass 2: the rest take their own slot or the next free port after it (wrapping), in the order found (Gateways
  // oldest first, ports ascending).
  const exhausted = new Map<string, number[]>();
  const size = last - first + 1;
  for (const { key, port } of wanting) {
    const slot = preferredSlot(`${key}|${port}`, size);
    let found: number | undefined;
    for (let i = 0; i < size && found === undefined; i++) {
      const candidate = first + ((slot + i) % size);
      if (!taken.has(candidate)) found = candidate;
    }
    if (found === undefined) {
      exhausted.set(key, [...(exhausted.get(key) ?? []), port]);
      continue;
    }
    taken.add(found);
    (ports.get(key) as Map<number, number>).set(port, found);
  }
  for (const mapped of ports.values()) {
    const sorted = [...mapped].sort(([a], [b]) => a - b);
    mapped.clear();
    for (const [k, v] of sorted) mapped.set(k, v);
  }
  return { ports, exhausted };
}

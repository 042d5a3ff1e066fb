// Which Envoy port serves each Gateway listener port in cluster mode (--gateway-port-range): every Gateway gets
// ports of its own, so one Envoy serves many Gateways on the same listener port (80 for each) without mixing their
// routes, and its Service maps the listener port back. Pure, from the store alone.
//
// The rule (docs/guides/gateway-api.md "Addresses"): the port record (gateway-port-record.ts, a ConfigMap in the
// controller's namespace that only the controller writes) says which Envoy ports a Gateway has; before it existed,
// the Services the controller kept in its own namespace said so (still read, for the upgrade). Never a Service in a
// Gateway's namespace: its tenant may write it, and must not take another Gateway's Envoy port by rewriting its
// targetPort. A Gateway keeps a recorded Envoy port when that port is in the range and no older Gateway kept it.
// Every other listener port (a new Gateway, a new listener, a range that moved) takes its own slot of the range (a
// hash of the Gateway and listener port) or the next free one after it, Gateways oldest first, listener ports
// ascending. So a new Gateway never moves an existing Gateway's ports, and neither does deleting one; and Gateways
// seen in another order (created together, the record not yet written) still get the same ports, so no
// two builds or replicas swap them. Ports the Ingress listeners use are never given out.
import { namespaceOf } from '../shared/kinds.js';
import type { ConfigMap, Gateway, ListenerSet, Service } from '../shared/kube-objects.js';
import { readGatewayPortRecord, type RecordedGatewayPorts } from './gateway-port-record.js';
import { gatewayKey, managedGatewayKey } from './gateway-service.js';

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
 * The Envoy ports recorded per Gateway key: the port record's entries, and for a Gateway it has none of, the ports
 * of the Service the controller kept for it in its own `namespace` before the record existed. Services of any
 * other namespace are not read (a tenant writes those).
 */
export function recordedGatewayPorts(record: ConfigMap | undefined, services: Iterable<Service>, namespace: string): Map<string, RecordedGatewayPorts> {
  const recorded = new Map<string, RecordedGatewayPorts>();
  for (const service of services) {
    if (namespaceOf(service.metadata) !== namespace) continue;
    const key = managedGatewayKey(service, namespace);
    if (key === undefined || recorded.has(key)) continue;
    const ports = new Map<number, number>();
    for (const p of service.spec?.ports ?? []) if (typeof p.targetPort === 'number') ports.set(p.port, p.targetPort);
    recorded.set(key, { ports });
  }
  for (const [key, entry] of readGatewayPortRecord(record)) recorded.set(key, entry);
  return recorded;
}

/**
 * `gateways` oldest first; `recorded` what recordedGatewayPorts read (an entry for another uid than the Gateway's
 * is a deleted Gateway's of the same name: not kept); `reserved` the ports nobody may get (the Ingress listeners');
 * `listenerSets` the ListenerSets each Gateway takes (listener-sets.ts).
 */
export function allocateGatewayPorts(
  gateways: readonly Gateway[],
  recorded: ReadonlyMap<string, RecordedGatewayPorts>,
  settings: { portRange: { first: number; last: number } },
  reserved: ReadonlySet<number>,
  listenerSets: ReadonlyMap<Gateway, readonly ListenerSet[]> = new Map(),
): GatewayPortAllocation {
  const { first, last } = settings.portRange;
  const taken = new Set<number>(reserved);
  const ports = new Map<string, Map<number, number>>();
  const wanting: { key: string; port: number }[] = [];
  // Pass 1: keep what the record says.
  for (const gateway of gateways) {
    const key = gatewayKey(gateway);
    const mapped = new Map<number, number>();
    ports.set(key, mapped);
    const entry = recorded.get(key);
    const uid = gateway.metadata.uid;
    const kept = entry !== undefined && (entry.uid === undefined || uid === undefined || entry.uid === uid) ? entry.ports : new Map<number, number>();
    for (const port of listenerPortsOf(gateway, listenerSets.get(gateway))) {
      const target = kept.get(port);
      if (target !== undefined && target >= first && target <= last && !taken.has(target)) {
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

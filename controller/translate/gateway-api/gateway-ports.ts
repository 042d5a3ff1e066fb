// Which Envoy port serves each Gateway listener port in cluster mode (--gateway-port-range): every Gateway gets
// ports of its own, so one Envoy serves many Gateways on the same listener port (80 for each) without mixing their
// routes, and its Service maps the listener port back. Pure, from the store alone.
//
// The rule (docs/guides/gateway-api.md "Addresses"): the Service of a Gateway is the record. A Gateway keeps the
// Envoy port its Service's port already targets, when that port is in the range and no older Gateway kept it.
// Every other listener port (a new Gateway, a new listener, a range that moved) takes the lowest free port of the
// range, Gateways oldest first, listener ports ascending. So a new Gateway never moves an existing Gateway's ports,
// and neither does deleting one. Ports the Ingress listeners use are never given out.
import type { Gateway, Service } from '../shared/kube-objects.js';
import { gatewayKey, managedServicesByGateway } from './gateway-service.js';

export interface GatewayPortAllocation {
  /** Per Gateway key (`namespace/name`): listener port -> Envoy port. */
  ports: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** Per Gateway key: listener ports left without an Envoy port because the range is used up. */
  exhausted: ReadonlyMap<string, readonly number[]>;
}

/** The distinct listener ports of a Gateway, ascending (every listener's, served or not, so they never move later). */
export function listenerPortsOf(gateway: Gateway): number[] {
  return [...new Set((gateway.spec?.listeners ?? []).map((l) => l.port))].sort((a, b) => a - b);
}

/**
 * `gateways` oldest first; `services` any Services (the managed ones in `namespace` are read); `reserved` the
 * ports nobody may get (the Ingress listeners').
 */
export function allocateGatewayPorts(
  gateways: readonly Gateway[],
  services: Iterable<Service>,
  settings: { namespace: string; portRange: { first: number; last: number } },
  reserved: ReadonlySet<number>,
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
    for (const port of listenerPortsOf(gateway)) {
      const target = recorded.find((p) => p.port === port)?.targetPort;
      if (typeof target === 'number' && target >= first && target <= last && !taken.has(target)) {
        taken.add(target);
        mapped.set(port, target);
      } else {
        wanting.push({ key, port });
      }
    }
  }
  // Pass 2: the rest take the lowest free ports, in the order found (Gateways oldest first, ports ascending).
  const exhausted = new Map<string, number[]>();
  let next = first;
  for (const { key, port } of wanting) {
    while (next <= last && taken.has(next)) next++;
    if (next > last) {
      exhausted.set(key, [...(exhausted.get(key) ?? []), port]);
      continue;
    }
    taken.add(next);
    (ports.get(key) as Map<number, number>).set(port, next);
  }
  for (const mapped of ports.values()) {
    const sorted = [...mapped].sort(([a], [b]) => a - b);
    mapped.clear();
    for (const [k, v] of sorted) mapped.set(k, v);
  }
  return { ports, exhausted };
}

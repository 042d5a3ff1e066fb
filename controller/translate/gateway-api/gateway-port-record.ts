// The record of the Envoy ports each Gateway has in cluster mode (--gateway-port-range): one ConfigMap per controller
// (controllerName) in the controller's namespace, written by the Gateway Service manager only, read back by
// gateway-ports.ts so ports stay where they are across restarts and leaders. It lives where tenants cannot write:
// the Gateways' Services (in the Gateways' namespaces, writable by their tenants) are output only, so a tenant
// rewriting its Service's targetPort to another Gateway's Envoy port changes nothing but its own Service (put back).
// Pure: its name, what it says, and what it should say.
import { createHash } from 'node:crypto';
import { compareStrings } from '../../../ir/index.js';
import { namespaceOf } from '../shared/kinds.js';
import type { ConfigMap, Gateway } from '../shared/kube-objects.js';

/** The data key holding the record: a JSON object, Gateway key (`namespace/name`) -> its entry, one line each. */
export const gatewayPortRecordKey = 'gateways.json';

/** What the record says of one Gateway: its uid when known, and listener port -> Envoy port. */
export interface RecordedGatewayPorts {
  uid?: string;
  ports: ReadonlyMap<number, number>;
}

/**
 * The record's name: `envoy-ingress-gateway-ports-` and a hash of the controllerName, so two installs (two
 * controllerNames) in one namespace keep one each.
 */
export function gatewayPortRecordName(controllerName: string): string {
  return `envoy-ingress-gateway-ports-${createHash('sha256').update(controllerName).digest('hex').slice(0, 8)}`;
}

/** The record among `configMaps`: in the controller's `namespace`, under the controllerName's record name. */
export function findGatewayPortRecord(configMaps: Iterable<ConfigMap>, namespace: string, controllerName: string): ConfigMap | undefined {
  const name = gatewayPortRecordName(controllerName);
  for (const c of configMaps) if (c.metadata.name === name && namespaceOf(c.metadata) === namespace) return c;
  return undefined;
}

const isPort = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 65536;

/** What `record` says, per Gateway key; entries that cannot be read (a hand edit) are left out. */
export function readGatewayPortRecord(record: ConfigMap | undefined): Map<string, RecordedGatewayPorts> {
  const recorded = new Map<string, RecordedGatewayPorts>();
  const text = record?.data?.[gatewayPortRecordKey];
  if (text === undefined) return recorded;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return recorded;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return recorded;
  for (const [key, entry] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof entry !== 'object' || entry === null || !key.includes('/')) continue;
    const { uid, ports } = entry as { uid?: unknown; ports?: unknown };
    if (typeof ports !== 'object' || ports === null) continue;
    const mapped = new Map<number, number>();
    for (const [port, target] of Object.entries(ports as Record<string, unknown>)) {
      const listener = Number(port);
      if (isPort(listener) && isPort(target)) mapped.set(listener, target);
    }
    recorded.set(key, { ...(typeof uid === 'string' ? { uid } : {}), ports: mapped });
  }
  return recorded;
}

/**
 * The record's data for `ports` (per Gateway key: listener port -> Envoy port), with each Gateway's uid: sorted, one
 * Gateway a line, so the same ports always give the same text (no write when nothing changed).
 */
export function gatewayPortRecordData(ports: ReadonlyMap<string, ReadonlyMap<number, number>>, gateways: ReadonlyMap<string, Gateway>): Record<string, string> {
  const lines = [...ports]
    .filter(([, mapped]) => mapped.size > 0)
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([key, mapped]) => {
      const uid = gateways.get(key)?.metadata.uid;
      const entry = { ...(uid === undefined ? {} : { uid }), ports: Object.fromEntries([...mapped].sort(([a], [b]) => a - b).map(([p, e]) => [String(p), e])) };
      return `${JSON.stringify(key)}: ${JSON.stringify(entry)}`;
    });
  return { [gatewayPortRecordKey]: lines.length === 0 ? '{}\n' : `{\n${lines.join(',\n')}\n}\n` };
}

import test from 'ava';
import type { ConfigMap, Gateway, Service } from '../shared/kube-objects.js';
import { gatewayPortRecordData, gatewayPortRecordName, readGatewayPortRecord } from './gateway-port-record.js';
import { allocateGatewayPorts as allocateFromRecord, recordedGatewayPorts } from './gateway-ports.js';
import { gatewayKey, gatewayServiceAnnotation, gatewayServiceName, managedByLabel, managedByValue } from './gateway-service.js';

const settings = { namespace: 'envoy-ingress', portRange: { first: 20000, last: 20004 } };
const controllerName = 'envoy-ingress.io/gateway-controller';

/** The port record (in the controller's namespace) saying `entries`: Gateway -> listener port -> Envoy port. */
function recordOf(entries: [Gateway, [number, number][]][]): ConfigMap {
  const ports = new Map(entries.map(([g, mapped]) => [gatewayKey(g), new Map(mapped)]));
  const data = gatewayPortRecordData(ports, new Map(entries.map(([g]) => [gatewayKey(g), g])));
  return { kind: 'ConfigMap', metadata: { name: gatewayPortRecordName(controllerName), namespace: settings.namespace }, data };
}

/** allocateGatewayPorts reading `sources` as the translator and the manager do: the record, then Services. */
function allocateGatewayPorts(
  gateways: readonly Gateway[],
  sources: readonly (Service | ConfigMap)[],
  range: { namespace: string; portRange: { first: number; last: number } },
  reserved: ReadonlySet<number>,
): ReturnType<typeof allocateFromRecord> {
  const record = sources.find((o): o is ConfigMap => o.kind === 'ConfigMap');
  const services = sources.filter((o): o is Service => o.kind === 'Service');
  return allocateFromRecord(gateways, recordedGatewayPorts(record, services, range.namespace), range, reserved);
}

function gateway(name: string, day: number, ports: number[], namespace = 'apps'): Gateway {
  return {
    kind: 'Gateway',
    metadata: { name, namespace, creationTimestamp: `2024-01-${String(day).padStart(2, '0')}T00:00:00Z` },
    spec: { gatewayClassName: 'c', listeners: ports.map((port, i) => ({ name: `l${i}`, port, protocol: 'HTTP' })) },
  };
}

/** The managed Service recording `mapped` (listener port -> Envoy port) for `g`. */
function serviceOf(g: Gateway, mapped: [number, number][], namespace = settings.namespace): Service {
  return {
    kind: 'Service',
    metadata: {
      name: gatewayServiceName(g),
      namespace,
      labels: { [managedByLabel]: managedByValue },
      annotations: { [gatewayServiceAnnotation]: `${g.metadata.namespace}/${g.metadata.name}` },
    },
    spec: { type: 'LoadBalancer', ports: mapped.map(([port, targetPort]) => ({ port, targetPort })) },
  };
}

function ports(result: ReturnType<typeof allocateGatewayPorts>): Record<string, [number, number][]> {
  return Object.fromEntries([...result.ports].map(([k, v]) => [k, [...v]]));
}

const wide = { namespace: 'envoy-ingress', portRange: { first: 20000, last: 20999 } };
const allPorts = (result: ReturnType<typeof allocateGatewayPorts>): number[] => [...result.ports.values()].flatMap((m) => [...m.values()]);

test('new Gateways get distinct ports of the range, never a reserved one, the same in every run', (t) => {
  const a = gateway('a', 1, [443, 80]);
  const b = gateway('b', 2, [80]);
  const result = allocateGatewayPorts([a, b], [], settings, new Set([20001]));
  const given = allPorts(result);
  t.is(new Set(given).size, 3);
  t.true(given.every((p) => p >= 20000 && p <= 20004 && p !== 20001));
  t.deepEqual(ports(result), ports(allocateGatewayPorts([a, b], [], settings, new Set([20001]))));
  t.is(result.exhausted.size, 0);
});

test('Gateways seen one at a time, in either order, or together get the same ports (no swap between builds or replicas)', (t) => {
  const a = gateway('a', 1, [80]);
  const b = gateway('b', 1, [80]);
  const c = gateway('c', 1, [80, 443]);
  const together = ports(allocateGatewayPorts([a, b, c], [], wide, new Set()));
  // b alone first (its ports recorded), then all three while a's and c's are not yet recorded.
  const bAlone = allocateGatewayPorts([b], [], wide, new Set());
  const later = ports(allocateGatewayPorts([a, b, c], [recordOf([[b, [...(bAlone.ports.get('apps/b') ?? [])]]])], wide, new Set()));
  t.deepEqual(later, together);
  t.deepEqual(ports(allocateGatewayPorts([c], [], wide, new Set()))['apps/c'], together['apps/c']);
});

test('a Gateway keeps the ports the record says: a new older-looking Gateway does not move them', (t) => {
  const b = gateway('b', 2, [80]);
  // A Gateway created with an earlier timestamp than b (clock skew, restore) but new to the controller.
  const a = gateway('a', 1, [80]);
  const result = allocateGatewayPorts([a, b], [recordOf([[b, [[80, 20000]]]])], settings, new Set());
  t.deepEqual(ports(result)['apps/b'], [[80, 20000]]);
  t.not(ports(result)['apps/a']?.[0]?.[1], 20000);
});

test('deleting a Gateway does not move the others', (t) => {
  const a = gateway('a', 1, [80]);
  const b = gateway('b', 2, [80]);
  const c = gateway('c', 3, [80]);
  const before = allocateGatewayPorts([a, b, c], [], settings, new Set());
  const record = recordOf([b, c].map((g) => [g, [...(before.ports.get(gatewayKey(g)) ?? [])]]));
  const after = allocateGatewayPorts([b, c], [record], settings, new Set());
  t.deepEqual(ports(after), { 'apps/b': ports(before)['apps/b'], 'apps/c': ports(before)['apps/c'] });
});

test('a recorded port outside the range, reserved, or kept by an older Gateway is given anew', (t) => {
  const a = gateway('a', 1, [80]);
  const b = gateway('b', 2, [80, 81, 82]);
  const record = recordOf([
    [a, [[80, 20003]]],
    [b, [[80, 20003], [81, 30000], [82, 20001]]],
  ]);
  const result = allocateGatewayPorts([a, b], [record], settings, new Set([20001]));
  t.deepEqual(ports(result)['apps/a'], [[80, 20003]]);
  const given = allPorts(result);
  t.is(new Set(given).size, 4);
  t.true(given.every((p) => p >= 20000 && p <= 20004 && p !== 20001));
});

test('Services outside the controller namespace or not managed by us record nothing', (t) => {
  const a = gateway('a', 1, [80]);
  const foreign = serviceOf(a, [[80, 20004]], 'apps');
  const unlabelled: Service = { ...serviceOf(a, [[80, 20003]]), metadata: { ...serviceOf(a, []).metadata, labels: {} } };
  t.deepEqual(ports(allocateGatewayPorts([a], [foreign, unlabelled], settings, new Set())), ports(allocateGatewayPorts([a], [], settings, new Set())));
});

test('past the end of the range a listener port gets none and is reported', (t) => {
  const a = gateway('a', 1, [80, 81, 82, 83]);
  const b = gateway('b', 2, [80, 81]);
  const result = allocateGatewayPorts([a, b], [], settings, new Set());
  const ofA = (ports(result)['apps/a'] ?? []).map(([, p]) => p);
  t.is(ofA.length, 4);
  const left = [20000, 20001, 20002, 20003, 20004].filter((p) => !ofA.includes(p));
  t.deepEqual(ports(result)['apps/b'], [[80, left[0] ?? -1]]);
  t.deepEqual([...result.exhausted], [['apps/b', [81]]]);
});

test('the upgrade: a Service the controller kept in its own namespace before the record existed still gives its ports; the record wins over it', (t) => {
  const a = gateway('a', 1, [80]);
  const legacy = serviceOf(a, [[80, 20003]]);
  t.deepEqual(ports(allocateGatewayPorts([a], [legacy], settings, new Set()))['apps/a'], [[80, 20003]]);
  // The manager records them: the same ports, with or without the old Service (it goes once the new one exists).
  const record = recordOf([[a, [[80, 20003]]]]);
  t.deepEqual(ports(allocateGatewayPorts([a], [legacy, record], settings, new Set()))['apps/a'], [[80, 20003]]);
  t.deepEqual(ports(allocateGatewayPorts([a], [record], settings, new Set()))['apps/a'], [[80, 20003]]);
  // Both present and disagreeing: the record wins.
  t.deepEqual(ports(allocateGatewayPorts([a], [serviceOf(a, [[80, 20001]]), record], settings, new Set()))['apps/a'], [[80, 20003]]);
});

test("a tenant rewriting its own Gateway's Service to a younger Gateway's Envoy port takes nothing: the Services in Gateway namespaces are not read", (t) => {
  const attacker = gateway('attacker', 1, [80], 'tenant-a');
  const victim = gateway('victim', 2, [80], 'tenant-b');
  const before = allocateGatewayPorts([attacker, victim], [], wide, new Set());
  const victimsPort = before.ports.get('tenant-b/victim')?.get(80) ?? -1;
  const record = recordOf([attacker, victim].map((g) => [g, [...(before.ports.get(gatewayKey(g)) ?? [])]]));
  // The attacker's Service (in its namespace, marked as ours for its own Gateway) now targets the victim's port.
  const rewritten = serviceOf(attacker, [[80, victimsPort]], 'tenant-a');
  const after = allocateGatewayPorts([attacker, victim], [record, rewritten], wide, new Set());
  t.deepEqual(ports(after), ports(before));
  t.is(after.ports.get('tenant-b/victim')?.get(80), victimsPort);
  // Not even before the record exists (an old Gateway-namespace Service is no record at all).
  t.deepEqual(ports(allocateGatewayPorts([attacker, victim], [rewritten], wide, new Set())), ports(before));
});

test("a recorded entry of another uid (a deleted Gateway's, same name) is not kept; one without a uid is", (t) => {
  const a: Gateway = { ...gateway('a', 1, [80]), metadata: { ...gateway('a', 1, [80]).metadata, uid: 'new' } };
  const free = ports(allocateGatewayPorts([a], [], settings, new Set()))['apps/a'];
  const elsewhere = free?.[0]?.[1] === 20004 ? 20003 : 20004;
  const stale = recordOf([[{ ...a, metadata: { ...a.metadata, uid: 'old' } }, [[80, elsewhere]]]]);
  t.deepEqual(ports(allocateGatewayPorts([a], [stale], settings, new Set()))['apps/a'], free);
  const same = recordOf([[a, [[80, elsewhere]]]]);
  t.deepEqual(ports(allocateGatewayPorts([a], [same], settings, new Set()))['apps/a'], [[80, elsewhere]]);
  const { uid: _uid, ...withoutUid } = a.metadata;
  t.deepEqual(ports(allocateGatewayPorts([a], [recordOf([[{ ...a, metadata: withoutUid }, [[80, elsewhere]]]])], settings, new Set()))['apps/a'], [[80, elsewhere]]);
});

test('the record reads what it wrote, and skips what a hand edit broke', (t) => {
  const a = gateway('a', 1, [80, 443]);
  const record = recordOf([[a, [[443, 20002], [80, 20001]]]]);
  t.deepEqual([...(readGatewayPortRecord(record).get('apps/a')?.ports ?? [])], [[80, 20001], [443, 20002]]);
  t.regex(record.data?.['gateways.json'] ?? '', /^\{\n"apps\/a": \{"ports":\{"80":20001,"443":20002\}\}\n\}\n$/);
  const broken = (text: string): ConfigMap => ({ ...record, data: { 'gateways.json': text } });
  t.is(readGatewayPortRecord(broken('not json')).size, 0);
  t.deepEqual([...readGatewayPortRecord(broken('{"apps/a": {"ports": {"80": "x", "81": 20001}}, "bad": {"ports": {}}, "apps/b": 3}'))].map(([k, v]) => [k, [...v.ports]]), [['apps/a', [[81, 20001]]]]);
  // Two controllerNames, two records.
  t.not(gatewayPortRecordName(controllerName), gatewayPortRecordName('example.com/second'));
  t.regex(gatewayPortRecordName(controllerName), /^envoy-ingress-gateway-ports-[0-9a-f]{8}$/);
});

test("a Service in a tenant's namespace cannot record ports for another namespace's Gateway", (t) => {
  const a = gateway('a', 2, [80]);
  const free = ports(allocateGatewayPorts([a], [], settings, new Set()))['apps/a'];
  const claim = serviceOf(a, [[80, (free?.[0]?.[1] ?? 20000) === 20004 ? 20000 : 20004]], 'tenant');
  t.deepEqual(ports(allocateGatewayPorts([a], [claim], settings, new Set()))['apps/a'], free);
});

test('Service names fit a DNS label and differ for look-alike keys', (t) => {
  const long = gateway('x'.repeat(200), 1, [80], 'n'.repeat(60));
  t.true(gatewayServiceName(long).length <= 63);
  t.regex(gatewayServiceName(long), /^[a-z]([-a-z0-9]*[a-z0-9])?$/);
  t.not(gatewayServiceName(gateway('c', 1, [80], 'a-b')), gatewayServiceName(gateway('b-c', 1, [80], 'a')));
  t.regex(gatewayServiceName(gateway('web', 1, [80], 'apps')), /^gw-apps-web-[0-9a-f]{8}$/);
});

test("cluster mode: a Gateway's Service is referenced before it exists, so its creation and its load balancer address start a build", async (t) => {
  const { translate } = await import('../translate.js');
  const { defaultTranslateOptions } = await import('../shared/options.js');
  const ourClass = { kind: 'GatewayClass' as const, metadata: { name: 'c' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } };
  const a = gateway('a', 1, [80]);
  const result = translate(
    { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], endpoints: [], secrets: [], gatewayClasses: [ourClass], gateways: [a] },
    { ...defaultTranslateOptions, gatewayAddressing: { mode: 'service', ...settings } },
  );
  t.true(result.references.services.includes(`apps/${gatewayServiceName(a)}`));
  // And the port record, so an edit of it (or its creation) moves the ports served.
  t.true(result.references.configMaps?.includes(`envoy-ingress/${gatewayPortRecordName(controllerName)}`));
});

import test from 'ava';
import type { Gateway, Service } from '../shared/kube-objects.js';
import { allocateGatewayPorts } from './gateway-ports.js';
import { gatewayServiceAnnotation, gatewayServiceName, managedByLabel, managedByValue } from './gateway-service.js';

const settings = { namespace: 'envoy-ingress', portRange: { first: 20000, last: 20004 } };

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
  // b alone first (its Service written back), then all three while a's and c's Services are not yet in the store.
  const bAlone = allocateGatewayPorts([b], [], wide, new Set());
  const later = ports(allocateGatewayPorts([a, b, c], [serviceOf(b, [...(bAlone.ports.get('apps/b') ?? [])])], wide, new Set()));
  t.deepEqual(later, together);
  t.deepEqual(ports(allocateGatewayPorts([c], [], wide, new Set()))['apps/c'], together['apps/c']);
});

test('a Gateway keeps the ports its Service records: a new older-looking Gateway does not move them', (t) => {
  const b = gateway('b', 2, [80]);
  // A Gateway created with an earlier timestamp than b (clock skew, restore) but new to the controller.
  const a = gateway('a', 1, [80]);
  const result = allocateGatewayPorts([a, b], [serviceOf(b, [[80, 20000]])], settings, new Set());
  t.deepEqual(ports(result)['apps/b'], [[80, 20000]]);
  t.not(ports(result)['apps/a']?.[0]?.[1], 20000);
});

test('deleting a Gateway does not move the others', (t) => {
  const a = gateway('a', 1, [80]);
  const b = gateway('b', 2, [80]);
  const c = gateway('c', 3, [80]);
  const before = allocateGatewayPorts([a, b, c], [], settings, new Set());
  const services = [serviceOf(b, [...(before.ports.get('apps/b') ?? [])]), serviceOf(c, [...(before.ports.get('apps/c') ?? [])])];
  const after = allocateGatewayPorts([b, c], services, settings, new Set());
  t.deepEqual(ports(after), { 'apps/b': ports(before)['apps/b'], 'apps/c': ports(before)['apps/c'] });
});

test('a recorded port outside the range, reserved, or kept by an older Gateway is given anew', (t) => {
  const a = gateway('a', 1, [80]);
  const b = gateway('b', 2, [80, 81, 82]);
  const services = [serviceOf(a, [[80, 20003]]), serviceOf(b, [[80, 20003], [81, 30000], [82, 20001]])];
  const result = allocateGatewayPorts([a, b], services, settings, new Set([20001]));
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

test('the record of ports moves with the Service: one in the controller namespace (before) counts until one in the Gateway namespace exists, which wins', (t) => {
  const a = gateway('a', 1, [80]);
  const legacy = serviceOf(a, [[80, 20003]]);
  t.deepEqual(ports(allocateGatewayPorts([a], [legacy], settings, new Set()))['apps/a'], [[80, 20003]]);
  // The Service in the Gateway's namespace the manager wrote from that record: the same ports, before and after the old one goes.
  const moved = serviceOf(a, [[80, 20003]], 'apps');
  t.deepEqual(ports(allocateGatewayPorts([a], [legacy, moved], settings, new Set()))['apps/a'], [[80, 20003]]);
  t.deepEqual(ports(allocateGatewayPorts([a], [moved], settings, new Set()))['apps/a'], [[80, 20003]]);
  // Both present and disagreeing: the Gateway's namespace wins.
  t.deepEqual(ports(allocateGatewayPorts([a], [serviceOf(a, [[80, 20001]]), moved], settings, new Set()))['apps/a'], [[80, 20003]]);
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
});

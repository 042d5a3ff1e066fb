// The Gateway Service manager's order of writes and its port record writes while the store lags behind them (the
// watch has not brought them back yet), against an API that only records what it is asked. (Against a real API
// server: test/kube-gateway-services.test.ts.)
import test from 'ava';
import { ObjectStore } from '../store.js';
import { readGatewayPortRecord } from '../translate/gateway-api/gateway-port-record.js';
import type { ConfigMap, Gateway, GatewayClass } from '../translate/shared/kube-objects.js';
import { GatewayServiceManager } from './gateway-service-manager.js';
import type { GatewayServiceObject, ServiceApi } from './service-api.js';

const controllerName = 'envoy-ingress.io/gateway-controller';
const ours: GatewayClass = { kind: 'GatewayClass', metadata: { name: 'ours' }, spec: { controllerName } };

function gateway(name: string, ports: number[]): Gateway {
  return {
    kind: 'Gateway',
    metadata: { name, namespace: 'apps', uid: `uid-${name}`, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { gatewayClassName: 'ours', listeners: ports.map((port) => ({ name: `l${port}`, port, protocol: 'HTTP' })) },
  };
}

/** An API server that stores nothing the manager's store sees: every call is recorded, a ConfigMap gets a new resourceVersion. */
function recordingApi(): { api: ServiceApi; calls: string[]; records: ConfigMap[] } {
  const calls: string[] = [];
  const records: ConfigMap[] = [];
  let version = 500;
  const write = (verb: string, object: GatewayServiceObject | ConfigMap): ConfigMap | undefined => {
    if (object.kind === 'ConfigMap') records.push(object);
    calls.push(`${verb} ${object.kind} ${object.metadata.namespace ?? ''}${object.kind === 'ConfigMap' ? ` over ${object.metadata.resourceVersion ?? 'none'}` : ''}`);
    return object.kind === 'ConfigMap' ? { ...object, metadata: { ...object.metadata, resourceVersion: String(++version) } } : undefined;
  };
  const api = {
    create: async (object: GatewayServiceObject | ConfigMap) => write('create', object),
    replace: async (object: GatewayServiceObject | ConfigMap) => write('replace', object),
    delete: async () => undefined,
  };
  return { api: api as ServiceApi, calls, records };
}

test('the port record is written before any Service, once for all Gateways, and the next write starts from the one written though the store has not seen it', async (t) => {
  const store = new ObjectStore();
  store.upsert(ours);
  store.upsert(gateway('a', [80]));
  store.upsert(gateway('b', [80, 81]));
  const { api, calls, records: written } = recordingApi();
  const manager = new GatewayServiceManager(store, api, {
    controllerName,
    namespace: 'envoy-ingress',
    selector: { 'app.kubernetes.io/name': 'envoy-ingress' },
    portRange: { first: 20000, last: 20099 },
    reservedPorts: new Set(),
    isLeader: () => true,
    storeComplete: () => true,
    resyncIntervalMs: 0,
  });
  manager.start();
  await manager.idle();
  // The record first (created once, though both Gateway keys ran), then each Gateway's Service and EndpointSlice.
  t.is(calls[0], 'create ConfigMap envoy-ingress over none');
  t.is(calls.filter((c) => c.includes('ConfigMap')).length, 1);
  t.deepEqual(calls.slice(1).sort(), ['create EndpointSlice apps', 'create EndpointSlice apps', 'create Service apps', 'create Service apps']);
  t.deepEqual([...readGatewayPortRecord(written[0]).keys()], ['apps/a', 'apps/b']);
  // A Gateway changes while the store still lacks the record: the update is of the record written (its
  // resourceVersion), not a second create, and keeps the ports it gave.
  calls.length = 0;
  store.upsert(gateway('b', [80, 81, 82]));
  await manager.idle();
  t.is(calls.filter((c) => c.includes('ConfigMap'))[0], 'replace ConfigMap envoy-ingress over 501');
  const before = readGatewayPortRecord(written[0]).get('apps/b')?.ports;
  const after = readGatewayPortRecord(written[1]).get('apps/b')?.ports;
  t.is(after?.get(80), before?.get(80));
  t.is(after?.get(81), before?.get(81));
  t.is(after?.size, 3);
  // The store catches up: nothing more to write for the record.
  store.upsert({ ...(written[1] as ConfigMap), metadata: { ...(written[1] as ConfigMap).metadata, resourceVersion: '502' } });
  calls.length = 0;
  manager.resync();
  await manager.idle();
  t.false(calls.some((c) => c.includes('ConfigMap')), calls.join('; '));
  await manager.stop();
});

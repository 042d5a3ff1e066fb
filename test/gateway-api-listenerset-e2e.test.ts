// End to end for ListenerSets (standalone mode, a real Envoy): a Gateway in `infra` takes the ListenerSets of the
// namespaces its allowedListeners selector admits. A taken set's listeners are served on their own port (one the
// Gateway itself does not have) and on the Gateway's port, with the routes attached to the set; a set of a namespace
// the Gateway does not admit is not served at all; a taken set cannot take a hostname the Gateway's own listener
// serves (that host keeps answering with the Gateway's route); a route attached to the Gateway is not served on a
// set's hostnames.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

test('ListenerSet: a taken set\'s listeners serve its routes on their port and hostname; a set the Gateway does not admit is not served; the Gateway keeps its hostnames', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const backends = {
    gateway: await useEchoBackend(t, { service: 'gateway-app' }),
    teamA: await useEchoBackend(t, { service: 'team-a-app' }),
    teamB: await useEchoBackend(t, { service: 'team-b-app' }),
  };
  const [gatewayPort, setPort] = [await freePort(), await freePort()];
  const namespace = (name: string, labels: Record<string, string> = {}): object => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  const listenerSet = (name: string, ns: string, listeners: object[]): object => ({
    apiVersion: gatewayApi,
    kind: 'ListenerSet',
    metadata: { name, namespace: ns },
    spec: { parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'shared', namespace: 'infra' }, listeners },
  });
  const route = (name: string, ns: string, parentRefs: object[], service: string): object => ({
    apiVersion: gatewayApi,
    kind: 'HTTPRoute',
    metadata: { name, namespace: ns },
    spec: { parentRefs, rules: [{ backendRefs: [{ name: service, port: 80 }] }] },
  });
  const toSet = (name: string, sectionName?: string): object => ({ group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name, ...(sectionName === undefined ? {} : { sectionName }) });
  const objects = [
    namespace('infra'),
    namespace('team-a', { 'gateway-access': 'granted' }),
    namespace('team-b'),
    ...serviceWithEndpoints('gateway-app', [{ address: backends.gateway.address, port: backends.gateway.port }], 'infra'),
    ...serviceWithEndpoints('team-a-app', [{ address: backends.teamA.address, port: backends.teamA.port }], 'team-a'),
    ...serviceWithEndpoints('team-b-app', [{ address: backends.teamB.address, port: backends.teamB.port }], 'team-b'),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'shared', namespace: 'infra' },
      spec: {
        gatewayClassName: 'envoy',
        allowedListeners: { namespaces: { from: 'Selector', selector: { matchLabels: { 'gateway-access': 'granted' } } } },
        listeners: [{ name: 'main', port: gatewayPort, protocol: 'HTTP', hostname: 'www.example.test' }],
      },
    },
    route('site', 'infra', [{ name: 'shared' }], 'gateway-app'),
    // Admitted: a listener on a port of its own and one on the Gateway's port; another tries the Gateway's hostname.
    listenerSet('team-a', 'team-a', [
      { name: 'own-port', port: setPort, protocol: 'HTTP', hostname: 'a.example.test', allowedRoutes: { namespaces: { from: 'Same' } } },
      { name: 'shared-port', port: gatewayPort, protocol: 'HTTP', hostname: 'a2.example.test', allowedRoutes: { namespaces: { from: 'Same' } } },
      { name: 'grab', port: gatewayPort, protocol: 'HTTP', hostname: 'www.example.test', allowedRoutes: { namespaces: { from: 'Same' } } },
    ]),
    route('team-a', 'team-a', [toSet('team-a', 'own-port'), toSet('team-a', 'shared-port')], 'team-a-app'),
    route('team-a-grab', 'team-a', [toSet('team-a', 'grab')], 'team-a-app'),
    // Not admitted (its namespace lacks the label): nothing of it is served.
    listenerSet('team-b', 'team-b', [{ name: 'b', port: setPort, protocol: 'HTTP', hostname: 'b.example.test', allowedRoutes: { namespaces: { from: 'Same' } } }]),
    route('team-b', 'team-b', [toSet('team-b')], 'team-b-app'),
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  await stack.envoy.waitForListener(`gateway/http/${setPort}`);

  const at = async (port: number, host: string): Promise<string> => {
    const res = await httpGet({ port, hostHeader: host, path: '/' });
    return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
  };
  await waitFor(async () => (await at(setPort, 'a.example.test')) === 'team-a-app', { description: 'the set listener on its own port serves its route' });
  t.is(await at(gatewayPort, 'a2.example.test'), 'team-a-app', 'the set listener on the Gateway\'s port');
  t.is(await at(gatewayPort, 'www.example.test'), 'gateway-app', 'the Gateway keeps its hostname: the set listener naming it is refused');
  t.is(await at(setPort, 'b.example.test'), 'status 404', 'a set the Gateway does not admit is not served');
  t.is(await at(gatewayPort, 'b.example.test'), 'status 404');
  t.is(await at(setPort, 'www.example.test'), 'status 404', 'a route attached to the Gateway is not served on a set\'s listener');
  t.is(await at(gatewayPort, 'a.example.test'), 'status 404', 'a set listener\'s hostname only on its own port');
});

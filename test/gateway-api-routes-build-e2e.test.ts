// End to end: HTTPRoute edits, and an Ingress edit beside them, are routes builds (controller/translate/
// incremental-translate.ts) that a real Envoy serves: a path added, a backend changed, a host moved from one route to
// another, a route deleted, an Ingress path added, a missing backend Service created, on a Gateway listener joined to
// the Ingress port and on one of its own; every other host keeps answering as before, and Envoy gets no listener update.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

test('HTTPRoute and Ingress edits beside our Gateways are routes builds, served by Envoy as a full build would', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const backends = { web: await useEchoBackend(t, { service: 'web' }), api: await useEchoBackend(t, { service: 'api' }) };
  const services = Object.entries(backends).flatMap(([name, b]) => serviceWithEndpoints(name, [{ address: b.address, port: b.port }]));
  await writeFile(path.join(tmp.path, 'base.yaml'), toYaml([ingressClass()]));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  const ownPort = await freePort();
  const route = (name: string, hostnames: string[], rules: { path: string; service: string }[], created: string): object => ({
    apiVersion: gatewayApi,
    kind: 'HTTPRoute',
    metadata: { name, namespace: 'default', creationTimestamp: created },
    spec: {
      parentRefs: [{ name: 'gw' }],
      hostnames,
      rules: rules.map((r) => ({ matches: [{ path: { type: 'PathPrefix', value: r.path } }], backendRefs: [{ name: r.service, port: 80 }] })),
    },
  });
  const fixed = [
    ingressClass(),
    ...services,
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'default' },
      spec: {
        gatewayClassName: 'envoy',
        listeners: [
          { name: 'shared', port: stack.httpPort, protocol: 'HTTP' },
          { name: 'own', port: ownPort, protocol: 'HTTP' },
        ],
      },
    },
  ];
  // The manifest source upserts every object of a changed file: the routes and the Ingress have files of their own,
  // so an edit changes no GatewayClass, Gateway or Service.
  const writeRoutes = (routes: object[]): Promise<void> => writeFile(path.join(tmp.path, 'routes.yaml'), toYaml(routes));
  const writeIngress = (ingress: object): Promise<void> => writeFile(path.join(tmp.path, 'ingress.yaml'), toYaml([ingress]));
  const legacy = (paths: { path: string; service: string }[]): object => ingress('legacy', { rules: [{ host: 'legacy.example.test', paths }] });
  let shop = route('shop', ['shop.example.test'], [{ path: '/', service: 'web' }], '2026-01-01T00:00:00Z');
  let other = route('other', ['other.example.test'], [{ path: '/', service: 'api' }], '2026-01-02T00:00:00Z');
  let ing = legacy([{ path: '/', service: 'web' }]);
  await writeRoutes([shop, other]);
  await writeIngress(ing);
  await writeFile(path.join(tmp.path, 'base.yaml'), toYaml(fixed));

  const at = async (port: number, host: string, p: string): Promise<string> => {
    const res = await httpGet({ port, hostHeader: host, path: p });
    return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
  };
  const answers = async (): Promise<string[]> => [
    await at(stack.httpPort, 'shop.example.test', '/api/x'),
    await at(ownPort, 'shop.example.test', '/api/x'),
    await at(stack.httpPort, 'other.example.test', '/'),
    await at(ownPort, 'other.example.test', '/'),
    // Tells the host move apart from the step before it: other's /api goes to shop's api rule only once moved.
    await at(ownPort, 'other.example.test', '/api/x'),
    await at(stack.httpPort, 'legacy.example.test', '/x'),
  ];
  const expect = async (want: string[], description: string): Promise<void> => {
    await waitFor(async () => JSON.stringify(await answers()) === JSON.stringify(want), { description, timeoutMs: 15_000 });
    t.deepEqual(await answers(), want, description);
  };
  const routesBuilds = (): number => stack.logs().split('\n').filter((l) => l.includes('config built') && l.includes('"kind":"routes"')).length;
  // The log line is read from the child's stdout, which may trail Envoy's answer by a moment.
  const routesBuildSince = async (before: number, label: string): Promise<void> => {
    await waitFor(() => routesBuilds() > before, { description: label, timeoutMs: 5_000 }).catch(() => undefined);
    t.true(routesBuilds() > before, label);
  };
  await expect(['web', 'web', 'api', 'api', 'api', 'web'], 'the first build');
  // Route edits reach Envoy as virtual hosts (VHDS): no listener update, which would make Envoy drain and warm the
  // listener (the builds encode the Gateway listeners again; the same bytes are not sent).
  const listenerUpdates = async (): Promise<number> => (await stack.envoy.stats('listener_manager.lds'))['listener_manager.lds.update_attempt'] ?? Number.NaN;
  const listenerUpdatesBefore = await listenerUpdates();
  t.true(listenerUpdatesBefore >= 1, `Envoy took the listeners over LDS (${listenerUpdatesBefore} updates)`);

  const steps: [string, () => object[] | object, string[]][] = [
    ['a path added to shop', () => [(shop = route('shop', ['shop.example.test'], [{ path: '/', service: 'web' }, { path: '/api', service: 'api' }], '2026-01-01T00:00:00Z')), other], ['api', 'api', 'api', 'api', 'api', 'web']],
    ['other sends to web', () => [shop, (other = route('other', ['other.example.test'], [{ path: '/', service: 'web' }], '2026-01-02T00:00:00Z'))], ['api', 'api', 'web', 'web', 'web', 'web']],
    // other.example.test moves to shop (its /api path to api); other keeps no host.
    ['a host moved from other to shop', () => {
      shop = route('shop', ['shop.example.test', 'other.example.test'], [{ path: '/', service: 'web' }, { path: '/api', service: 'api' }], '2026-01-01T00:00:00Z');
      other = route('other', ['gone.example.test'], [{ path: '/', service: 'web' }], '2026-01-02T00:00:00Z');
      return [shop, other];
    }, ['api', 'api', 'web', 'web', 'api', 'web']],
    ['an Ingress path added', () => (ing = legacy([{ path: '/', service: 'web' }, { path: '/x', service: 'api' }])), ['api', 'api', 'web', 'web', 'api', 'api']],
    ['shop deleted', () => [other], ['status 404', 'status 404', 'status 404', 'status 404', 'status 404', 'api']],
  ];
  for (const [label, change, want] of steps) {
    const before = routesBuilds();
    const changed = change();
    await (Array.isArray(changed) ? writeRoutes(changed) : writeIngress(changed));
    // Every step's answers differ from the step before it, so they cannot match before the edit is served.
    await expect(want, label);
    await routesBuildSince(before, `${label}: a routes build`);
  }

  // A backend Service created for a route that named it before it existed (500 until then): a routes build too
  // (route-work.ts servicesChanged remakes the routes naming it), in a file of its own.
  const late = route('late', ['late.example.test'], [{ path: '/', service: 'late' }], '2026-01-03T00:00:00Z');
  const lateAnswer = async (want: string, label: string): Promise<void> => {
    await waitFor(async () => (await at(ownPort, 'late.example.test', '/')) === want, { description: label, timeoutMs: 15_000 });
    t.is(await at(ownPort, 'late.example.test', '/'), want, label);
  };
  let before = routesBuilds();
  await writeRoutes([other, late]);
  await lateAnswer('status 500', 'a route to a missing Service');
  await routesBuildSince(before, 'a route to a missing Service: a routes build');
  before = routesBuilds();
  await writeFile(path.join(tmp.path, 'late.yaml'), toYaml(serviceWithEndpoints('late', [{ address: backends.api.address, port: backends.api.port }])));
  await lateAnswer('api', 'its Service created');
  await routesBuildSince(before, 'its Service created: a routes build');
  t.is(await at(stack.httpPort, 'legacy.example.test', '/x'), 'api', 'the Ingress keeps answering');
  t.is(await listenerUpdates(), listenerUpdatesBefore, 'no listener update for route and Service edits');
});

// Hitless changes through the real Envoy: a route change touches only RDS, a certificate rotation only SDS, an
// endpoint change only EDS, and none of them modifies, removes or drains a listener. Adding a TLS host does
// change the HTTPS listener (a new SNI filter chain), which Envoy applies in place: connections on the chains
// that did not change keep going.
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import type { EchoBackend } from './harness/echo-backend.js';
import { createKeepAliveAgent, createKeepAliveHttpsAgent, httpGet, httpsGet } from './harness/http-client.js';
import { startRequestLoop } from './harness/request-loop.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type TestCA } from './harness/test-certs.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { startStack, type Stack } from './fixtures/standalone-stack.js';
import { counterChanges } from './harness/counter-changes.js';

/** Every counter the tests compare: listener churn and each xDS type's accepted updates. */
const watched =
  'listener_manager\\.(listener_modified|listener_removed|listener_in_place_updated|total_listeners_draining|lds\\.update_success)' +
  '|cluster_manager\\.cds\\.update_success|\\.rds\\..*update_success|^sds\\..*update_success|^cluster\\.[^.]+\\.update_success';

interface World {
  dir: string;
  ca: TestCA;
  stack: Stack;
  backends: Record<'web' | 'api' | 'web2', EchoBackend>;
}

async function writeManifest(dir: string, name: string, objects: object[]): Promise<void> {
  const file = path.join(dir, name);
  await writeFile(`${file}.tmp`, toYaml(objects));
  await rename(`${file}.tmp`, file);
}

function ingresses(extraPath: boolean, hosts: string[] = ['secure.example.test']): object[] {
  return [
    ingress('shop', {
      rules: [
        {
          host: 'shop.example.test',
          paths: [{ path: '/', service: 'web' }, { path: '/api', service: 'api' }, ...(extraPath ? [{ path: '/v2', service: 'api' }] : [])],
        },
        ...hosts.map((host) => ({ host, paths: [{ path: '/', service: 'web' }] })),
      ],
      tls: hosts.map((host) => ({ hosts: [host], secretName: `${host.split('.')[0]}-tls` })),
    }),
  ];
}

async function setUp(t: ExecutionContext): Promise<World> {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const ca = await createTestCA();
  const backends = {
    web: await useEchoBackend(t, { service: 'web' }),
    api: await useEchoBackend(t, { service: 'api' }),
    web2: await useEchoBackend(t, { service: 'web2' }),
  };
  const secure = await ca.issue({ dnsNames: ['secure.example.test'] });
  const other = await ca.issue({ dnsNames: ['other.example.test'] });
  await writeManifest(tmp.path, 'base.yaml', [
    ingressClass(),
    ...serviceWithEndpoints('api', [{ address: backends.api.address, port: backends.api.port }]),
    tlsSecret('secure-tls', secure.certPem, secure.keyPem),
    tlsSecret('other-tls', other.certPem, other.keyPem),
  ]);
  await writeManifest(tmp.path, 'web.yaml', serviceWithEndpoints('web', [{ address: backends.web.address, port: backends.web.port }]));
  await writeManifest(tmp.path, 'ingress.yaml', ingresses(false));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener('ingress_http');
  await stack.envoy.waitForListener('ingress_https');
  return { dir: tmp.path, ca, stack, backends };
}

async function counters(w: World): Promise<Record<string, number>> {
  return w.stack.envoy.stats(watched);
}

async function serviceAt(w: World, host: string, p: string): Promise<string> {
  const res = await httpGet({ port: w.stack.httpPort, hostHeader: host, path: p });
  return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
}

async function stable(w: World): Promise<Record<string, number>> {
  // The controller has nothing left to push and Envoy ACKed it: counters are settled.
  await w.stack.controller.reconciler.idle();
  let last = await counters(w);
  await w.stack.envoy.waitUntil(async () => {
    const now = await counters(w);
    const same = JSON.stringify(now) === JSON.stringify(last);
    last = now;
    return same;
  }, 10_000, 'counters settle');
  return last;
}

function assertNoListenerChurn(t: ExecutionContext, delta: Record<string, number>): void {
  for (const name of Object.keys(delta)) {
    t.false(name.startsWith('listener_manager.'), `listener counter changed: ${name} ${JSON.stringify(delta)}`);
  }
}

test('a route change updates RDS only: no listener, cluster or endpoint update', async (t) => {
  const w = await setUp(t);
  t.is(await serviceAt(w, 'shop.example.test', '/v2'), 'web');
  const before = await stable(w);
  await writeManifest(w.dir, 'ingress.yaml', ingresses(true));
  await w.stack.envoy.waitUntil(async () => (await serviceAt(w, 'shop.example.test', '/v2')) === 'api', 15_000, 'route applied');
  const delta = counterChanges(before, await stable(w));
  t.log(delta);
  assertNoListenerChurn(t, delta);
  const kinds = Object.keys(delta).map((n) => (n.includes('.rds.') ? 'rds' : n));
  t.true(kinds.length > 0 && kinds.every((k) => k === 'rds'), JSON.stringify(delta));
});

test('a certificate rotation updates SDS only, and new handshakes get the new certificate', async (t) => {
  const w = await setUp(t);
  const first = await httpsGet({ port: w.stack.httpsPort, hostHeader: 'secure.example.test', servername: 'secure.example.test', path: '/', ca: w.ca.certPem });
  const before = await stable(w);
  const rotated = await w.ca.issue({ dnsNames: ['secure.example.test'] });
  const secure = tlsSecret('secure-tls', rotated.certPem, rotated.keyPem);
  const base = [ingressClass(), ...serviceWithEndpoints('api', [{ address: w.backends.api.address, port: w.backends.api.port }])];
  const other = await w.ca.issue({ dnsNames: ['other.example.test'] });
  await writeManifest(w.dir, 'base.yaml', [...base, secure, tlsSecret('other-tls', other.certPem, other.keyPem)]);
  await w.stack.envoy.waitUntil(async () => {
    const res = await httpsGet({ port: w.stack.httpsPort, hostHeader: 'secure.example.test', servername: 'secure.example.test', path: '/', ca: w.ca.certPem });
    return res.peerCertificate?.serialNumber !== first.peerCertificate?.serialNumber;
  }, 15_000, 'rotated certificate served');
  const delta = counterChanges(before, await stable(w));
  t.log(delta);
  assertNoListenerChurn(t, delta);
  const kinds = Object.keys(delta).map((n) => (n.startsWith('sds.') ? 'sds' : n));
  t.true(kinds.length > 0 && kinds.every((k) => k === 'sds'), JSON.stringify(delta));
});

test('an endpoint change updates EDS only', async (t) => {
  const w = await setUp(t);
  const before = await stable(w);
  await writeManifest(w.dir, 'web.yaml', serviceWithEndpoints('web', [{ address: w.backends.web2.address, port: w.backends.web2.port }]));
  await w.stack.envoy.waitUntil(async () => (await serviceAt(w, 'shop.example.test', '/')) === 'web2', 15_000, 'endpoint applied');
  const delta = counterChanges(before, await stable(w));
  t.log(delta);
  assertNoListenerChurn(t, delta);
  const kinds = Object.keys(delta).map((n) => (/^cluster\.[^.]+\.update_success$/.test(n) && n !== 'cluster_manager.cds.update_success' ? 'eds' : n));
  t.true(kinds.length > 0 && kinds.every((k) => k === 'eds'), JSON.stringify(delta));
});

test('adding a TLS host changes the HTTPS listener in place: an open connection on another host keeps working', async (t) => {
  const w = await setUp(t);
  // One kept-alive TLS connection to the host that exists already.
  const agent = createKeepAliveHttpsAgent();
  t.teardown(() => agent.destroy());
  const open = () =>
    httpsGet({ port: w.stack.httpsPort, hostHeader: 'secure.example.test', servername: 'secure.example.test', path: '/', ca: w.ca.certPem, agent });
  const socketInUse = () => Object.values(agent.freeSockets).flat()[0];
  t.is((await open()).status, 200);
  const socket = socketInUse();
  t.truthy(socket);
  const before = await stable(w);
  await writeManifest(w.dir, 'ingress.yaml', ingresses(false, ['secure.example.test', 'other.example.test']));
  await w.stack.envoy.waitUntil(async () => {
    const res = await httpsGet({ port: w.stack.httpsPort, hostHeader: 'other.example.test', servername: 'other.example.test', path: '/', ca: w.ca.certPem }).catch(() => undefined);
    return res?.status === 200;
  }, 15_000, 'new TLS host served');
  const delta = counterChanges(before, await stable(w));
  t.log(delta);
  // The HTTP listener's route table changed (new host) over RDS; the HTTPS listener got a filter chain in place.
  t.is(delta['listener_manager.listener_in_place_updated'], 1, JSON.stringify(delta));
  t.is(delta['listener_manager.listener_removed'], undefined);
  // Same connection, not drained: its filter chain did not change.
  t.is((await open()).status, 200);
  t.is(socketInUse(), socket);
  t.false(socket?.destroyed);
});

/**
 * Blue/green by editing the Ingress: the route moves to a Service nothing else uses, so in the same change the
 * new cluster appears and the old one (and its endpoints) disappears. Make before break: the new cluster and its
 * endpoints first, then the route, and the old cluster and its endpoints only once the route that used it is
 * ACKed. Removing the old ClusterLoadAssignment with the new cluster (before the route moved) empties the old
 * cluster while requests still go to it: 503 "no healthy upstream".
 */
for (const protocol of ['delta', 'sotw'] as const) {
  test(`a route switched back and forth between two Services, each unused by anything else, under load: zero failed requests (${protocol})`, async (t) => {
    const tmp = await createTempDir();
    t.teardown(() => tmp.remove());
    const blue = await useEchoBackend(t, { service: 'blue' });
    const green = await useEchoBackend(t, { service: 'green' });
    const host = 'flip.example.test';
    await writeManifest(tmp.path, 'services.yaml', [
      ingressClass(),
      ...serviceWithEndpoints('blue', [{ address: blue.address, port: blue.port }]),
      ...serviceWithEndpoints('green', [{ address: green.address, port: green.port }]),
    ]);
    const routeTo = (service: string) => writeManifest(tmp.path, 'flip.yaml', [ingress('flip', { rules: [{ host, paths: [{ path: '/', service }] }] })]);
    await routeTo('blue');
    const stack = await startStack(t, { manifestsDir: tmp.path, xdsProtocol: protocol });
    const served = async (): Promise<string> => {
      const res = await httpGet({ port: stack.httpPort, hostHeader: host, path: '/' }).catch(() => undefined);
      return res?.status === 200 ? String(res.json?.service) : `status ${res?.status ?? 'error'}`;
    };
    await stack.envoy.waitUntil(async () => (await served()) === 'blue', 30_000, 'route to blue');
    const agent = createKeepAliveAgent();
    t.teardown(() => agent.destroy());
    const loop = startRequestLoop(
      async () => ({ status: (await httpGet({ port: stack.httpPort, hostHeader: host, path: '/', agent }).catch(() => ({ status: 0 }))).status }),
      { concurrency: 4, intervalMs: 1, maxRequests: 200_000, maxDurationMs: 150_000, isSuccess: (s) => s === 200 },
    );
    const clusters = () => [...stack.controller.cache.snapshot.resources.cluster.keys()];
    for (let i = 0; i < 6; i++) {
      const target = i % 2 === 0 ? 'green' : 'blue';
      const old = i % 2 === 0 ? 'blue' : 'green';
      await routeTo(target);
      await stack.envoy.waitUntil(async () => (await served()) === target, 30_000, `route to ${target}`);
      await stack.controller.reconciler.idle();
      // The scenario really removes the old Service's cluster (nothing else uses it).
      t.false(clusters().some((c) => c.includes(`/${old}/`)), `${old}'s cluster is gone: ${clusters().join(', ')}`);
    }
    const result = await loop.stop();
    const failedLines = stack.envoy.logs().split('\n').filter((l) => /"status":\s*5\d\d/.test(l)).slice(0, 5);
    t.true(result.total > 0);
    t.deepEqual(result.failures.length, 0, `${JSON.stringify(result.byStatus)}\n${failedLines.join('\n')}`);
  });
}

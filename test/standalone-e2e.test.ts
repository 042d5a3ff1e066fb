// End to end: manifests on disk -> controller (standalone mode) -> ADS -> a real Envoy -> loopback backends.
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import type { EchoBackend } from './harness/echo-backend.js';
import { httpGet, httpsGet, createKeepAliveAgent } from './harness/http-client.js';
import { startRequestLoop } from './harness/request-loop.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type TestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { startStack, type Stack } from './fixtures/standalone-stack.js';

interface World {
  dir: string;
  ca: TestCA;
  backends: Record<'web' | 'api' | 'fallback' | 'secure' | 'web2', EchoBackend>;
  stack: Stack;
}

/** Writes a manifest atomically (as `kubectl`-like tools and editors that save via rename do). */
async function writeManifest(dir: string, name: string, objects: object[]): Promise<void> {
  const file = path.join(dir, name);
  await writeFile(`${file}.tmp`, toYaml(objects));
  await rename(`${file}.tmp`, file);
}

function appIngresses(apiService: string): object[] {
  return [
    ingress('shop', {
      creationTimestamp: '2026-01-01T00:00:00Z',
      rules: [
        {
          host: 'shop.example.test',
          paths: [
            { path: '/', service: 'web' },
            { path: '/api', service: apiService },
            { path: '/exact', pathType: 'Exact', service: apiService },
          ],
        },
      ],
    }),
    ingress('secure', {
      rules: [{ host: 'secure.example.test', paths: [{ path: '/', service: 'secure' }] }],
      tls: [{ hosts: ['secure.example.test'], secretName: 'secure-tls' }],
    }),
    ingress('fallback', { defaultBackend: 'fallback' }),
  ];
}

async function setUp(t: ExecutionContext, xdsProtocol: 'sotw' | 'delta'): Promise<World> {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const dir = tmp.path;
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['secure.example.test'] });
  const backends = {
    web: await useEchoBackend(t, { service: 'web' }),
    api: await useEchoBackend(t, { service: 'api' }),
    fallback: await useEchoBackend(t, { service: 'fallback' }),
    secure: await useEchoBackend(t, { service: 'secure' }),
    web2: await useEchoBackend(t, { service: 'web2' }),
  };
  const services = Object.entries(backends).flatMap(([name, b]) => serviceWithEndpoints(name, [{ address: b.address, port: b.port }]));
  await writeManifest(dir, 'services.yaml', [ingressClass(), ...services, tlsSecret('secure-tls', cert.certPem, cert.keyPem)]);
  await writeManifest(dir, 'ingresses.yaml', appIngresses('api'));
  // The fallback Ingress is the operator's: its default backend answers every host (tenant-default-backends.ts).
  const stack = await startStack(t, { manifestsDir: dir, xdsProtocol, translate: { defaultBackendNamespace: 'default' } });
  await stack.envoy.waitForListener('ingress_http');
  await stack.envoy.waitForListener('ingress_https');
  return { dir, ca, backends, stack };
}

async function serviceAt(w: World, host: string, p: string): Promise<string> {
  const res = await httpGet({ port: w.stack.httpPort, hostHeader: host, path: p });
  return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
}

async function assertNoWarming(t: ExecutionContext, w: World): Promise<void> {
  const state = await w.stack.envoy.warmingState();
  t.deepEqual(state, { warmingClusters: [], warmingListeners: [] }, 'nothing warming in /config_dump');
}

for (const protocol of ['delta', 'sotw'] as const) {
  test(`${protocol}: requests reach the right backend by host and path, over HTTP and HTTPS`, async (t) => {
    const w = await setUp(t, protocol);
    t.is(await serviceAt(w, 'shop.example.test', '/'), 'web');
    t.is(await serviceAt(w, 'shop.example.test', '/anything/else'), 'web');
    t.is(await serviceAt(w, 'shop.example.test', '/api'), 'api');
    t.is(await serviceAt(w, 'shop.example.test', '/api/v1/items?x=1'), 'api');
    t.is(await serviceAt(w, 'shop.example.test', '/apix'), 'web', 'Prefix matches path elements, not characters');
    t.is(await serviceAt(w, 'shop.example.test', '/exact'), 'api');
    t.is(await serviceAt(w, 'SHOP.example.test:8080', '/api'), 'api', 'Host is case-insensitive and may carry a port');
    // Nothing matches: the default backend of the 'fallback' Ingress answers.
    t.is(await serviceAt(w, 'unknown.example.test', '/'), 'fallback');

    const echoed = await httpGet({ port: w.stack.httpPort, hostHeader: 'shop.example.test', path: '/api/v1?q=2' });
    t.is(echoed.json?.path, '/api/v1?q=2', 'path and query reach the backend unchanged');

    // HTTPS: SNI selects the certificate, verified against the test CA.
    const secure = await httpsGet({
      port: w.stack.httpsPort,
      hostHeader: 'secure.example.test',
      servername: 'secure.example.test',
      path: '/hello',
      ca: w.ca.certPem,
    });
    t.is(secure.status, 200);
    t.is(secure.json?.service, 'secure');
    // Plain HTTP to a TLS host redirects to HTTPS.
    const redirect = await httpGet({ port: w.stack.httpPort, hostHeader: 'secure.example.test', path: '/hello?a=1' });
    t.is(redirect.status, 301);
    t.is(redirect.headers.location, `https://secure.example.test:${w.stack.httpsPort}/hello?a=1`);
    await assertNoWarming(t, w);
  });

  test(`${protocol}: editing a manifest changes routing live with zero failed requests`, async (t) => {
    const w = await setUp(t, protocol);
    t.is(await serviceAt(w, 'shop.example.test', '/api'), 'api');
    const agent = createKeepAliveAgent();
    t.teardown(() => agent.destroy());
    const loop = startRequestLoop(
      () => httpGet({ port: w.stack.httpPort, hostHeader: 'shop.example.test', path: '/api/x', agent }),
      { concurrency: 4, intervalMs: 2, maxDurationMs: 60_000, isSuccess: (s) => s === 200 },
    );
    const fresh = startRequestLoop(() => httpGet({ port: w.stack.httpPort, hostHeader: 'shop.example.test', path: '/' }), {
      concurrency: 2,
      intervalMs: 2,
      maxDurationMs: 60_000,
      isSuccess: (s) => s === 200,
    });
    await waitFor(() => loop.snapshot().total > 50, { description: 'requests flowing' });
    // Change 1: move /api to another Service (a new cluster appears, the old one goes).
    await writeManifest(w.dir, 'ingresses.yaml', appIngresses('web2'));
    await waitFor(async () => (await serviceAt(w, 'shop.example.test', '/api')) === 'web2', { description: '/api served by web2' });
    await assertNoWarming(t, w);
    // Change 2: add a host.
    await writeManifest(w.dir, 'more.yaml', [ingress('blog', { rules: [{ host: 'blog.example.test', paths: [{ path: '/', service: 'api' }] }] })]);
    await waitFor(async () => (await serviceAt(w, 'blog.example.test', '/')) === 'api', { description: 'new host routed' });
    await assertNoWarming(t, w);
    // Change 3: move it back.
    await writeManifest(w.dir, 'ingresses.yaml', appIngresses('api'));
    await waitFor(async () => (await serviceAt(w, 'shop.example.test', '/api')) === 'api', { description: '/api back on api' });
    await assertNoWarming(t, w);
    await waitFor(() => loop.snapshot().total > 300, { description: 'more requests after the changes' });
    const result = await loop.stop();
    const freshResult = await fresh.stop();
    t.deepEqual(result.failures, [], `keep-alive requests: ${JSON.stringify(result.byStatus)}`);
    t.deepEqual(freshResult.failures, [], `fresh-connection requests: ${JSON.stringify(freshResult.byStatus)}`);
    t.true(result.total > 300);
    // Route changes never touched the listener: nothing was drained.
    const stats = await w.stack.envoy.stats('listener_manager\\.listener_(modified|removed)');
    t.is(stats['listener_manager.listener_removed'] ?? 0, 0);
  });
}

test('unmatched requests get the 404 page when there is no default backend', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const web = await useEchoBackend(t, { service: 'web' });
  await writeManifest(tmp.path, 'all.yaml', [
    ingressClass(),
    ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }]),
    ingress('only', { rules: [{ host: 'only.example.test', paths: [{ path: '/app', service: 'web' }] }] }),
  ]);
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener('ingress_http');
  const unknownHost = await httpGet({ port: stack.httpPort, hostHeader: 'nobody.example.test', path: '/' });
  t.is(unknownHost.status, 404);
  t.regex(unknownHost.body, /404 Not Found/);
  t.regex(String(unknownHost.headers['content-type']), /text\/html/);
  // A known host's unmatched path: the same page (Envoy's "no route" reply, mapped by the connection manager).
  const unknownPath = await httpGet({ port: stack.httpPort, hostHeader: 'only.example.test', path: '/other' });
  t.is(unknownPath.status, 404);
  t.is(unknownPath.body, unknownHost.body);
  t.regex(String(unknownPath.headers['content-type']), /text\/html/);
  const known = await httpGet({ port: stack.httpPort, hostHeader: 'only.example.test', path: '/app/x' });
  t.is(known.json?.service, 'web');
});

test('an endpoint-only change reaches Envoy as EDS alone: listeners, routes and clusters are not resent', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const a = await useEchoBackend(t, { service: 'a', host: '127.0.0.2' });
  const b = await useEchoBackend(t, { service: 'b', host: '127.0.0.3' });
  await writeManifest(tmp.path, 'app.yaml', [ingressClass(), ingress('app', { rules: [{ host: 'app.example.test', paths: [{ path: '/', service: 'app' }] }] })]);
  await writeManifest(tmp.path, 'endpoints.yaml', serviceWithEndpoints('app', [{ address: a.address, port: a.port }]));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener('ingress_http');
  t.is((await httpGet({ port: stack.httpPort, hostHeader: 'app.example.test', path: '/' })).json?.service, 'a');
  // RDS and VHDS of the one route configuration both listeners use.
  const updateCounters = '(cluster_manager\\.cds|listener_manager\\.lds|http\\.ingress_http\\.rds\\.(vhds\\.)?ingress)\\.update_success';
  const before = await stack.envoy.stats(updateCounters);
  t.deepEqual(Object.keys(before).sort(), [
    'cluster_manager.cds.update_success',
    'http.ingress_http.rds.ingress.update_success',
    'http.ingress_http.rds.vhds.ingress.update_success',
    'listener_manager.lds.update_success',
  ]);
  const sentBefore = stack.controller.server.stats.responses;
  // Same Service, the pod moved: only the EndpointSlice changes.
  await writeManifest(tmp.path, 'endpoints.yaml', serviceWithEndpoints('app', [{ address: b.address, port: b.port }]));
  await waitFor(async () => (await httpGet({ port: stack.httpPort, hostHeader: 'app.example.test', path: '/' })).json?.service === 'b', {
    description: 'traffic moved to the new endpoint',
  });
  const after = await stack.envoy.stats(updateCounters);
  t.deepEqual(after, before, 'CDS, LDS and RDS update counters did not move');
  t.is(stack.controller.server.stats.responses - sentBefore, 1, 'exactly one response (EDS) was sent');
});

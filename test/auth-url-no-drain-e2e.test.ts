// Issue 25 item 6: a tenant's change never drains other tenants' connections. Tenant B edits its auth-url 20
// times (each a different authorization path, so a different service setting); tenant A holds one kept-alive
// connection through it all. Each edit reaches Envoy (the check requests go to B's new path) as a route change
// only: the listener is never updated in place, no filter chain drains, and A's connection is never asked to close
// (with one ext_authz filter per auth-url setting, each edit was an LDS update that drained every connection).
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { createKeepAliveAgent, httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { nginxIngress } from './fixtures/nginx-manifests.js';
import { startStack } from './fixtures/standalone-stack.js';

const listenerStats = '^listener_manager\\.(listener_in_place_updated|listener_modified|total_filter_chains_draining|lds\\.update_success)$';
/** The filter configurations served over ECDS (the scripts): a tenant's change never reloads one either. */
const filterConfigStats = '^extension_config_discovery\\.http_filter\\..*\\.config_reload$';

/**
 * Tenant A's one kept-alive connection through the stack: `get` asks over it (200 expected); `assertNeverDrained`
 * checks, after the other tenant's edits, that it stayed one connection never told to close, and that Envoy made no
 * listener update since `watchKeptAlive` (an LDS update drains every connection of the listener).
 */
async function watchKeptAlive(t: ExecutionContext, stack: Awaited<ReturnType<typeof startStack>>): Promise<{ get: () => Promise<void>; assertNeverDrained: () => Promise<void> }> {
  const agent = createKeepAliveAgent();
  t.teardown(() => agent.destroy());
  const ports = new Set<number>();
  const closes: string[] = [];
  const get = async (): Promise<void> => {
    const res = await httpGet({ port: stack.httpPort, hostHeader: 'a.test', path: '/', agent });
    t.is(res.status, 200);
    if (res.headers.connection === 'close') closes.push('close');
  };
  // The local port of the agent's one socket identifies the connection.
  agent.on('free', (socket) => ports.add(socket.localPort ?? 0));
  await get();
  const before = await stack.envoy.stats(listenerStats);
  const filterConfigsBefore = await stack.envoy.stats(filterConfigStats);
  const assertNeverDrained = async (): Promise<void> => {
    // Longer than the stack's drain time (2 s): a drain would have closed the connection by now.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await get();
    const after = await stack.envoy.stats(listenerStats);
    t.deepEqual(closes, [], 'A was never told to close its connection');
    t.is(ports.size, 1, `A's requests went over ${ports.size} connections`);
    t.is(after['listener_manager.listener_in_place_updated'], before['listener_manager.listener_in_place_updated']);
    t.is(after['listener_manager.listener_modified'], before['listener_manager.listener_modified']);
    t.is(after['listener_manager.total_filter_chains_draining'] ?? 0, 0);
    t.is(after['listener_manager.lds.update_success'], before['listener_manager.lds.update_success'], 'no LDS update');
    t.true(Object.keys(filterConfigsBefore).length > 0, 'the scripts come over ECDS');
    t.deepEqual(await stack.envoy.stats(filterConfigStats), filterConfigsBefore, 'no filter configuration reloaded');
  };
  return { get, assertNeverDrained };
}

test('20 auth-url edits of one tenant: no listener update, and another tenant\'s kept-alive connection is never drained', async (t) => {
  t.timeout(240_000);
  const web = await useEchoBackend(t, { service: 'web' });
  // B's authorization service: lets everything through, remembers the paths it was asked.
  const paths: string[] = [];
  const authz: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => authz.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => authz.close(() => resolve())));
  const authzPort = (authz.address() as AddressInfo).port;

  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  const write = (edit: number): Promise<void> => {
    const b = nginxIngress('b', 'b.test', 'web', { 'auth-url': `http://authz.b.svc.cluster.local/check-${edit}` }) as { metadata: { namespace: string } };
    b.metadata.namespace = 'b';
    return writeFile(
      path.join(dir.path, 'objects.yaml'),
      toYaml([
        ingressClass(),
        ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }], 'a'),
        ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }], 'b'),
        ...serviceWithEndpoints('authz', [{ address: '127.0.0.1', port: authzPort }], 'b'),
        ingress('a', { namespace: 'a', rules: [{ host: 'a.test', paths: [{ path: '/', service: 'web' }] }] }),
        b,
      ]),
    );
  };
  await write(0);
  const stack = await startStack(t, { manifestsDir: dir.path, translate: { nginxAnnotations: true } });
  const getB = () => httpGet({ port: stack.httpPort, hostHeader: 'b.test', path: '/x' });
  await waitFor(async () => (await getB().catch(() => undefined))?.status === 200 && paths.at(-1)?.startsWith('/check-0/'), {
    description: 'b.test checked at /check-0',
    timeoutMs: 30_000,
  });

  // A's long-lived connection.
  const a = await watchKeptAlive(t, stack);

  for (let edit = 1; edit <= 20; edit++) {
    await write(edit);
    await waitFor(async () => (await getB()).status === 200 && paths.at(-1)?.startsWith(`/check-${edit}/`), {
      description: `b.test checked at /check-${edit}`,
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    await a.get();
  }
  await a.assertNeverDrained();
});

// Every other per-route feature a tenant turns on or off (CORS, an allow-list, a body size limit, an affinity
// cookie, a Set-Cookie path rewrite, a sign-in redirect) is carried by the listener from the start, disabled:
// turning it on is a route change too. Before, the first route to use such a filter added it to the listener: an LDS
// update draining every tenant's connections. The scripts among them come over ECDS: still no listener update, and
// no configuration reloaded.
test("a tenant turning per-route features on and off: no listener update, and another tenant's connection is never drained", async (t) => {
  t.timeout(240_000);
  const web = await useEchoBackend(t, { service: 'web' });
  // B's authorization service for the sign-in feature: refuses everything.
  const authz: Server = createServer((_req, res) => res.writeHead(401).end());
  await new Promise<void>((resolve) => authz.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => authz.close(() => resolve())));
  const authzPort = (authz.address() as AddressInfo).port;
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  const cookies = (res: Awaited<ReturnType<typeof httpGet>>): string => ([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n');
  const features: { name: string; annotations: Record<string, string>; shows: (res: Awaited<ReturnType<typeof httpGet>>) => boolean }[] = [
    { name: 'enable-cors', annotations: { 'enable-cors': 'true', 'cors-allow-origin': 'https://b.example' }, shows: (res) => res.headers['access-control-allow-origin'] === 'https://b.example' },
    { name: 'whitelist-source-range', annotations: { 'whitelist-source-range': '10.0.0.0/8' }, shows: (res) => res.status === 403 },
    { name: 'affinity', annotations: { affinity: 'cookie', 'session-cookie-name': 'sticky' }, shows: (res) => cookies(res).includes('sticky=') },
    { name: 'proxy-cookie-path', annotations: { 'proxy-cookie-path': '/one/ /' }, shows: (res) => cookies(res) === 'b=1; Path=/two' },
    {
      name: 'auth-signin',
      annotations: { 'auth-url': 'http://authz.b.svc.cluster.local/check', 'auth-signin': 'https://login.b.example/start' },
      shows: (res) => res.status === 302 && String(res.headers.location).startsWith('https://login.b.example/start'),
    },
    { name: 'none', annotations: {}, shows: (res) => res.status === 200 && res.headers['access-control-allow-origin'] === undefined && cookies(res) === 'b=1; Path=/one/two' },
  ];
  const write = (annotations: Record<string, string>): Promise<void> => {
    const b = nginxIngress('b', 'b.test', 'web', annotations) as { metadata: { namespace: string } };
    b.metadata.namespace = 'b';
    return writeFile(
      path.join(dir.path, 'objects.yaml'),
      toYaml([
        ingressClass(),
        ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }], 'a'),
        ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }], 'b'),
        ...serviceWithEndpoints('authz', [{ address: '127.0.0.1', port: authzPort }], 'b'),
        ingress('a', { namespace: 'a', rules: [{ host: 'a.test', paths: [{ path: '/', service: 'web' }] }] }),
        b,
      ]),
    );
  };
  await write({});
  const stack = await startStack(t, { manifestsDir: dir.path, translate: { nginxAnnotations: true } });
  // The backend sets a cookie under /one/ on every answer (what proxy-cookie-path rewrites).
  const getB = () => httpGet({ port: stack.httpPort, hostHeader: 'b.test', path: '/x', headers: { origin: 'https://b.example', 'x-echo-response-header': 'Set-Cookie: b=1; Path=/one/two' } });
  await waitFor(async () => (await getB().catch(() => undefined))?.status === 200, { description: 'b.test served', timeoutMs: 30_000 });

  const a = await watchKeptAlive(t, stack);

  for (let round = 0; round < 2; round++) {
    for (const feature of features) {
      await write(feature.annotations);
      await waitFor(async () => feature.shows(await getB()), { description: `b.test with ${feature.name}`, timeoutMs: 30_000, intervalMs: 50 });
      await a.get();
    }
  }
  await a.assertNeverDrained();
});

// End to end for RoutePolicy (gateway.envoy-ingress.io/v1alpha1), standalone controller -> a real Envoy -> a loopback
// echo backend: source ranges (a denied client gets 403, an allowed one the backend), basic auth (401 without or
// with wrong credentials, the backend with right ones, the realm in the challenge), a rule-level policy next to a
// route-wide one, a Conflicted policy that changes nothing, and a policy whose Secret is missing closing its rule
// (500), never opening it. The client is 127.0.0.1.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';
const policyApi = 'gateway.envoy-ingress.io/v1alpha1';
const host = 'route-policy.example.test';

const sha = (password: string): string => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function routePolicy(name: string, creationTimestamp: string, sectionName: string | undefined, spec: object): object {
  return {
    apiVersion: policyApi,
    kind: 'RoutePolicy',
    metadata: { name, namespace: 'default', creationTimestamp },
    spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'web', ...(sectionName === undefined ? {} : { sectionName }) }], ...spec },
  };
}

test('RoutePolicy through Envoy: source ranges 403/200, basic auth 401/200 with its realm, external auth, Conflicted changes nothing, a missing Secret answers 500', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const web = await useEchoBackend(t, { service: 'web' });
  // The authorization service: `x-token: good` -> 200 with X-Auth-User, anything else 401 with a body of its own.
  const checks: string[] = [];
  const authz = createServer((req, res) => {
    checks.push(req.url ?? '');
    if (req.headers['x-token'] === 'good') res.writeHead(200, { 'x-auth-user': 'alice', 'x-not-copied': 'x' }).end();
    else res.writeHead(401, { 'content-type': 'text/plain' }).end('who are you?\n');
  });
  await new Promise<void>((resolve) => authz.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => authz.close(() => resolve())));
  const gatewayPort = await freePort();
  const rule = (name: string, prefix: string): object => ({ name, matches: [{ path: { type: 'PathPrefix', value: prefix } }], backendRefs: [{ name: 'web', port: 80 }] });
  const objects = [
    ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }]),
    ...serviceWithEndpoints('authz', [{ address: '127.0.0.1', port: (authz.address() as AddressInfo).port }]),
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'users', namespace: 'default' }, type: 'Opaque', stringData: { auth: `alice:${sha('wonderland')}\n` } },
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    { apiVersion: gatewayApi, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP' }] } },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: [host],
        rules: [rule('denied', '/denied'), rule('allowed', '/allowed'), rule('private', '/private'), rule('broken', '/broken'), rule('external', '/external'), rule('open', '/')],
      },
    },
    // Route-wide: allowed for loopback clients; the rules with a policy of their own get theirs instead.
    routePolicy('loopback-only', '2026-01-01T00:00:00Z', undefined, { sourceRanges: { allow: ['127.0.0.0/8', '::1'] } }),
    routePolicy('deny-loopback', '2026-01-01T00:00:00Z', 'denied', { sourceRanges: { allow: ['0.0.0.0/0'], deny: ['127.0.0.1'] } }),
    routePolicy('other-networks', '2026-01-01T00:00:00Z', 'allowed', { sourceRanges: { allow: ['10.0.0.0/8', '127.0.0.1/32'] } }),
    routePolicy('users', '2026-01-01T00:00:00Z', 'private', { basicAuth: { secretRef: { name: 'users' }, realm: 'Team area' } }),
    // Newer, same target: Conflicted, so the private rule stays basic auth (not this deny-everybody range).
    routePolicy('late', '2026-02-01T00:00:00Z', 'private', { sourceRanges: { deny: ['0.0.0.0/0'] } }),
    routePolicy('no-secret', '2026-01-01T00:00:00Z', 'broken', { basicAuth: { secretRef: { name: 'missing' } } }),
    routePolicy('authz', '2026-01-01T00:00:00Z', 'external', { externalAuth: { backendRef: { name: 'authz', port: 80 }, path: '/verify', responseHeaders: ['X-Auth-User'] } }),
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  const get = (p: string, headers: Record<string, string> = {}) => httpGet({ port: gatewayPort, hostHeader: host, path: p, headers });
  await waitFor(async () => (await get('/')).status === 200, { description: 'the route is served' });

  // The route-wide allow-list admits 127.0.0.1.
  const open = await get('/anything');
  t.is(open.status, 200);
  t.is(open.json?.service, 'web');
  // Denied by the rule's deny-list although its allow-list (everybody) admits the client.
  t.is((await get('/denied')).status, 403);
  t.is((await get('/allowed')).status, 200);

  // Basic auth on the private rule: the older policy wins.
  const challenge = await get('/private');
  t.is(challenge.status, 401);
  t.is(challenge.headers['www-authenticate'], 'Basic realm="Team area"');
  t.is((await get('/private', { authorization: basic('alice', 'wrong') })).status, 401);
  t.is((await get('/private', { authorization: basic('mallory', 'wonderland') })).status, 401);
  const authed = await get('/private', { authorization: basic('alice', 'wonderland') });
  t.is(authed.status, 200);
  t.is(authed.json?.service, 'web');

  // External auth: the service's 401 goes to the client; its 200 lets the request through with X-Auth-User only.
  const refused = await get('/external/page?q=1');
  t.is(refused.status, 401);
  t.is(refused.body, 'who are you?\n');
  t.is(checks.at(-1), '/verify/external/page?q=1');
  const allowed = await get('/external/page', { 'x-token': 'good' });
  t.is(allowed.status, 200);
  t.is(allowed.json?.headers['x-auth-user'], 'alice');
  t.false('x-not-copied' in (allowed.json?.headers ?? {}));

  // The Secret is missing: the rule answers 500, with or without credentials, and the backend sees nothing.
  t.is((await get('/broken')).status, 500);
  t.is((await get('/broken', { authorization: basic('alice', 'wonderland') })).status, 500);
});

test('RoutePolicy through Envoy: a route-wide allow-list that excludes the client answers 403 on every rule', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const web = await useEchoBackend(t, { service: 'web' });
  const gatewayPort = await freePort();
  const objects = [
    ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }]),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    { apiVersion: gatewayApi, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP' }] } },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'web', namespace: 'default' },
      spec: { parentRefs: [{ name: 'gw' }], hostnames: [host], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
    },
    { apiVersion: gatewayApi, kind: 'HTTPRoute', metadata: { name: 'other', namespace: 'default' }, spec: { parentRefs: [{ name: 'gw' }], hostnames: ['other.example.test'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } },
    routePolicy('office-only', '2026-01-01T00:00:00Z', undefined, { sourceRanges: { allow: ['10.20.0.0/16'] } }),
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  // The other route (no policy) is served; then the targeted one is refused.
  await waitFor(async () => (await httpGet({ port: gatewayPort, hostHeader: 'other.example.test', path: '/' })).status === 200, { description: 'the other route is served' });
  t.is((await httpGet({ port: gatewayPort, hostHeader: host, path: '/' })).status, 403);
  t.is((await httpGet({ port: gatewayPort, hostHeader: host, path: '/x' })).status, 403);
});

test('RoutePolicy through Envoy: cookie session affinity sets the cookie and keeps a client on one endpoint of the rule', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const one = await useEchoBackend(t, { service: 'one' });
  const two = await useEchoBackend(t, { service: 'two' });
  const gatewayPort = await freePort();
  const objects = [
    ...serviceWithEndpoints('sticky', [
      { address: one.address, port: one.port },
      { address: two.address, port: two.port },
    ]),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    { apiVersion: gatewayApi, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP' }] } },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'web', namespace: 'default' },
      spec: { parentRefs: [{ name: 'gw' }], hostnames: [host], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/app' } }], backendRefs: [{ name: 'sticky', port: 80 }] }] },
    },
    routePolicy('sticky', '2026-01-01T00:00:00Z', undefined, { sessionAffinity: { cookie: { name: 'route', maxAgeSeconds: 3600, sameSite: 'Lax' } } }),
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  const get = (headers: Record<string, string> = {}) => httpGet({ port: gatewayPort, hostHeader: host, path: '/app/x', headers });
  await waitFor(async () => (await get()).status === 200, { description: 'the route is served' });

  // New clients get a cookie each (Path: the rule's path, the policy's attributes) and are spread over both endpoints.
  const seen = new Set<string>();
  let cookie = '';
  for (let i = 0; i < 30; i++) {
    const res = await get();
    t.is(res.status, 200);
    seen.add(String(res.json?.service));
    const setCookie = String(res.headers['set-cookie'] ?? '');
    t.regex(setCookie, /^route=[^;|]+\|[0-9a-f]{32}; Max-Age=3600; Path=\/app; HttpOnly; SameSite=Lax/);
    cookie = setCookie.split(';')[0] ?? '';
  }
  t.deepEqual([...seen].sort(), ['one', 'two']);
  // A client with the cookie stays on one endpoint, and is not given a new cookie.
  const first = await get({ cookie });
  const sticky = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const res = await get({ cookie });
    sticky.add(String(res.json?.service));
    t.is(res.headers['set-cookie'], undefined);
  }
  t.deepEqual([...sticky], [String(first.json?.service)]);
});

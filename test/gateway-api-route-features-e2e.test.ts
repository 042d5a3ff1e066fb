// End to end for HTTPRoute's extended features, standalone controller -> a real Envoy -> loopback echo backends, with
// the Gateway API conformance tests' expectations (conformance/tests/httproute-*.go at v1.6.3): several mirrors and a
// percentage mirror (counted at the mirror backends), request and backend timeouts (504; "0s" turns them off), retries
// by status code and attempts, CORS preflights and simple requests (exact and wildcard origins, credentials), and
// redirects (ReplacePrefixMatch without `//`, the spec's port rules, 303/307/308).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { ECHO_DELAY_HEADER } from './harness/echo-backend.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';
const host = 'features.example.test';

test('HTTPRoute extended features through Envoy: mirrors, timeouts, retries, CORS, redirects', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const backends = {
    web: await useEchoBackend(t, { service: 'web' }),
    mirrorA: await useEchoBackend(t, { service: 'mirror-a' }),
    mirrorB: await useEchoBackend(t, { service: 'mirror-b' }),
    half: await useEchoBackend(t, { service: 'half' }),
    // 503 twice, then 200: retried on 503 with three attempts, it succeeds.
    recovers: await useEchoBackend(t, { service: 'recovers', failFirst: 2 }),
    // 503 five times: two retries are not enough.
    stays: await useEchoBackend(t, { service: 'stays', failFirst: 5 }),
    // 503 once, but the rule retries 500 only.
    other: await useEchoBackend(t, { service: 'other', failFirst: 1 }),
  };
  const services = Object.entries(backends).flatMap(([name, b]) => serviceWithEndpoints(name.toLowerCase(), [{ address: b.address, port: b.port }]));
  const gatewayPort = await freePort();
  const forward = (name: string): { backendRefs: object[] } => ({ backendRefs: [{ name, port: 80 }] });
  const prefix = (value: string): { matches: object[] } => ({ matches: [{ path: { type: 'PathPrefix', value } }] });
  const redirect = (value: string, requestRedirect: object): object => ({ ...prefix(value), filters: [{ type: 'RequestRedirect', requestRedirect }] });
  const cors = (value: string, spec: object): object => ({ ...prefix(value), filters: [{ type: 'CORS', cors: spec }], ...forward('web') });
  const objects = [
    ...services,
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'default' },
      spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP' }] },
    },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'features', namespace: 'default' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: [host],
        rules: [
          {
            name: 'multi-mirror',
            ...prefix('/multi-mirror'),
            filters: [
              { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Header-Set', value: 'set' }] } },
              { type: 'RequestMirror', requestMirror: { backendRef: { name: 'mirrora', port: 80 } } },
              { type: 'RequestMirror', requestMirror: { backendRef: { name: 'mirrorb', port: 80 } } },
            ],
            ...forward('web'),
          },
          {
            ...prefix('/percent-mirror'),
            filters: [{ type: 'RequestMirror', requestMirror: { backendRef: { name: 'half', port: 80 }, fraction: { numerator: 25, denominator: 50 } } }],
            ...forward('web'),
          },
          { ...prefix('/request-timeout'), timeouts: { request: '500ms' }, ...forward('web') },
          { ...prefix('/disable-request-timeout'), timeouts: { request: '0s' }, ...forward('web') },
          { ...prefix('/backend-timeout'), timeouts: { backendRequest: '500ms' }, ...forward('web') },
          { ...prefix('/disable-backend-timeout'), timeouts: { backendRequest: '0s' }, ...forward('web') },
          { ...prefix('/retry/recovers'), retry: { codes: [500, 503], attempts: 3, backoff: '10ms' }, ...forward('recovers') },
          { ...prefix('/retry/stays'), retry: { codes: [503], attempts: 2, backoff: '10ms' }, ...forward('stays') },
          { ...prefix('/retry/other'), retry: { codes: [500], attempts: 3 }, ...forward('other') },
          cors('/cors-1', {
            allowOrigins: ['https://www.foo.com', 'https://*.bar.com'],
            allowMethods: ['GET', 'OPTIONS'],
            allowHeaders: ['x-header-1', 'x-header-2'],
            exposeHeaders: ['x-header-3', 'x-header-4'],
            allowCredentials: true,
            maxAge: 3600,
          }),
          cors('/cors-wildcard-origin', { allowOrigins: ['*'], allowMethods: ['PUT'], allowCredentials: false }),
          cors('/cors-wildcard-methods-headers', { allowOrigins: ['*'], allowMethods: ['*'], allowHeaders: ['*'], allowCredentials: true }),
          cors('/cors-wildcard-unauth', { allowOrigins: ['*'], allowMethods: ['*'], allowHeaders: ['*'], allowCredentials: false }),
          redirect('/original-prefix', { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/replacement-prefix' } }),
          redirect('/to-root', { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' }, statusCode: 308 }),
          redirect('/scheme-https', { scheme: 'https', hostname: 'example.org', statusCode: 301 }),
          redirect('/scheme-nil-and-port-nil', { hostname: 'example.org', statusCode: 307 }),
          redirect('/scheme-nil-and-port-80', { hostname: 'example.org', port: 80, statusCode: 303 }),
          redirect('/scheme-https-and-port-8443', { scheme: 'https', hostname: 'example.org', port: 8443 }),
        ],
      },
    },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  const get = (p: string, headers: Record<string, string> = {}, method = 'GET') => httpGet({ port: gatewayPort, hostHeader: host, path: p, headers, method });
  await waitFor(async () => (await get('/multi-mirror')).status === 200, { description: 'the route is served' });

  // Mirrors: every request reaches both mirrors, with the rule's header changes; the primary answers.
  const mirrorsBefore = [backends.mirrorA.requests, backends.mirrorB.requests];
  for (let i = 0; i < 20; i++) {
    const res = await get('/multi-mirror');
    t.is(res.json?.service, 'web');
    t.is(res.json?.headers['x-header-set'], 'set');
  }
  await waitFor(async () => backends.mirrorA.requests - (mirrorsBefore[0] ?? 0) >= 20 && backends.mirrorB.requests - (mirrorsBefore[1] ?? 0) >= 20, {
    description: 'both mirrors saw every request',
  });
  // 25/50 of 400 requests: 200 expected, binomial sd 10; 5 sd either side.
  for (let i = 0; i < 400; i++) t.is((await get('/percent-mirror')).json?.service, 'web');
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.true(backends.half.requests >= 150 && backends.half.requests <= 250, `percent mirror: ${backends.half.requests} of 400`);

  // Timeouts: 500 ms on the route or on the backend request; a 1 s backend gets 504, "0s" lets it answer.
  const slow = { [ECHO_DELAY_HEADER]: '1000' };
  t.is((await get('/request-timeout')).status, 200);
  t.is((await get('/request-timeout', slow)).status, 504);
  t.is((await get('/disable-request-timeout', slow)).status, 200);
  t.is((await get('/backend-timeout')).status, 200);
  t.is((await get('/backend-timeout', slow)).status, 504);
  t.is((await get('/disable-backend-timeout', slow)).status, 200);

  // Retries: codes and attempts.
  const recovered = await get('/retry/recovers');
  t.is(recovered.status, 200);
  t.is(backends.recovers.requests, 3, 'two 503s retried, the third try answered');
  t.is((await get('/retry/stays')).status, 503, 'three tries (two retries) of five failures');
  t.is(backends.stays.requests, 3);
  t.is((await get('/retry/other')).status, 503, 'a 503 is not retried when only 500 is');
  t.is(backends.other.requests, 1);

  // CORS (httproute-cors.go).
  const preflight = (p: string, origin: string, extra: Record<string, string> = {}) =>
    get(p, { origin, 'access-control-request-method': 'GET', ...extra }, 'OPTIONS');
  const strip = (v: string | string[] | undefined): string => String(v ?? '').replace(/\s+/g, '');
  for (const origin of ['https://www.foo.com', 'https://www.bar.com', 'https://xpto.www.bar.com']) {
    const res = await preflight('/cors-1', origin, { 'access-control-request-headers': 'x-header-1, x-header-2' });
    t.true([200, 204].includes(res.status), `${origin}: ${res.status}`);
    t.is(res.headers['access-control-allow-origin'], origin);
    t.true(['GET,OPTIONS', 'OPTIONS,GET'].includes(strip(res.headers['access-control-allow-methods'])));
    t.true(['x-header-1,x-header-2', 'x-header-2,x-header-1'].includes(strip(res.headers['access-control-allow-headers'])));
    t.true(['x-header-3,x-header-4', 'x-header-4,x-header-3'].includes(strip(res.headers['access-control-expose-headers'])));
    t.is(res.headers['access-control-max-age'], '3600');
    t.is(res.headers['access-control-allow-credentials'], 'true');
  }
  const refused = await preflight('/cors-1', 'https://foobar.com');
  t.true([200, 204, 403].includes(refused.status));
  t.is(refused.headers['access-control-allow-origin'], undefined);
  const simple = await get('/cors-1', { origin: 'https://www.bar.com' });
  t.is(simple.status, 200);
  t.is(simple.headers['access-control-allow-origin'], 'https://www.bar.com');
  t.is((await get('/cors-1', { origin: 'https://foobar.com' })).headers['access-control-allow-origin'], undefined);
  const anyOrigin = await get('/cors-wildcard-origin', { origin: 'https://foobar.com:12345', 'access-control-request-method': 'PUT' }, 'OPTIONS');
  t.true(['https://foobar.com:12345', '*'].includes(String(anyOrigin.headers['access-control-allow-origin'])));
  t.is(anyOrigin.headers['access-control-allow-methods'], 'PUT');
  t.is(anyOrigin.headers['access-control-allow-credentials'], undefined);

  // Wildcard methods and headers: with credentials the request's own method and headers come back, never `*`.
  const credentialed = await get(
    '/cors-wildcard-methods-headers',
    { origin: 'https://other.foo.com', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-header-1, x-header-2' },
    'OPTIONS',
  );
  t.is(credentialed.headers['access-control-allow-origin'], 'https://other.foo.com');
  t.is(credentialed.headers['access-control-allow-methods'], 'PUT');
  t.true(['x-header-1,x-header-2', 'x-header-2,x-header-1'].includes(strip(credentialed.headers['access-control-allow-headers'])), String(credentialed.headers['access-control-allow-headers']));
  t.is(credentialed.headers['access-control-allow-credentials'], 'true');
  const unauth = await get(
    '/cors-wildcard-unauth',
    { origin: 'https://other.foo.com', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-header-1, x-header-2' },
    'OPTIONS',
  );
  t.true(['https://other.foo.com', '*'].includes(String(unauth.headers['access-control-allow-origin'])));
  t.true(['PUT', '*'].includes(String(unauth.headers['access-control-allow-methods'])));
  t.true(['x-header-1,x-header-2', 'x-header-2,x-header-1', '*'].includes(strip(unauth.headers['access-control-allow-headers'])));
  t.is(unauth.headers['access-control-allow-credentials'], undefined);
  const simpleCredentialed = await get('/cors-wildcard-methods-headers', { origin: 'https://other.foo.com' });
  t.is(simpleCredentialed.headers['access-control-allow-origin'], 'https://other.foo.com');
  t.is(simpleCredentialed.headers['access-control-allow-credentials'], 'true');

  // Redirects (httproute-redirect-path.go, -port-and-scheme.go): the listener's port where none is named, a scheme's
  // default port left out.
  const location = async (p: string): Promise<string> => {
    const res = await get(p);
    return `${res.status} ${res.headers.location}`;
  };
  t.is(await location('/original-prefix/lemon'), `302 http://${host}:${gatewayPort}/replacement-prefix/lemon`);
  t.is(await location('/original-prefix'), `302 http://${host}:${gatewayPort}/replacement-prefix`);
  t.is(await location('/to-root/x?y=1'), `308 http://${host}:${gatewayPort}/x?y=1`);
  t.is(await location('/to-root'), `308 http://${host}:${gatewayPort}/`);
  t.is(await location('/scheme-https'), '301 https://example.org/scheme-https');
  t.is(await location('/scheme-nil-and-port-nil'), `307 http://example.org:${gatewayPort}/scheme-nil-and-port-nil`);
  t.is(await location('/scheme-nil-and-port-80'), '303 http://example.org/scheme-nil-and-port-80');
  t.is(await location('/scheme-https-and-port-8443'), '302 https://example.org:8443/scheme-https-and-port-8443');
});

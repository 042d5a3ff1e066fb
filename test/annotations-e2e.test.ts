// End to end, one test per annotation: manifests -> controller (standalone) -> a real Envoy -> echo backends.
// One stack serves every case, each on its own host, so one Envoy start covers the whole file.
import test from 'ava';
import { Annotation } from '../controller/translate/ingress/annotations.js';
import { ECHO_DELAY_HEADER, ECHO_SERVICE_HEADER, type EchoBackend } from './harness/echo-backend.js';
import { httpsGet } from './harness/http-client.js';
import { createTestCA, type TestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, singleRouteIngress as annotated, tlsSecret } from './fixtures/manifests.js';
import { defineSharedWorld, endpointOf as endpoint, hostGet as get, corsPreflight } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';

type BackendName =
  | 'web'
  | 'slow'
  | 'flaky'
  | 'flakyNoRetry'
  | 'perTry'
  | 'h2c'
  | 'tlsH1'
  | 'tlsH2'
  | 'stickyA'
  | 'stickyB';

interface World {
  stack: Stack;
  ca: TestCA;
  backends: Record<BackendName, EchoBackend>;
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const ca = await createTestCA();
  const backendCert = await ca.issue({ dnsNames: ['backend.internal'] });
  const tls = { cert: backendCert.certPem, key: backendCert.keyPem };
  const start = scope.startBackend;
  const backends: Record<BackendName, EchoBackend> = {
    web: await start({ service: 'web' }),
    slow: await start({ service: 'slow' }),
    flaky: await start({ service: 'flaky', failFirst: 2 }),
    flakyNoRetry: await start({ service: 'flaky-no-retry', failFirst: 1 }),
    perTry: await start({ service: 'per-try' }),
    h2c: await start({ service: 'h2c', http2: true }),
    tlsH1: await start({ service: 'tls-h1', tls }),
    tlsH2: await start({ service: 'tls-h2', tls, http2: true }),
    // Two endpoints of one Service, told apart by address.
    stickyA: await start({ service: 'sticky-a', host: '127.0.0.1' }),
    stickyB: await start({ service: 'sticky-b', host: '127.0.0.2' }),
  };
  const secureCert = await ca.issue({ dnsNames: ['secure.test'] });
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('web', [endpoint(backends.web)]),
    ...serviceWithEndpoints('slow', [endpoint(backends.slow)]),
    ...serviceWithEndpoints('flaky', [endpoint(backends.flaky)]),
    ...serviceWithEndpoints('flaky-no-retry', [endpoint(backends.flakyNoRetry)]),
    ...serviceWithEndpoints('per-try', [endpoint(backends.perTry)]),
    ...serviceWithEndpoints('h2c', [endpoint(backends.h2c)]),
    ...serviceWithEndpoints('tls-h1', [endpoint(backends.tlsH1)]),
    ...serviceWithEndpoints('tls-h2', [endpoint(backends.tlsH2)]),
    ...serviceWithEndpoints('sticky', [endpoint(backends.stickyA), endpoint(backends.stickyB)]),
    tlsSecret('secure-tls', secureCert.certPem, secureCert.keyPem),
    annotated('timeout', 'timeout.test', 'slow', { [Annotation.requestTimeout]: '1s' }),
    annotated('idle', 'idle.test', 'slow', { [Annotation.idleTimeout]: '500ms', [Annotation.requestTimeout]: '0' }),
    annotated('retry', 'retry.test', 'flaky', { [Annotation.retryOn]: '5xx', [Annotation.retryCount]: '2', [Annotation.retryPerTryTimeout]: '2s' }),
    annotated('no-retry', 'no-retry.test', 'flaky-no-retry', {}),
    annotated('per-try', 'per-try.test', 'per-try', {
      [Annotation.retryOn]: '5xx',
      [Annotation.retryCount]: '2',
      [Annotation.retryPerTryTimeout]: '300ms',
      [Annotation.requestTimeout]: '10s',
    }),
    annotated('rewrite', 'rewrite.test', 'web', { [Annotation.rewritePrefix]: '/' }, '/api'),
    annotated('headers', 'headers.test', 'web', {
      [Annotation.requestHeadersSet]: 'X-Env: prod\nX-Percent: 100%',
      [Annotation.requestHeadersRemove]: 'x-debug',
      [Annotation.responseHeadersSet]: 'X-Frame-Options: DENY',
      [Annotation.responseHeadersRemove]: ECHO_SERVICE_HEADER,
    }),
    annotated('cidr', 'cidr.test', 'web', { [Annotation.allowedSourceCidrs]: '127.0.0.2/32, 10.0.0.0/8' }),
    annotated('cidr-broken', 'cidr-broken.test', 'web', { [Annotation.allowedSourceCidrs]: '127.0.0.1/40' }),
    annotated('body', 'body.test', 'web', { [Annotation.maxRequestBodySize]: '1k' }),
    annotated('cors', 'cors.test', 'web', {
      [Annotation.corsAllowOrigins]: 'https://app.example.test',
      [Annotation.corsAllowMethods]: 'GET, PUT',
      [Annotation.corsAllowHeaders]: 'X-User',
      [Annotation.corsAllowCredentials]: 'true',
      [Annotation.corsMaxAge]: '600',
    }),
    annotated('sticky', 'sticky.test', 'sticky', { [Annotation.loadBalancer]: 'ring-hash', [Annotation.hashBy]: 'header:X-User' }),
    annotated('sticky-cookie', 'sticky-cookie.test', 'sticky', { [Annotation.hashBy]: 'cookie:session' }),
    annotated('h2c', 'h2c.test', 'h2c', { [Annotation.backendProtocol]: 'h2c' }),
    annotated('tls-h1', 'tls-h1.test', 'tls-h1', { [Annotation.backendProtocol]: 'https', [Annotation.backendSni]: 'backend.internal' }),
    annotated('tls-h2', 'tls-h2.test', 'tls-h2', { [Annotation.backendProtocol]: 'h2' }),
    ingress('secure', {
      annotations: { [Annotation.httpsOnly]: 'true' },
      rules: [{ host: 'secure.test', paths: [{ path: '/', service: 'web' }] }],
      tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }],
    }),
    annotated('forced', 'forced.test', 'web', { [Annotation.forceSslRedirect]: 'true' }),
    annotated('invalid', 'invalid.test', 'web', {
      [Annotation.requestTimeout]: 'soon',
      [Annotation.requestHeadersSet]: 'X-Still-Applied: yes',
    }),
  ];
  // Everything is in one manifest: once its last Ingress answers, all are there.
  const stack = await scope.startStack({ dir, objects, waitForHttpsListener: true, ready: { host: 'invalid.test' } });
  return { stack, ca, backends };
});

test('request-timeout: a backend slower than the timeout gets 504, a faster one answers', async (t) => {
  const w = await world(t);
  const slow = await get(w, 'timeout.test', '/', { headers: { [ECHO_DELAY_HEADER]: '3000' } });
  t.is(slow.status, 504);
  t.is(slow.body, 'upstream request timeout');
  const fast = await get(w, 'timeout.test', '/', { headers: { [ECHO_DELAY_HEADER]: '100' } });
  t.is(fast.status, 200);
});

test('idle-timeout: a stream idle longer than the timeout is ended, even with no request timeout', async (t) => {
  const w = await world(t);
  const idle = await get(w, 'idle.test', '/', { headers: { [ECHO_DELAY_HEADER]: '3000' } });
  t.is(idle.status, 504);
  t.is(idle.body, 'stream timeout');
  t.is((await get(w, 'idle.test', '/')).status, 200);
});

test('retry-on / retry-count: a backend failing twice is retried into a 200; without retries the 503 shows', async (t) => {
  const w = await world(t);
  const retried = await get(w, 'retry.test', '/');
  t.is(retried.status, 200);
  t.is(w.backends.flaky.requests, 3, 'two failed tries and one that worked');
  const notRetried = await get(w, 'no-retry.test', '/');
  t.is(notRetried.status, 503);
  t.is(w.backends.flakyNoRetry.requests, 1);
});

test('retry-per-try-timeout: each try of a slow backend times out and is retried, then 504', async (t) => {
  const w = await world(t);
  const res = await get(w, 'per-try.test', '/', { headers: { [ECHO_DELAY_HEADER]: '2000' } });
  t.is(res.status, 504);
  // The backend has seen every try by the time Envoy gives up; its count may trail the response by a moment.
  await waitFor(() => w.backends.perTry.requests >= 3, { description: 'three tries reach the backend' });
  t.is(w.backends.perTry.requests, 3, 'the first try and two retries');
});

test('rewrite-prefix: /api -> / replaces the matched prefix, keeping the rest and the query', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'rewrite.test', '/api/users?page=2')).json?.path, '/users?page=2');
  t.is((await get(w, 'rewrite.test', '/api')).json?.path, '/');
  t.is((await get(w, 'rewrite.test', '/api/')).json?.path, '/');
});

test('request/response headers: set and remove on the way up and on the way back', async (t) => {
  const w = await world(t);
  const res = await get(w, 'headers.test', '/', { headers: { 'x-debug': '1', 'x-env': 'dev' } });
  t.is(res.status, 200);
  const seen = res.json?.headers as Record<string, string>;
  t.is(seen['x-env'], 'prod', 'set replaces the client value');
  t.is(seen['x-percent'], '100%', 'a literal % survives');
  t.false('x-debug' in seen);
  t.is(res.headers['x-frame-options'], 'DENY');
  t.false(ECHO_SERVICE_HEADER in res.headers);
});

test('allowed-source-cidrs: the connecting address decides, X-Forwarded-For does not; a broken list denies all', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'cidr.test', '/', { localAddress: '127.0.0.2' })).status, 200);
  t.is((await get(w, 'cidr.test', '/', { localAddress: '127.0.0.1' })).status, 403);
  const spoofed = await get(w, 'cidr.test', '/', { localAddress: '127.0.0.1', headers: { 'x-forwarded-for': '127.0.0.2' } });
  t.is(spoofed.status, 403);
  t.is((await get(w, 'cidr-broken.test', '/', { localAddress: '127.0.0.1' })).status, 403);
  t.is((await get(w, 'web-not-annotated.test', '/', { localAddress: '127.0.0.1' })).status, 404, 'other hosts unaffected');
});

test('max-request-body-size: a larger body gets 413, a smaller one reaches the backend', async (t) => {
  const w = await world(t);
  const big = await get(w, 'body.test', '/', { method: 'POST', body: 'x'.repeat(2048) });
  t.is(big.status, 413);
  const small = await get(w, 'body.test', '/', { method: 'POST', body: 'x'.repeat(512) });
  t.is(small.status, 200);
  t.is(small.json?.headers?.['content-length'], '512');
});

test('cors-*: a preflight from an allowed origin gets the CORS headers, another origin gets none and never reaches the backend', async (t) => {
  const w = await world(t);
  const preflight = await get(w, 'cors.test', '/', corsPreflight('https://app.example.test', 'PUT'));
  t.is(preflight.status, 200);
  t.is(preflight.headers['access-control-allow-origin'], 'https://app.example.test');
  t.is(preflight.headers['access-control-allow-methods'], 'GET,PUT');
  t.is(preflight.headers['access-control-allow-headers'], 'X-User');
  t.is(preflight.headers['access-control-max-age'], '600');
  t.is(preflight.headers['access-control-allow-credentials'], 'true');
  const simple = await get(w, 'cors.test', '/', { headers: { origin: 'https://app.example.test' } });
  t.is(simple.headers['access-control-allow-origin'], 'https://app.example.test');
  const other = await get(w, 'cors.test', '/', corsPreflight('https://evil.test', 'PUT'));
  t.is(other.headers['access-control-allow-origin'], undefined);
  t.is(other.status, 200);
  t.is(other.json, undefined, 'a preflight from another origin is answered by Envoy, not sent to the backend');
});

test('load-balancer ring-hash + hash-by header: one user always reaches the same endpoint, users spread over both', async (t) => {
  const w = await world(t);
  const seen = new Set<string>();
  for (let user = 0; user < 16; user++) {
    const services = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const res = await get(w, 'sticky.test', '/', { headers: { 'x-user': `user-${user}` } });
      services.add(String(res.json?.service));
    }
    t.is(services.size, 1, `user-${user} stuck to one endpoint`);
    for (const s of services) seen.add(s);
  }
  // 16 users all hashing to one of two endpoints would be a 1 in 32768 chance.
  t.deepEqual([...seen].sort(), ['sticky-a', 'sticky-b']);
});

test('hash-by cookie: Envoy sets the cookie, and a client sending it back stays on one endpoint', async (t) => {
  const w = await world(t);
  const first = await get(w, 'sticky-cookie.test', '/');
  t.is(first.status, 200);
  const setCookie = first.headers['set-cookie']?.[0] ?? '';
  t.regex(setCookie, /^session=[^;]+/);
  const cookie = setCookie.split(';')[0] as string;
  const services = new Set<string>();
  for (let i = 0; i < 8; i++) {
    const res = await get(w, 'sticky-cookie.test', '/', { headers: { cookie } });
    t.is(res.headers['set-cookie'], undefined, 'no new cookie once the client has one');
    services.add(String(res.json?.service));
  }
  t.is(services.size, 1);
});

test('backend-protocol h2c: Envoy speaks HTTP/2 without TLS to the backend', async (t) => {
  const w = await world(t);
  const res = await get(w, 'h2c.test', '/');
  t.is(res.status, 200);
  t.is(res.json?.httpVersion, '2.0');
  t.false(res.json?.tls);
});

test('backend-protocol https + backend-sni: TLS to the backend with the SNI name; h2: HTTP/2 over TLS', async (t) => {
  const w = await world(t);
  const h1 = await get(w, 'tls-h1.test', '/');
  t.is(h1.status, 200);
  t.true(h1.json?.tls);
  t.is(h1.json?.httpVersion, '1.1');
  t.is(h1.json?.sni, 'backend.internal');
  const h2 = await get(w, 'tls-h2.test', '/');
  t.is(h2.status, 200);
  t.true(h2.json?.tls);
  t.is(h2.json?.httpVersion, '2.0');
});

test('https-only: plain HTTP gets 403 (no redirect), HTTPS is served', async (t) => {
  const w = await world(t);
  const plain = await get(w, 'secure.test', '/');
  t.is(plain.status, 403);
  t.is(plain.headers.location, undefined);
  const secure = await secureGet(w);
  t.is(secure.status, 200);
  t.is(secure.json?.service, 'web');
});

/** GET https://secure.test/ through the stack's HTTPS listener. */
function secureGet(w: { stack: Stack; ca: TestCA }, headers: Record<string, string> = {}): ReturnType<typeof httpsGet> {
  return httpsGet({ port: w.stack.httpsPort, hostHeader: 'secure.test', servername: 'secure.test', path: '/', ca: w.ca.certPem, headers });
}

test('force-ssl-redirect: plain HTTP redirects to https though the Ingress has no tls entry', async (t) => {
  const w = await world(t);
  const res = await get(w, 'forced.test', '/a/b?c=1');
  t.is(res.status, 301);
  t.is(res.headers.location, `https://forced.test:${w.stack.httpsPort}/a/b?c=1`);
});

test('a plain HTTP client claiming X-Forwarded-Proto: https is still treated as plain HTTP (403 / redirect)', async (t) => {
  // Both listeners share one route table, plain HTTP told apart by x-forwarded-proto, which Envoy sets from the
  // connection (no trusted hops by default) before routing: the client's claim does not count.
  const w = await world(t);
  const claim = { headers: { 'x-forwarded-proto': 'https' } };
  t.is((await get(w, 'secure.test', '/', claim)).status, 403);
  const forced = await get(w, 'forced.test', '/a', claim);
  t.is(forced.status, 301);
  t.is(forced.headers.location, `https://forced.test:${w.stack.httpsPort}/a`);
  // And over TLS a client claiming plain HTTP is still served as TLS.
  const secure = await secureGet(w, { 'x-forwarded-proto': 'http' });
  t.is(secure.status, 200);
  t.is(secure.json?.headers?.['x-forwarded-proto'], 'https');
});

test('an invalid annotation falls back to its default; the rest of the Ingress works', async (t) => {
  const w = await world(t);
  // request-timeout "soon" is invalid: Envoy's default (15 s) applies, so a 1.5 s backend still answers.
  const res = await get(w, 'invalid.test', '/', { headers: { [ECHO_DELAY_HEADER]: '1500' } });
  t.is(res.status, 200);
  t.is(res.json?.headers?.['x-still-applied'], 'yes');
  t.regex(w.stack.logs(), /InvalidAnnotation/);
});

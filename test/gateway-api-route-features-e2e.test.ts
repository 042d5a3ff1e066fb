// End to end for HTTPRoute's extended features, standalone controller -> a real Envoy -> loopback echo backends, with
// the Gateway API conformance tests' expectations (conformance/tests/httproute-*.go at v1.6.3): several mirrors and a
// percentage mirror (counted at the mirror backends), request and backend timeouts (504; "0s" turns them off), retries
// by status code and attempts, CORS preflights and simple requests (exact and wildcard origins, credentials), and
// redirects (ReplacePrefixMatch without `//`, the spec's port rules, 303/307/308); backend protocols by the Service
// port's appProtocol (httproute-backend-protocol-h2c.go, -websocket.go) and 503 for a Service without endpoints.
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, type Socket, connect } from 'node:net';
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
  t.is(refused.json, undefined, 'a preflight from another origin is answered by Envoy, not sent to the backend');
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

/** A WebSocket endpoint reduced to what a proxy sees: the upgrade handshake (RFC 6455 accept key), then bytes echoed. */
async function startUpgradeEcho(): Promise<{ port: number; upgrades: () => number; close: () => Promise<void> }> {
  let upgrades = 0;
  const server = createServer((_req, res) => res.writeHead(426).end());
  const open = new Set<Socket>();
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    upgrades += 1;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('end', () => socket.end());
    const accept = createHash('sha1').update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket.on('data', (chunk) => socket.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    upgrades: () => upgrades,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Sends an upgrade request through the gateway: the status line, and the bytes echoed after a 101. */
async function tryUpgrade(port: number, hostHeader: string, path: string): Promise<{ status: string; echoed?: string }> {
  const socket = connect(port, '127.0.0.1');
  socket.setTimeout(5000, () => socket.destroy(new Error('upgrade timed out')));
  // One listener for the whole exchange (a flowing socket drops data while none is attached).
  let received = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake?.();
  });
  socket.on('error', (error) => {
    failure = error;
    wake?.();
  });
  socket.on('close', () => {
    failure ??= new Error('connection closed');
    wake?.();
  });
  const more = (): Promise<void> => {
    if (failure !== undefined) return Promise.reject(failure);
    return new Promise((resolve) => {
      wake = () => {
        wake = undefined;
        resolve();
      };
    });
  };
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
  );
  while (!received.includes('\r\n\r\n')) await more();
  const head = received.toString('latin1');
  const status = head.slice(0, head.indexOf('\r\n'));
  if (!status.includes(' 101 ')) {
    socket.destroy();
    return { status };
  }
  received = received.subarray(received.indexOf('\r\n\r\n') + 4);
  socket.write('Websocket Support!');
  while (received.length < 'Websocket Support!'.length) await more();
  socket.destroy();
  return { status, echoed: received.toString() };
}

test('backend protocol by appProtocol: h2c (HTTP/2 cleartext upstream), WebSocket upgrades; 503 without endpoints', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const h2c = await useEchoBackend(t, { service: 'h2c', http2: true });
  const http1 = await useEchoBackend(t, { service: 'http1' });
  const ws = await startUpgradeEcho();
  t.teardown(() => ws.close());
  const gatewayPort = await freePort();
  const service = (name: string, appProtocol: string | undefined, backendPort: number | undefined): object[] => [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'p', port: 80, targetPort: 'p', protocol: 'TCP', ...(appProtocol === undefined ? {} : { appProtocol }) }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${name}-0`, namespace: 'default', labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      ports: [{ name: 'p', port: backendPort ?? 9, protocol: 'TCP' }],
      endpoints: backendPort === undefined ? [] : [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    },
  ];
  const rule = (value: string, name: string): object => ({ matches: [{ path: { type: 'PathPrefix', value } }], backendRefs: [{ name, port: 80 }] });
  const objects = [
    ...service('h2c', 'kubernetes.io/h2c', h2c.port),
    ...service('ws', 'kubernetes.io/ws', ws.port),
    ...service('plain-upgrade', undefined, ws.port),
    ...service('http1', undefined, http1.port),
    ...service('empty', undefined, undefined),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    { apiVersion: gatewayApi, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP' }] } },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'protocols', namespace: 'default' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: [host],
        rules: [rule('/h2c', 'h2c'), rule('/ws', 'ws'), rule('/plain-upgrade', 'plain-upgrade'), rule('/http1', 'http1'), rule('/empty', 'empty')],
      },
    },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  const get = (p: string) => httpGet({ port: gatewayPort, hostHeader: host, path: p });
  await waitFor(async () => (await get('/http1')).status === 200, { description: 'the route is served' });

  // The h2c backend only speaks HTTP/2 with prior knowledge: an HTTP/1.1 client's request reaches it over HTTP/2.
  const viaH2c = await get('/h2c/x');
  t.is(viaH2c.status, 200);
  t.is(viaH2c.json?.service, 'h2c');
  t.is(viaH2c.json?.httpVersion, '2.0');
  t.is((await get('/http1')).json?.httpVersion, '1.1');

  // WebSocket: upgraded and echoed where the port says kubernetes.io/ws; the same server behind a port without it is
  // not upgraded (Envoy refuses the upgrade, the backend never sees it).
  const upgraded = await tryUpgrade(gatewayPort, host, '/ws');
  t.regex(upgraded.status, / 101 /);
  t.is(upgraded.echoed, 'Websocket Support!');
  const before = ws.upgrades();
  const refused = await tryUpgrade(gatewayPort, host, '/plain-upgrade');
  t.notRegex(refused.status, / 101 /);
  t.is(ws.upgrades(), before);

  // A Service without ready endpoints: 503 (the spec), not 500.
  t.is((await get('/empty')).status, 503);
});

// Edge hardening defaults (envoy/edge-hardening.ts, the overload manager in envoy/bootstrap.ts), each shown
// through the real Envoy the controller programs, and each switch shown to turn its default off.
import net from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { defaultEdgeHardening, type EdgeHardeningOptions } from '../envoy/edge-hardening.js';
import type { OverloadLimits } from '../envoy/bootstrap.js';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet, type HttpResult } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { createTestCA } from './harness/test-certs.js';
import { startStack, type Stack } from './fixtures/standalone-stack.js';
import { writeFile } from 'node:fs/promises';

const host = 'edge.example.test';
/** A TLS host: plain HTTP to it is redirected to https, which shows which requests count as plain HTTP. */
const tlsHost = 'tls.example.test';

/** `/b` and `/` go to different Services, so a path that slips past normalisation shows up as `root`. */
async function setUp(t: ExecutionContext, opts: { edge?: Partial<EdgeHardeningOptions>; overload?: OverloadLimits } = {}): Promise<Stack> {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const b = await useEchoBackend(t, { service: 'b' });
  const root = await useEchoBackend(t, { service: 'root' });
  const cert = await (await createTestCA()).issue({ dnsNames: [tlsHost] });
  await writeFile(
    tmp.file('app.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('b', [{ address: b.address, port: b.port }]),
      ...serviceWithEndpoints('root', [{ address: root.address, port: root.port }]),
      ingress('edge', { rules: [{ host, paths: [{ path: '/b', pathType: 'Exact', service: 'b' }, { path: '/', service: 'root' }] }] }),
      tlsSecret('tls', cert.certPem, cert.keyPem),
      ingress('tls', { rules: [{ host: tlsHost, paths: [{ path: '/', service: 'b' }] }], tls: [{ hosts: [tlsHost], secretName: 'tls' }] }),
    ]),
  );
  const stack = await startStack(t, {
    manifestsDir: tmp.path,
    ...(opts.edge ? { edge: { ...defaultEdgeHardening, ...opts.edge } } : {}),
    ...(opts.overload ? { overload: opts.overload } : {}),
  });
  await stack.envoy.waitForListener('ingress_http');
  return stack;
}

function get(stack: Stack, path: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return httpGet({ port: stack.httpPort, hostHeader: host, path, headers });
}

function served(res: HttpResult): string {
  return res.status === 200 ? `${String(res.json?.service)} ${String(res.json?.path)}` : `status ${res.status}`;
}

/**
 * Sends `head` on a fresh connection and resolves with everything Envoy wrote before it closed. A reset counts as
 * a close: Envoy closing a connection whose request it never read (a refused one) makes the kernel send RST.
 */
function rawExchange(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET') reject(err);
    });
    socket.on('close', () => resolve(received));
    socket.write(head);
  });
}

test('default: /a/../b and //b route (and are forwarded) as /b', async (t) => {
  const stack = await setUp(t);
  t.is(served(await get(stack, '/b')), 'b /b');
  t.is(served(await get(stack, '/a/../b')), 'b /b');
  t.is(served(await get(stack, '//b')), 'b /b');
  t.is(served(await get(stack, '/x/./b')), 'root /x/b');
});

test('switched off: --no-normalize-path and --no-merge-slashes leave the path as sent', async (t) => {
  const stack = await setUp(t, { edge: { normalizePath: false, mergeSlashes: false } });
  t.is(served(await get(stack, '/a/../b')), 'root /a/../b');
  t.is(served(await get(stack, '//b')), 'root //b');
});

test('default: a request header with an underscore in its name gets 400 and never reaches a backend', async (t) => {
  const stack = await setUp(t);
  t.is((await get(stack, '/b', { x_user: 'admin' })).status, 400);
  t.is(served(await get(stack, '/b', { 'x-user': 'admin' })), 'b /b');
  const stats = await stack.envoy.stats('requests_rejected_with_underscores_in_headers');
  t.true(Object.values(stats).some((v) => v >= 1), JSON.stringify(stats));
});

test('switched off: --allow-headers-with-underscores forwards the header', async (t) => {
  const stack = await setUp(t, { edge: { rejectHeadersWithUnderscores: false } });
  const res = await get(stack, '/b', { x_user: 'admin' });
  t.is(served(res), 'b /b');
  t.is(res.json?.headers?.x_user, 'admin');
});

test('default: an escaped slash (%2F) is unescaped and the client redirected to the plain path', async (t) => {
  const stack = await setUp(t);
  const res = await get(stack, '/x%2Fb');
  t.is(res.status, 307);
  t.is(res.headers.location, '/x/b');
  // Lower case too.
  t.is((await get(stack, '/x%2fb')).headers.location, '/x/b');
});

test('--escaped-slashes-action REJECT_REQUEST answers 400; KEEP_UNCHANGED forwards it as sent', async (t) => {
  const rejecting = await setUp(t, { edge: { escapedSlashesAction: 'REJECT_REQUEST' } });
  t.is((await get(rejecting, '/x%2Fb')).status, 400);
  const keeping = await setUp(t, { edge: { escapedSlashesAction: 'KEEP_UNCHANGED' } });
  t.is(served(await get(keeping, '/x%2Fb')), 'root /x%2Fb');
});

/** Envoy itself refused the request (the echo backend, a Node server, has a 16 KiB limit of its own). */
function refusedByEnvoy(res: HttpResult): boolean {
  return res.status === 431 && res.headers['x-envoy-upstream-service-time'] === undefined;
}

test('default: request headers over 60 KiB or over 100 headers get 431', async (t) => {
  const stack = await setUp(t);
  t.true(refusedByEnvoy(await get(stack, '/b', { 'x-big': 'a'.repeat(61 * 1024) })));
  t.is(served(await get(stack, '/b', { 'x-big': 'a'.repeat(12 * 1024) })), 'b /b');
  const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`x-h${i}`, '1']));
  t.true(refusedByEnvoy(await get(stack, '/b', many)));
  const fewer = Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`x-h${i}`, '1']));
  t.is(served(await get(stack, '/b', fewer)), 'b /b');
});

test('--max-request-headers-kb and --max-headers-count lower the limits', async (t) => {
  const stack = await setUp(t, { edge: { maxRequestHeadersKb: 8, maxHeadersCount: 20 } });
  t.true(refusedByEnvoy(await get(stack, '/b', { 'x-big': 'a'.repeat(9 * 1024) })));
  t.is(served(await get(stack, '/b', { 'x-big': 'a'.repeat(7 * 1024) })), 'b /b');
  const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`x-h${i}`, '1']));
  t.true(refusedByEnvoy(await get(stack, '/b', many)));
});

test('default: X-Forwarded-For from the client is not trusted; the peer address is the client', async (t) => {
  const stack = await setUp(t);
  const res = await get(stack, '/b', { 'x-forwarded-for': '203.0.113.7' });
  t.is(served(res), 'b /b');
  // Envoy appends the peer (for a loopback peer, the host's own address, as Envoy does) after what the client
  // sent, and takes the peer, not the client's claim, as the client address.
  const xff = String(res.json?.headers?.['x-forwarded-for']).split(',');
  t.is(xff.length, 2);
  t.is(xff[0], '203.0.113.7');
  t.is(res.json?.headers?.['x-envoy-external-address'], '127.0.0.1');
});

test('--xff-num-trusted-hops 1: the address a trusted proxy put in X-Forwarded-For is the client', async (t) => {
  const stack = await setUp(t, { edge: { xffNumTrustedHops: 1 } });
  const res = await get(stack, '/b', { 'x-forwarded-for': '198.51.100.1,203.0.113.7' });
  t.is(res.json?.headers?.['x-envoy-external-address'], '203.0.113.7');
  t.is(res.json?.headers?.['x-envoy-internal'], undefined);
});

test('--xff-num-trusted-hops 1: behind a TLS-terminating proxy, its X-Forwarded-Proto: https is not redirected again', async (t) => {
  const stack = await setUp(t, { edge: { xffNumTrustedHops: 1 } });
  const viaProxy = await httpGet({ port: stack.httpPort, hostHeader: tlsHost, path: '/x', headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' } });
  t.is(served(viaProxy), 'b /x');
  // A request the proxy forwarded as plain HTTP (or that says nothing) is redirected.
  const plain = await httpGet({ port: stack.httpPort, hostHeader: tlsHost, path: '/x', headers: { 'x-forwarded-proto': 'http' } });
  t.is(plain.status, 301);
  t.is((await httpGet({ port: stack.httpPort, hostHeader: tlsHost, path: '/x' })).status, 301);
});

test('default (no trusted hops): a client\'s X-Forwarded-Proto: https does not stop the redirect', async (t) => {
  const stack = await setUp(t);
  const res = await httpGet({ port: stack.httpPort, hostHeader: tlsHost, path: '/x', headers: { 'x-forwarded-proto': 'https' } });
  t.is(res.status, 301);
  t.regex(String(res.headers.location), /^https:\/\/tls\.example\.test/);
});

test('request headers timeout: a client that never finishes its headers is cut off', async (t) => {
  const stack = await setUp(t, { edge: { requestHeadersTimeoutSeconds: 1 } });
  const reply = await rawExchange(stack.httpPort, `GET /b HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `);
  t.regex(reply, /^HTTP\/1\.1 408 /);
  const stats = await stack.envoy.stats('downstream_rq_header_timeout');
  t.true(Object.values(stats).some((v) => v >= 1), JSON.stringify(stats));
});

test('idle timeout: a keep-alive connection with no request is closed', async (t) => {
  const stack = await setUp(t, { edge: { idleTimeoutSeconds: 1 } });
  const reply = await rawExchange(stack.httpPort, `GET /b HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  // One answer, then Envoy (not the client) closed the idle connection.
  t.regex(reply, /^HTTP\/1\.1 200 /);
  const stats = await stack.envoy.stats('downstream_cx_idle_timeout');
  t.true(Object.values(stats).some((v) => v >= 1), JSON.stringify(stats));
});

test('overload manager: past the heap limit Envoy answers 503 instead of taking on more work', async (t) => {
  // Envoy's own heap is far above 1 MiB, so the stop_accepting_requests action is active from the start.
  const stack = await setUp(t, { overload: { maxHeapBytes: 1024 * 1024, maxDownstreamConnections: 0 } });
  await stack.envoy.waitUntil(async () => (await get(stack, '/b')).status === 503, 10_000, 'overload 503');
  const stats = await stack.envoy.stats('overload.envoy.overload_actions.stop_accepting_requests.active');
  t.true(Object.values(stats).some((v) => v === 1), JSON.stringify(stats));
});

test('overload manager: connections over the global limit are refused', async (t) => {
  const stack = await setUp(t, { overload: { maxHeapBytes: 0, maxDownstreamConnections: 2 } });
  // waitForListener's probe connection counts until Envoy has seen it closed.
  const active = async (): Promise<number | undefined> =>
    (await stack.envoy.stats('^http\\.ingress_http\\.downstream_cx_active$'))['http.ingress_http.downstream_cx_active'];
  await stack.envoy.waitUntil(async () => (await active()) === 0, 10_000, 'no connection active');
  const held = await Promise.all([0, 1].map(() => openConnection(stack.httpPort)));
  t.teardown(() => held.forEach((s) => s.destroy()));
  // Envoy counts the two held connections and nothing else (earlier connections' closes are accounted for).
  await stack.envoy.waitUntil(async () => (await active()) === 2, 10_000, 'exactly the two held connections active');
  const reply = await rawExchange(stack.httpPort, `GET /b HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  t.is(reply, '');
  const stats = await stack.envoy.stats('downstream_global_cx_overflow');
  t.true(Object.values(stats).some((v) => v >= 1), JSON.stringify(stats));
  held.forEach((s) => s.destroy());
  await stack.envoy.waitUntil(async () => served(await get(stack, '/b')) === 'b /b', 10_000, 'served again');
  t.pass();
});

/** A connection Envoy has accepted (it answered one request on it) and that stays open. */
function openConnection(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('Envoy closed the connection without answering')));
    socket.once('data', () => resolve(socket));
    socket.write(`GET /b HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  });
}

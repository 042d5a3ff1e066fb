// Edge hardening defaults (envoy/edge-hardening.ts, the overload manager in envoy/bootstrap.ts), each shown
// through the real Envoy the controller programs, and each switch shown to turn its default off: path and header
// rules, timeouts, HTTP/2 stream and window limits (a raw client opening more streams than allowed), the
// per-connection buffer limit (slow readers), overload actions.
import http from 'node:http';
import net from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { defaultEdgeHardening, type EdgeHardeningOptions } from '../envoy/edge-hardening.js';
import type { OverloadLimits } from '../envoy/bootstrap.js';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { ECHO_DELAY_HEADER } from './harness/echo-backend.js';
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
  const stack = await setUp(t, { overload: { memory: { source: 'heap', maxBytes: 1024 * 1024 }, maxDownstreamConnections: 0 } });
  await stack.envoy.waitUntil(async () => (await get(stack, '/b')).status === 503, 10_000, 'overload 503');
  const stats = await stack.envoy.stats('overload.envoy.overload_actions.stop_accepting_requests.active');
  t.true(Object.values(stats).some((v) => v === 1), JSON.stringify(stats));
});

test('overload manager: connections over the global limit are refused', async (t) => {
  const stack = await setUp(t, { overload: { memory: { source: 'none' }, maxDownstreamConnections: 2 } });
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

// --- HTTP/2 limits, per-connection buffers, overload actions (Envoy's edge-proxy guidance) ---

/** One HTTP/2 frame: 9-byte header (length, type, flags, stream id) and payload. */
function h2Frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type, 3);
  header.writeUInt8(flags, 4);
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}

/** HPACK literal header field without indexing, new name, no Huffman (every length here is under 127). */
function hpackLiteral(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x00, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
}

const h2 = { data: 0, headers: 1, rstStream: 3, settings: 4, goaway: 7, endStream: 0x1, endHeaders: 0x4, ack: 0x1, refusedStream: 7 };

interface H2Outcome {
  /** SETTINGS Envoy sent, by identifier (3: MAX_CONCURRENT_STREAMS, 4: INITIAL_WINDOW_SIZE). */
  settings: Map<number, number>;
  /** Connection-level WINDOW_UPDATE increments Envoy sent on stream 0. */
  connectionWindowIncrement: number;
  /** Streams answered with :status 200 (HPACK static index 8). */
  ok: number;
  /** Streams Envoy reset with REFUSED_STREAM, and whether it sent GOAWAY. */
  refused: number;
  goaway: boolean;
}

/**
 * A client that does not wait for Envoy's SETTINGS: it opens `streams` requests at once on one h2c connection
 * (each held `delayMs` by the backend, so all are open together), answers Envoy's SETTINGS, and collects what
 * happened to each stream. Node's own client cannot do this: it never opens more streams than the peer allows.
 */
function h2cBurst(port: number, streams: number, delayMs: number): Promise<H2Outcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const outcome: H2Outcome = { settings: new Map(), connectionWindowIncrement: 0, ok: 0, refused: 0, goaway: false };
    const settled = new Set<number>();
    let buffered = Buffer.alloc(0);
    const finish = (): void => {
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(finish, 20_000);
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? finish() : reject(err)));
    socket.on('close', () => (clearTimeout(timer), resolve(outcome)));
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 9) {
        const length = buffered.readUIntBE(0, 3);
        if (buffered.length < 9 + length) break;
        const [type, flags, streamId] = [buffered.readUInt8(3), buffered.readUInt8(4), buffered.readUInt32BE(5) & 0x7fffffff];
        const payload = buffered.subarray(9, 9 + length);
        buffered = buffered.subarray(9 + length);
        if (type === h2.settings && (flags & h2.ack) === 0) {
          for (let i = 0; i + 6 <= payload.length; i += 6) outcome.settings.set(payload.readUInt16BE(i), payload.readUInt32BE(i + 2));
          socket.write(h2Frame(h2.settings, h2.ack, 0));
        } else if (type === 8 && streamId === 0) {
          outcome.connectionWindowIncrement += payload.readUInt32BE(0) & 0x7fffffff;
        } else if (type === h2.headers && !settled.has(streamId)) {
          settled.add(streamId);
          if (payload[0] === 0x88) outcome.ok += 1;
        } else if (type === h2.rstStream && !settled.has(streamId)) {
          settled.add(streamId);
          if (payload.readUInt32BE(0) === h2.refusedStream) outcome.refused += 1;
        } else if (type === h2.goaway) {
          outcome.goaway = true;
        }
        if (settled.size === streams) finish();
      }
    });
    const requests = Array.from({ length: streams }, (_, i) =>
      h2Frame(
        h2.headers,
        h2.endStream | h2.endHeaders,
        2 * i + 1,
        Buffer.concat([
          Buffer.from([0x82, 0x86]), // :method GET, :scheme http
          hpackLiteral(':path', '/b'),
          hpackLiteral(':authority', host),
          hpackLiteral(ECHO_DELAY_HEADER, String(delayMs)),
        ]),
      ),
    );
    socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), h2Frame(h2.settings, 0, 0), ...requests]));
  });
}

test('default: HTTP/2 clients get 100 concurrent streams, a 64 KiB stream window and a 1 MiB connection window; streams beyond 100 are refused', async (t) => {
  const stack = await setUp(t);
  const outcome = await h2cBurst(stack.httpPort, 150, 1500);
  t.is(outcome.settings.get(3), 100, 'SETTINGS_MAX_CONCURRENT_STREAMS');
  t.is(outcome.settings.get(4), 65_536, 'SETTINGS_INITIAL_WINDOW_SIZE');
  // The connection window starts at 65,535 (RFC 9113) and Envoy raises it to its setting.
  t.is(65_535 + outcome.connectionWindowIncrement, 1_048_576);
  t.is(outcome.ok, 100, JSON.stringify({ ...outcome, settings: [...outcome.settings] }));
  t.is(outcome.refused, 50);
});

test('--http2-max-concurrent-streams 200: the same 150 streams are all served', async (t) => {
  const stack = await setUp(t, { edge: { http2MaxConcurrentStreams: 200 } });
  const outcome = await h2cBurst(stack.httpPort, 150, 1500);
  t.is(outcome.settings.get(3), 200);
  t.is(outcome.ok, 150, JSON.stringify({ ...outcome, settings: [...outcome.settings] }));
  t.is(outcome.refused, 0);
});

/**
 * A backend answering every request with an endless body as fast as its connection takes it, and the time it last
 * got to write: slow readers in front of Envoy make it stall.
 */
async function useEndlessBackend(t: ExecutionContext): Promise<{ port: number; requests(): number; stalledFor(): number }> {
  let lastProgress = Date.now();
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests += 1;
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(16_384, 0x61);
    const pump = (): void => {
      lastProgress = Date.now();
      while (res.write(chunk)) lastProgress = Date.now();
      res.once('drain', pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => (server.closeAllConnections(), server.close()));
  return { port: (server.address() as net.AddressInfo).port, requests: () => requests, stalledFor: () => Date.now() - lastProgress };
}

/** Envoy's allocated memory (bytes) held while four clients that read nothing download an endless body. */
async function memoryHeldBySlowReaders(t: ExecutionContext, edge: Partial<EdgeHardeningOptions>): Promise<number> {
  const backend = await useEndlessBackend(t);
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  await writeFile(
    tmp.file('app.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('endless', [{ address: '127.0.0.1', port: backend.port }]),
      ingress('endless', { rules: [{ host: 'endless.example.test', paths: [{ path: '/', service: 'endless' }] }] }),
    ]),
  );
  const stack = await startStack(t, { manifestsDir: tmp.path, edge: { ...defaultEdgeHardening, ...edge } });
  await stack.envoy.waitForListener('ingress_http');
  const allocated = async (): Promise<number> => Number((JSON.parse((await stack.envoy.admin('/memory')).body) as { allocated: string }).allocated);
  const before = await allocated();
  const readers = Array.from({ length: 4 }, () => {
    const socket = net.connect(stack.httpPort, '127.0.0.1');
    socket.pause(); // reads nothing: the kernel's buffers fill, then Envoy's
    socket.write('GET / HTTP/1.1\r\nHost: endless.example.test\r\n\r\n');
    return socket;
  });
  t.teardown(() => readers.forEach((s) => s.destroy()));
  // Every buffer on the way is full once the backend cannot write any more.
  await stack.envoy.waitUntil(async () => backend.requests() === readers.length && backend.stalledFor() > 1000, 20_000, 'the backend to stall');
  return (await allocated()) - before;
}

test('default: a slow reader holds at most about 32 KiB of Envoy\'s buffers per connection (Envoy\'s own default: 1 MiB)', async (t) => {
  // Four slow readers; each has a client and a backend connection buffer.
  const held = await memoryHeldBySlowReaders(t, {});
  t.true(held < 1024 * 1024, `${held} bytes`);
  const unlimited = await memoryHeldBySlowReaders(t, { perConnectionBufferLimitBytes: 0 });
  t.true(unlimited > 3 * 1024 * 1024, `${unlimited} bytes with --per-connection-buffer-limit-bytes 0`);
  t.log(`Envoy memory held by 4 slow readers: ${held} bytes (32 KiB limit), ${unlimited} bytes (Envoy's default)`);
});

test('overload manager: under heap pressure idle client connections are closed after 2 s (reduce_timeouts); the high-memory stream reset is fully armed', async (t) => {
  // Envoy's heap is far above 1 MiB: the scaled actions are saturated from the start.
  const stack = await setUp(t, { overload: { memory: { source: 'heap', maxBytes: 1024 * 1024 }, maxDownstreamConnections: 0 } });
  const scale = async (action: string): Promise<number | undefined> =>
    (await stack.envoy.stats(`^overload\\.envoy\\.overload_actions\\.${action}\\.scale_percent$`))[`overload.envoy.overload_actions.${action}.scale_percent`];
  await stack.envoy.waitUntil(async () => (await scale('reduce_timeouts')) === 100, 10_000, 'reduce_timeouts saturated');
  t.is(await scale('reset_high_memory_stream'), 100);
  const started = Date.now();
  // A connection that never sends a request: idle from the start (the configured idle timeout is 3600 s).
  t.is(await rawExchange(stack.httpPort, ''), '');
  const closedAfter = Date.now() - started;
  t.true(closedAfter >= 1500 && closedAfter < 10_000, `closed after ${closedAfter} ms`);
});

test('overload manager switched off: --no-reduce-timeouts and --no-reset-high-memory-streams leave the idle timeout alone', async (t) => {
  const stack = await setUp(t, { overload: { memory: { source: 'heap', maxBytes: 1024 * 1024 }, maxDownstreamConnections: 0, reduceTimeouts: false, resetHighMemoryStreams: false } });
  await stack.envoy.waitUntil(async () => (await get(stack, '/b')).status === 503, 10_000, 'overload 503');
  t.deepEqual(await stack.envoy.stats('^overload\\.envoy\\.overload_actions\\.(reduce_timeouts|reset_high_memory_stream)\\.'), {});
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect(stack.httpPort, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  t.teardown(() => socket.destroy());
  let closed = false;
  socket.once('close', () => (closed = true));
  await new Promise((r) => setTimeout(r, 4000));
  t.false(closed);
});

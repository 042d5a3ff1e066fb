// End to end through a real Envoy: ingress-nginx limit-rps / limit-connections, denylist-source-range,
// proxy-connect-timeout and the session-cookie-* family, with the compatibility layer switched on per IngressClass
// (envoy-ingress.io/nginx-annotations "true" on the class "migrated") while the controller runs WITHOUT
// --nginx-annotations. One stack for the file, one host per case.
import { spawn, type ChildProcess } from 'node:child_process';
import { rename, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import test from 'ava';
import { nginxAnnotationsClassAnnotation } from '../controller/translate/ingress/ingress-class-nginx.js';
import { ECHO_DELAY_HEADER } from './harness/echo-backend.js';
import type { HttpGetOptions, HttpResult } from './harness/http-client.js';
import { waitFor } from './harness/wait.js';
import { ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { nginxIngress } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf as endpoint, hostGet as get, type FileScope, corsPreflight } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';

interface World {
  stack: Stack;
  blackhole: { address: string; port: number };
  /** Rewrites the manifests with the class "migrated" annotated `value` (the controller watches the file). */
  setClassOptIn(value: string): Promise<void>;
}

/** An Ingress of the class that opted in to the nginx annotations. */
const migrated = (name: string, host: string, service: string, values: Record<string, string>, p = '/'): object =>
  nginxIngress(name, host, service, values, p, 'migrated');

/**
 * A TCP address that never completes a handshake: a listening socket (backlog 0) that never accepts, whose accept
 * queue the test fills itself, so the kernel drops every further SYN and connects to it time out.
 */
async function startBlackhole(scope: FileScope): Promise<{ address: string; port: number }> {
  const script =
    'import socket,time\ns=socket.socket()\ns.bind(("127.0.0.3",0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(3600)\n';
  const child: ChildProcess = spawn('python3', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  scope.defer(() => child.kill('SIGKILL'));
  const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const port = Number(await new Promise<string>((resolve) => lines.once('line', resolve)));
  // Connections that fill the accept queue (those beyond it stay in SYN_SENT: the queue is full either way).
  for (let i = 0; i < 3; i++) {
    const socket = net.connect({ host: '127.0.0.3', port });
    socket.on('error', () => undefined);
    scope.defer(() => socket.destroy());
  }
  return { address: '127.0.0.3', port };
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const start = scope.startBackend;
  const web = await start({ service: 'web' });
  const stickyA = await start({ service: 'sticky-a', host: '127.0.0.1' });
  const stickyB = await start({ service: 'sticky-b', host: '127.0.0.2' });
  const blackhole = await startBlackhole(scope);
  const classMigrated = ingressClass('migrated', false) as { metadata: { annotations: Record<string, string> } };
  classMigrated.metadata.annotations[nginxAnnotationsClassAnnotation] = 'true';
  const objects = [
    ingressClass(),
    classMigrated,
    ...serviceWithEndpoints('web', [endpoint(web)]),
    ...serviceWithEndpoints('sticky', [endpoint(stickyA), endpoint(stickyB)]),
    ...serviceWithEndpoints('blackhole', [blackhole]),
    migrated('rps', 'rps.test', 'web', { 'limit-rps': '2' }),
    migrated('rps-burst', 'rps-burst.test', 'web', { 'limit-rps': '1', 'limit-burst-multiplier': '3' }),
    migrated('rps-exempt', 'rps-exempt.test', 'web', { 'limit-rps': '1', 'limit-burst-multiplier': '1', 'limit-whitelist': '127.0.0.5/32, 10.0.0.0/8' }),
    // Per minute: no refill can come between the two GETs below.
    migrated('rps-cors', 'rps-cors.test', 'web', { 'limit-rpm': '1', 'limit-burst-multiplier': '1', 'enable-cors': 'true' }),
    migrated('rpm', 'rpm.test', 'web', { 'limit-rpm': '1', 'limit-burst-multiplier': '1' }),
    migrated('connections', 'connections.test', 'web', { 'limit-connections': '2' }),
    migrated('deny', 'deny.test', 'web', { 'denylist-source-range': '127.0.0.2/32, 10.0.0.0/8' }),
    migrated('allow-deny', 'allow-deny.test', 'web', { 'allowlist-source-range': '127.0.0.0/8', 'denylist-source-range': '127.0.0.3' }),
    migrated('connect', 'connect.test', 'blackhole', { 'proxy-connect-timeout': '1' }),
    migrated('connect-default', 'connect-default.test', 'blackhole', {}),
    migrated('cookie', 'cookie.test', 'sticky', {
      affinity: 'cookie',
      'session-cookie-name': 'route',
      'session-cookie-path': '/app',
      'session-cookie-max-age': '3600',
      'session-cookie-expires': '7200',
      'session-cookie-samesite': 'Strict',
      'session-cookie-secure': 'true',
    }),
    migrated('cookie-location', 'cookie-location.test', 'sticky', { affinity: 'cookie' }, '/cart'),
    // The default class has no setting and the controller no --nginx-annotations: nginx annotations are ignored.
    nginxIngress('native', 'native.test', 'web', { 'denylist-source-range': '127.0.0.0/8', 'limit-rps': '1' }),
  ];
  const setClassOptIn = async (value: string): Promise<void> => {
    classMigrated.metadata.annotations[nginxAnnotationsClassAnnotation] = value;
    await writeFile(path.join(dir, 'objects.yaml.tmp'), toYaml(objects));
    await rename(path.join(dir, 'objects.yaml.tmp'), path.join(dir, 'objects.yaml'));
  };
  const stack = await scope.startStack({ dir, objects, ready: { host: 'cookie.test' } });
  return { stack, blackhole, setClassOptIn };
});

/**
 * Sends `count` requests at once from `localAddress`; the number of each status, and how many token refills (one
 * per second) can have happened meanwhile, so bounds stay exact on a slow machine.
 */
async function burst(w: World, host: string, count: number, localAddress: string, extra: Partial<HttpGetOptions> = {}): Promise<Map<number, number> & { refills: number }> {
  const started = Date.now();
  const results = await Promise.all(Array.from({ length: count }, () => get(w, host, '/', { localAddress, ...extra })));
  const counts = Object.assign(new Map<number, number>(), { refills: Math.floor((Date.now() - started) / 1000) + 1 });
  for (const r of results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return counts;
}

test('limit-rps 2: a burst of 30 from one client gets the burst of 2 x 5 = 10 plus the first request (nginx: burst=10 nodelay; plus the refills during the burst), the rest 503; another client has its own bucket', async (t) => {
  const w = await world(t);
  const first = await burst(w, 'rps.test', 30, '127.0.0.1');
  const ok = first.get(200) ?? 0;
  t.log(`client 127.0.0.1: ${ok} x 200, ${first.get(503) ?? 0} x 503`);
  t.true(ok >= 11 && ok <= 11 + 2 * first.refills, `${ok} requests passed`);
  t.is(first.get(503), 30 - ok);
  const other = await burst(w, 'rps.test', 5, '127.0.0.2');
  t.deepEqual([...other], [[200, 5]], 'a second client is not limited by the first one\'s requests');
});

test('limit-rps 1 with limit-burst-multiplier 3: a burst of 10 gets 1 + 3 (plus the refills during the burst)', async (t) => {
  const w = await world(t);
  const counts = await burst(w, 'rps-burst.test', 10, '127.0.0.4');
  const ok = counts.get(200) ?? 0;
  t.log(`${ok} x 200, ${counts.get(503) ?? 0} x 503`);
  t.true(ok >= 4 && ok <= 4 + counts.refills, `${ok} requests passed`);
  t.is(counts.get(503), 10 - ok);
});

test('limit-whitelist: a listed client is never limited, the others are (limit-rps 1 x 1)', async (t) => {
  const w = await world(t);
  const exempt = await burst(w, 'rps-exempt.test', 15, '127.0.0.5');
  t.deepEqual([...exempt], [[200, 15]]);
  const limited = await burst(w, 'rps-exempt.test', 15, '127.0.0.6');
  const ok = limited.get(200) ?? 0;
  t.log(`127.0.0.6: ${ok} x 200, ${limited.get(503) ?? 0} x 503`);
  t.true(ok >= 2 && ok <= 2 + limited.refills, `${ok} requests passed`);
  t.is(limited.get(503), 15 - ok);
});

test('limit-rpm with enable-cors: CORS preflights are answered without using the client\'s tokens, as nginx answers them before limit_req', async (t) => {
  const w = await world(t);
  const preflight = corsPreflight('https://app.example.test', 'GET', { localAddress: '127.0.0.7' });
  for (let i = 0; i < 5; i++) {
    const r = await get(w, 'rps-cors.test', '/', preflight);
    t.is(r.status, 204);
    t.is(r.headers['access-control-allow-origin'], '*');
  }
  t.is((await get(w, 'rps-cors.test', '/', { localAddress: '127.0.0.7' })).status, 200, 'the bucket of 1 + 1 is still full');
  t.is((await get(w, 'rps-cors.test', '/', { localAddress: '127.0.0.7' })).status, 200);
  t.is((await get(w, 'rps-cors.test', '/', { localAddress: '127.0.0.7' })).status, 503);
});

test('limit-rpm 1 x 1: each client gets 1 + 1 requests, then 1 a minute, and 30 other clients do not reset its bucket', async (t) => {
  const w = await world(t);
  const client = (i: number): string => `127.0.1.${i}`;
  t.is((await get(w, 'rpm.test', '/', { localAddress: client(1) })).status, 200);
  t.is((await get(w, 'rpm.test', '/', { localAddress: client(1) })).status, 200, 'nginx\'s burst=1 nodelay: the first request and one more');
  t.is((await get(w, 'rpm.test', '/', { localAddress: client(1) })).status, 503);
  for (let i = 2; i <= 31; i++) t.is((await get(w, 'rpm.test', '/', { localAddress: client(i) })).status, 200, `client ${client(i)}`);
  // More clients than Envoy's default of 20 tracked buckets have come since: the first one's is still empty.
  t.is((await get(w, 'rpm.test', '/', { localAddress: client(1) })).status, 503);
});

test('limit-connections 2: of 5 slow requests at once, 2 are served and 3 get 503 at once', async (t) => {
  const w = await world(t);
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: 5 }, async () => {
      const r = await get(w, 'connections.test', '/', { headers: { [ECHO_DELAY_HEADER]: '1500' } });
      return { status: r.status, overloaded: r.headers['x-envoy-overloaded'], ms: Date.now() - started };
    }),
  );
  const served = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 503);
  t.is(served.length, 2);
  t.is(refused.length, 3);
  t.true(refused.every((r) => r.overloaded === 'true'), 'refused by the circuit breaker');
  t.true(Math.max(...refused.map((r) => r.ms)) < Math.min(...served.map((r) => r.ms)), 'refused without waiting for a slot');
  // Once the slow ones are done the limit has room again.
  t.is((await get(w, 'connections.test', '/')).status, 200);
});

test('denylist-source-range: listed clients get 403, others are served', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'deny.test', '/', { localAddress: '127.0.0.1' })).status, 200);
  const denied = await get(w, 'deny.test', '/', { localAddress: '127.0.0.2' });
  t.is(denied.status, 403);
  t.is(denied.json, undefined, 'answered by Envoy, not the backend');
});

test('denylist-source-range beside an allow-list: the deny-list wins inside the allowed range', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'allow-deny.test', '/', { localAddress: '127.0.0.1' })).status, 200);
  t.is((await get(w, 'allow-deny.test', '/', { localAddress: '127.0.0.2' })).status, 200);
  t.is((await get(w, 'allow-deny.test', '/', { localAddress: '127.0.0.3' })).status, 403);
});

test('proxy-connect-timeout 1: a backend that never accepts gives 503 "connection timeout" after about 1 s, not Envoy\'s 5 s', async (t) => {
  const w = await world(t);
  // The precondition: the address really swallows connection attempts.
  const outcome = await new Promise<string>((resolve) => {
    const socket = net.connect({ host: w.blackhole.address, port: w.blackhole.port });
    socket.setTimeout(500, () => resolve('timeout'));
    socket.on('connect', () => resolve('connected'));
    socket.on('error', (e) => resolve(e.message));
  });
  t.is(outcome, 'timeout');
  const timed = async (host: string): Promise<{ r: HttpResult; ms: number }> => {
    const started = Date.now();
    const r = await get(w, host, '/');
    return { r, ms: Date.now() - started };
  };
  const [configured, defaulted] = await Promise.all([timed('connect.test'), timed('connect-default.test')]);
  t.log(`proxy-connect-timeout 1: ${configured.r.status} after ${configured.ms} ms (${configured.r.body.trim()}); default: after ${defaulted.ms} ms`);
  t.is(configured.r.status, 503);
  t.regex(configured.r.body, /connection timeout/);
  t.true(configured.ms >= 900 && configured.ms < 4000, `answered after ${configured.ms} ms`);
  t.is(defaulted.r.status, 503);
  t.true(defaulted.ms >= 4500, `without the annotation Envoy waits its 5 s default (${defaulted.ms} ms)`);
  const dump = JSON.stringify(await w.stack.envoy.configDump());
  t.regex(dump, /"name":"default\/blackhole\/80~connect=1000ms"[^]*?"connect_timeout":"1s"/);
});

test('session-cookie-*: the affinity cookie carries Path, Expires, Max-Age, SameSite and Secure, and still sticks', async (t) => {
  const w = await world(t);
  const first = await get(w, 'cookie.test', '/');
  t.is(first.status, 200);
  const setCookie = first.headers['set-cookie']?.[0] ?? '';
  t.log(setCookie);
  t.regex(setCookie, /^route=[^;]+/);
  const attributes = setCookie.split(';').slice(1).map((a) => a.trim());
  t.true(attributes.includes('Max-Age=3600'));
  t.true(attributes.some((a) => a.startsWith('Expires=')), 'both, as nginx sends them');
  t.true(attributes.includes('Path=/app'));
  t.true(attributes.includes('SameSite=Strict'));
  t.true(attributes.includes('Secure'));
  const cookie = setCookie.split(';')[0] as string;
  const services = new Set<string>();
  for (let i = 0; i < 8; i++) services.add(String((await get(w, 'cookie.test', '/', { headers: { cookie } })).json?.service));
  t.is(services.size, 1);
});

// Serial tests run before the others: the class is back to "true" when they start.
test.serial('switching the IngressClass annotation to "false" and back turns the nginx annotations of its Ingresses off and on', async (t) => {
  const w = await world(t);
  const deniedClient = async (): Promise<number> => (await get(w, 'deny.test', '/', { localAddress: '127.0.0.2' })).status;
  t.is(await deniedClient(), 403);
  await w.setClassOptIn('false');
  await waitFor(async () => (await deniedClient()) === 200, { description: 'the deny-list is gone', timeoutMs: 20_000 });
  await w.setClassOptIn('true');
  await waitFor(async () => (await deniedClient()) === 403, { description: 'the deny-list is back', timeoutMs: 20_000 });
  t.pass();
});

test('affinity cookie without session-cookie-path: its Path is the Ingress path, as nginx\'s location', async (t) => {
  const w = await world(t);
  const r = await get(w, 'cookie-location.test', '/cart/items');
  t.is(r.status, 200);
  const setCookie = r.headers['set-cookie']?.[0] ?? '';
  t.regex(setCookie, /^INGRESSCOOKIE=[^;]+/);
  t.true(setCookie.split(';').map((a) => a.trim()).includes('Path=/cart'), setCookie);
});

test('an Ingress of a class without the opt-in (and no --nginx-annotations) keeps its nginx annotations ignored', async (t) => {
  const w = await world(t);
  const counts = await burst(w, 'native.test', 8, '127.0.0.1');
  t.deepEqual([...counts], [[200, 8]], 'neither the deny-list nor limit-rps 1 applies');
});

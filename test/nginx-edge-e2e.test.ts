// End to end with --nginx-annotations: ingress-nginx ssl-passthrough, default-backend and custom-http-errors ->
// controller (standalone) -> a real Envoy -> backends, one host per case, one stack for the whole file.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { EchoBackend } from './harness/echo-backend.js';
import { httpGet, httpsGet, type HttpResult } from './harness/http-client.js';
import { createTestCA, type IssuedCertificate, type TestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { nginx } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf as endpoint, hostGet as get, type FileScope } from './fixtures/shared-stack.js';
import { freePort, startStack, type Stack } from './fixtures/standalone-stack.js';
import { runMigrate } from '../cli/migrate-command.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { createTempDir } from './harness/temp-dir.js';

interface World {
  stack: Stack;
  /** The manifest directory (flapping.yaml there is rewritten by a test). */
  dir: string;
  web: EchoBackend;
  ca: TestCA;
  /** The certificate the passthrough backend itself serves (Envoy never has it). */
  backendCert: IssuedCertificate;
  /** The certificate Envoy terminates term.test with. */
  envoyCert: IssuedCertificate;
  passBackend: EchoBackend;
  /** Requests the error-page backend received, in order. */
  errorRequests: ErrorPageRequest[];
}

interface ErrorPageRequest {
  path: string;
  headers: IncomingMessage['headers'];
}

async function listen(scope: FileScope, server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  scope.defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/**
 * Like ingress-nginx's custom-error-pages image: answers with the status in X-Code (404 without one) and a JSON
 * page naming what it was told, so the client sees the error backend's own status and body.
 */
async function startErrorPages(scope: FileScope, seen: ErrorPageRequest[]): Promise<number> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const code = Number(req.headers['x-code'] ?? '404');
    res.writeHead(code, { 'content-type': 'application/json', 'x-error-page': 'yes' });
    res.end(JSON.stringify({ page: 'error', code, format: req.headers['x-format'] ?? null }));
  });
  return listen(scope, server);
}

/** A backend answering `/status/NNN` with that status (and a body saying so), anything else with 200. */
async function startStatusBackend(scope: FileScope): Promise<number> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/status\/(\d{3})/.exec(req.url ?? '');
    const status = match === null ? 200 : Number(match[1]);
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(`backend says ${status}`);
  });
  return listen(scope, server);
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const ca = await createTestCA();
  const backendCert = await ca.issue({ dnsNames: ['pass.test'] });
  const envoyCert = await ca.issue({ dnsNames: ['term.test'] });
  const errorsCert = await ca.issue({ dnsNames: ['errors-tls.test'] });
  const start = scope.startBackend;
  const passBackend = await start({ service: 'secure', tls: { cert: backendCert.certPem, key: backendCert.keyPem } });
  const web = await start({ service: 'web' });
  const fallbackPage = await start({ service: 'fallback-page' });
  const errorRequests: ErrorPageRequest[] = [];
  const errorPort = await startErrorPages(scope, errorRequests);
  const statusPort = await startStatusBackend(scope);
  // A port nothing listens on: Envoy's own 503 (connection refused).
  const closed = createServer();
  const closedPort = await new Promise<number>((resolve) => closed.listen(0, '127.0.0.1', () => resolve((closed.address() as AddressInfo).port)));
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('secure', [endpoint(passBackend)]),
    ...serviceWithEndpoints('web', [endpoint(web)]),
    ...serviceWithEndpoints('fallback-page', [endpoint(fallbackPage)]),
    ...serviceWithEndpoints('error-pages', [{ address: '127.0.0.1', port: errorPort }]),
    ...serviceWithEndpoints('statuses', [{ address: '127.0.0.1', port: statusPort }]),
    ...serviceWithEndpoints('refusing', [{ address: '127.0.0.1', port: closedPort }]),
    tlsSecret('errors-tls', errorsCert.certPem, errorsCert.keyPem),
    // A Service whose pods are all gone: no endpoints.
    ...serviceWithEndpoints('empty', []),
    tlsSecret('term-tls', envoyCert.certPem, envoyCert.keyPem),
    ingress('pass', {
      annotations: nginx({ 'ssl-passthrough': 'true' }),
      rules: [{ host: 'pass.test', paths: [{ path: '/', service: 'secure' }, { path: '/plain', service: 'web' }] }],
    }),
    ingress('term', {
      rules: [{ host: 'term.test', paths: [{ path: '/', service: 'web' }] }],
      tls: [{ hosts: ['term.test'], secretName: 'term-tls' }],
    }),
    ingress('fallback', {
      annotations: nginx({ 'default-backend': 'fallback-page' }),
      rules: [{ host: 'fallback.test', paths: [{ path: '/', service: 'empty' }, { path: '/up', service: 'web' }, { path: '/gone', service: 'no-such-service' }] }],
    }),
    ingress('errors', {
      annotations: nginx({ 'default-backend': 'error-pages', 'custom-http-errors': '404,503' }),
      rules: [{ host: 'errors.test', paths: [{ path: '/', service: 'statuses' }] }],
    }),
    ingress('flap', {
      annotations: nginx({ 'default-backend': 'fallback-page' }),
      rules: [{ host: 'flap.test', paths: [{ path: '/', service: 'flapping' }] }],
    }),
    ingress('errors-tls', {
      annotations: nginx({ 'default-backend': 'error-pages', 'custom-http-errors': '503' }),
      rules: [{ host: 'errors-tls.test', paths: [{ path: '/', service: 'statuses' }, { path: '/refused', service: 'refusing' }] }],
      tls: [{ hosts: ['errors-tls.test'], secretName: 'errors-tls' }],
    }),
    ingress('no-errors', {
      rules: [{ host: 'no-errors.test', paths: [{ path: '/', service: 'statuses' }] }],
    }),
  ];
  await writeFile(path.join(dir, 'flapping.yaml'), toYaml(serviceWithEndpoints('flapping', [endpoint(web)])));
  const stack = await scope.startStack({
    dir,
    objects,
    translate: { nginxAnnotations: true },
    waitForHttpsListener: true,
    ready: { host: 'errors.test' },
  });
  return { stack, dir, web, ca, backendCert, envoyCert, passBackend, errorRequests };
});

/** The error-page request made for the request with this target (tests run concurrently: targets are unique). */
function errorRequestFor(w: World, uri: string): ErrorPageRequest | undefined {
  return w.errorRequests.find((r) => r.headers['x-original-uri'] === uri);
}

test('ssl-passthrough: the client completes TLS with the backend itself, through Envoy\'s 443 listener', async (t) => {
  const w = await world(t);
  const requestsBefore = w.passBackend.requests;
  const res = await httpsGet({ port: w.stack.httpsPort, servername: 'pass.test', hostHeader: 'pass.test', path: '/plain?x=1', ca: w.ca.certPem });
  // The backend's own certificate, not one Envoy holds.
  t.is(res.peerCertificate?.serialNumber, w.backendCert.serialNumber);
  t.is(res.status, 200);
  // Every path goes to the "/" path's backend over TLS (the TLS stream is not HTTP to Envoy): /plain too.
  t.is(res.json?.service, 'secure');
  t.is(res.json?.path, '/plain?x=1');
  t.true(res.json?.tls);
  t.is(res.json?.sni, 'pass.test');
  // Envoy added nothing: no proxy headers reach the backend.
  t.is(res.json?.headers['x-forwarded-proto'], undefined);
  t.is(res.json?.headers['x-request-id'], undefined);
  t.is(w.passBackend.requests, requestsBefore + 1);
});

test('ssl-passthrough: plain HTTP keeps serving the rules; other SNI names are still terminated by Envoy', async (t) => {
  const w = await world(t);
  const plain = await get(w, 'pass.test', '/plain');
  t.is(plain.status, 200);
  t.is(plain.json?.service, 'web');
  const terminated = await httpsGet({ port: w.stack.httpsPort, servername: 'term.test', hostHeader: 'term.test', path: '/', ca: w.ca.certPem });
  t.is(terminated.peerCertificate?.serialNumber, w.envoyCert.serialNumber);
  t.not(terminated.peerCertificate?.serialNumber, w.backendCert.serialNumber);
  t.is(terminated.json?.service, 'web');
  t.false(terminated.json?.tls, 'Envoy terminated TLS and forwarded plain HTTP');
});

// `envoy-ingress migrate` on the same objects: ssl-passthrough becomes a TLS listener in Passthrough mode and a
// TLSRoute, served by the Gateway through the real Envoy (without them the Gateway terminates nothing for pass.test:
// no listener claims its SNI, and the handshake fails).
// With --listener-sets the terminated host's HTTPS listener is in a ListenerSet beside the Gateway's Passthrough
// listener on the same port: both are served.
for (const listenerSets of [false, true]) {
test(`migrate${listenerSets ? ' --listener-sets' : ''}: ssl-passthrough becomes a Passthrough TLS listener and a TLSRoute; the client completes TLS with the backend, plain HTTP keeps the rules, another TLS host is terminated`, async (t) => {
  const w = await world(t);
  const out = await createTempDir('nginx-edge-migrated-');
  t.teardown(() => out.remove());
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const { report } = await runMigrate({
    manifests: w.dir,
    out: out.path,
    httpPort,
    httpsPort,
    httpsRedirectPort: 443,
    ...(listenerSets ? { listenerSets: true } : {}),
    classes: { ingressClassName: defaultTranslateOptions.ingressClassName, controllerName: defaultTranslateOptions.controllerName, nginxAnnotations: true },
  });
  t.is((report.summary.written['ListenerSet'] ?? 0) > 0, listenerSets);
  const pass = report.ingresses.find((i) => i.name === 'pass');
  t.deepEqual(pass?.paths.map((p) => p.result), ['same', 'same'], 'ssl-passthrough is carried');
  const after = await startStack(t, { manifestsDir: out.path, translate: { nginxAnnotations: true } });
  await after.envoy.waitForListener(`gateway/http/${httpPort}`);
  let res: HttpResult | undefined;
  await waitFor(
    async () => {
      res = await httpsGet({ port: httpsPort, servername: 'pass.test', hostHeader: 'pass.test', path: '/plain?x=1', ca: w.ca.certPem }).catch(() => undefined);
      return res?.status === 200;
    },
    { timeoutMs: 20_000, intervalMs: 250, description: 'passthrough through the Gateway' },
  ).catch(() => undefined);
  t.is(res?.peerCertificate?.serialNumber, w.backendCert.serialNumber, 'the backend\'s own certificate');
  t.is(res?.json?.service, 'secure', 'every path over TLS goes to the "/" path\'s backend');
  t.is(res?.json?.path, '/plain?x=1');
  t.true(res?.json?.tls);
  const plain = await httpGet({ port: httpPort, hostHeader: 'pass.test', path: '/plain' });
  t.is(plain.status, 200);
  t.is(plain.json?.service, 'web', 'plain HTTP keeps serving the rules');
  const terminated = await httpsGet({ port: httpsPort, servername: 'term.test', hostHeader: 'term.test', path: '/', ca: w.ca.certPem });
  t.is(terminated.peerCertificate?.serialNumber, w.envoyCert.serialNumber, 'the Gateway terminates another TLS host with its own certificate');
  t.is(terminated.json?.service, 'web');
});
}

test('default-backend: a Service with no endpoints is answered by the default backend; others are not', async (t) => {
  const w = await world(t);
  const empty = await get(w, 'fallback.test', '/some/page?q=1');
  t.is(empty.status, 200);
  t.is(empty.json?.service, 'fallback-page');
  t.is(empty.json?.path, '/some/page?q=1', 'the request is passed as it is');
  t.is(empty.json?.host, 'fallback.test');
  const up = await get(w, 'fallback.test', '/up');
  t.is(up.json?.service, 'web', 'a Service with endpoints serves its own paths');
  const gone = await get(w, 'fallback.test', '/gone');
  t.is(gone.status, 200, 'a missing Service has no endpoints either');
  t.is(gone.json?.service, 'fallback-page');
});

test('custom-http-errors: a 503 from the backend is replaced by the default backend\'s page, told about the error', async (t) => {
  const w = await world(t);
  const res = await get(w, 'errors.test', '/status/503?item=7', { headers: { accept: 'application/json' } });
  // The error backend's answer, status included (it answers with X-Code, as ingress-nginx's error pages do).
  t.is(res.status, 503);
  t.is(res.headers['x-error-page'], 'yes');
  t.deepEqual(res.json, { page: 'error', code: 503, format: 'application/json' });
  t.is(w.errorRequests.filter((r) => r.headers['x-original-uri'] === '/status/503?item=7').length, 1);
  const seen = errorRequestFor(w, '/status/503?item=7') as ErrorPageRequest;
  // ingress-nginx's error location does `rewrite (.*) / break`, which keeps the query string.
  t.is(seen.path, '/?item=7');
  t.is(seen.headers['host'], 'errors.test');
  t.is(seen.headers['x-code'], '503');
  t.is(seen.headers['x-format'], 'application/json');
  t.is(seen.headers['x-original-uri'], '/status/503?item=7');
  t.is(seen.headers['x-namespace'], 'default');
  t.is(seen.headers['x-ingress-name'], 'errors');
  t.is(seen.headers['x-service-name'], 'statuses');
  t.is(seen.headers['x-service-port'], '80');
  t.regex(String(seen.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});

test('custom-http-errors: 404 is replaced too; other statuses and other Ingresses are untouched', async (t) => {
  const w = await world(t);
  const notFound = await get(w, 'errors.test', '/status/404?untouched');
  t.is(notFound.status, 404);
  t.is(notFound.headers['x-error-page'], 'yes');
  t.is(errorRequestFor(w, '/status/404?untouched')?.headers['x-code'], '404');
  const other = await get(w, 'errors.test', '/status/500');
  t.is(other.status, 500);
  t.is(other.body, 'backend says 500');
  const ok = await get(w, 'errors.test', '/fine');
  t.is(ok.status, 200);
  t.is(ok.body, 'backend says 200');
  const elsewhere = await get(w, 'no-errors.test', '/status/503?elsewhere');
  t.is(elsewhere.status, 503);
  t.is(elsewhere.body, 'backend says 503');
  for (const uri of ['/status/500', '/fine', '/status/503?elsewhere']) t.is(errorRequestFor(w, uri), undefined, `the error backend saw nothing for ${uri}`);
});

test('default-backend: when a Service loses its endpoints the default backend takes over, and gives way when they return', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'flap.test', '/a')).json?.service, 'web');
  // Both listeners share the one 'ingress' route configuration, counted under whichever connection manager came first.
  const routeReloads = async (): Promise<number> =>
    Object.values(await w.stack.envoy.stats('^http\\.ingress_https?\\.rds\\.ingress\\.config_reload$')).reduce((sum, n) => sum + n, 0);
  const reloadsBefore = await routeReloads();
  t.true(reloadsBefore > 0);
  // Only the EndpointSlice changes: an endpoint-only update, the routes stay as they are; Envoy's fallback cluster
  // sends the requests on by itself.
  await writeFile(path.join(w.dir, 'flapping.yaml'), toYaml(serviceWithEndpoints('flapping', [])));
  const fallback = await waitFor(
    async () => {
      const res = await get(w, 'flap.test', '/a');
      return res.json?.service === 'fallback-page' ? res : undefined;
    },
    { description: 'the default backend answers flap.test', timeoutMs: 20_000 },
  );
  t.is(fallback.status, 200);
  t.is(fallback.json?.path, '/a');
  t.is(await routeReloads(), reloadsBefore, 'no route changed: Envoy switched by itself');
  await writeFile(path.join(w.dir, 'flapping.yaml'), toYaml(serviceWithEndpoints('flapping', [{ address: w.web.address, port: w.web.port }])));
  await waitFor(async () => (await get(w, 'flap.test', '/a')).json?.service === 'web', { description: 'web answers flap.test again', timeoutMs: 20_000 });
  t.pass();
});

test('custom-http-errors over TLS, and for Envoy\'s own 503 (the backend refuses connections)', async (t) => {
  const w = await world(t);
  const https = (p: string) => httpsGet({ port: w.stack.httpsPort, servername: 'errors-tls.test', hostHeader: 'errors-tls.test', path: p, ca: w.ca.certPem });
  const fromBackend = await https('/status/503?over-tls');
  t.is(fromBackend.status, 503);
  t.is(fromBackend.headers['x-error-page'], 'yes');
  t.is(errorRequestFor(w, '/status/503?over-tls')?.headers['host'], 'errors-tls.test');
  const refused = await https('/refused/x');
  t.is(refused.status, 503);
  t.is(refused.headers['x-error-page'], 'yes', 'Envoy\'s own 503 is replaced too');
  const seen = errorRequestFor(w, '/refused/x');
  t.is(seen?.headers['x-code'], '503');
  t.is(seen?.headers['x-service-name'], 'refusing');
});

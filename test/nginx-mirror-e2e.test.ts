// End to end with --nginx-annotations: ingress-nginx mirror-target / mirror-host (test/e2e/annotations/mirror.go and
// the annotations page), through the controller and a real Envoy. The Service `mirror` is a server that records
// what it receives: the Host and path nginx's mirror location would send (template.go buildMirrorLocations).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { httpGet } from './harness/http-client.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints } from './fixtures/manifests.js';
import { nginx } from './fixtures/nginx-manifests.js';
import { defineSharedWorld } from './fixtures/shared-stack.js';
import { freePort, startStack, type Stack } from './fixtures/standalone-stack.js';
import { runMigrate } from '../cli/migrate-command.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { createTempDir } from './harness/temp-dir.js';

interface Mirrored {
  method: string;
  path: string;
  host: string;
  body: string;
}

interface World {
  stack: Stack;
  /** The manifests directory (migrated by the last test). */
  dir: string;
  mirrored: Mirrored[];
}

async function startRecorder(mirrored: Mirrored[]): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      mirrored.push({ method: req.method ?? '', path: req.url ?? '', host: req.headers.host ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-length': 0 });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const backend = await scope.startBackend({ service: 'web' });
  const mirrored: Mirrored[] = [];
  const recorder = await startRecorder(mirrored);
  scope.defer(() => new Promise<void>((resolve) => recorder.close(() => resolve())));
  const mirrorPort = (recorder.address() as AddressInfo).port;
  const route = (name: string, host: string, values: Record<string, string>): object =>
    ingress(name, { annotations: nginx(values), rules: [{ host, paths: [{ path: '/', service: 'web' }] }] });
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('web', [{ address: backend.address, port: backend.port }]),
    ...serviceWithEndpoints('mirror', [{ address: '127.0.0.1', port: mirrorPort }]),
    route('fixed-path', 'path.mirror.test', { 'mirror-target': 'http://mirror.default.svc.cluster.local/mirror' }),
    route('request-uri', 'uri.mirror.test', { 'mirror-target': 'http://mirror.default.svc$request_uri', 'mirror-host': 'test.env.com' }),
    route('local', 'local.mirror.test', { 'mirror-target': 'http://localhost/mirror' }),
    route('plain', 'plain.test', {}),
  ];
  const stack = await scope.startStack({ dir, objects, translate: { nginxAnnotations: true }, ready: { host: 'plain.test' } });
  return { stack, dir, mirrored };
});

/** The first mirrored request for which `match` holds (the mirror is sent beside the request, not before its answer). */
const mirroredWith = (w: World, match: (m: Mirrored) => boolean): Promise<Mirrored> => waitFor(() => w.mirrored.find(match), { description: 'the mirrored request arrives' });

test('mirror-target with a path: the request is served by its backend and a copy goes to the target path, query kept, Host the target host', async (t) => {
  const w = await world(t);
  const answer = await httpGet({ port: w.stack.httpPort, hostHeader: 'path.mirror.test', path: '/app/x?q=1' });
  t.is(answer.status, 200);
  t.is(answer.json?.service, 'web');
  t.is(answer.json?.path, '/app/x?q=1', 'the backend gets the request as sent');
  const copy = await mirroredWith(w, (m) => m.path.startsWith('/mirror'));
  t.deepEqual(copy, { method: 'GET', path: '/mirror?q=1', host: 'mirror.default.svc.cluster.local', body: '' });
});

test('mirror-target ending in $request_uri with mirror-host: the request URI and the body as sent, Host mirror-host', async (t) => {
  const w = await world(t);
  const answer = await httpGet({ port: w.stack.httpPort, hostHeader: 'uri.mirror.test', path: '/orders/7?full=1', method: 'POST', body: 'hello mirror' });
  t.is(answer.json?.service, 'web');
  const copy = await mirroredWith(w, (m) => m.path.startsWith('/orders/7'));
  t.deepEqual(copy, { method: 'POST', path: '/orders/7?full=1', host: 'test.env.com', body: 'hello mirror' });
});

test('a mirror-target on the proxy host (localhost) is refused and reported; the requests are served all the same', async (t) => {
  const w = await world(t);
  const before = w.mirrored.length;
  t.is((await httpGet({ port: w.stack.httpPort, hostHeader: 'local.mirror.test', path: '/mirror-me' })).json?.service, 'web');
  const messages = w.stack.controller.reconciler.diagnostics.filter((d) => d.object.name === 'local').map((d) => d.message);
  t.true(messages.some((m) => /mirror-target "http:\/\/localhost\/mirror": .*requests are not mirrored/.test(m)), messages.join('\n'));
  t.false(w.mirrored.slice(before).some((m) => m.path.includes('mirror-me')));
});

// `envoy-ingress migrate` on the same objects: a mirror-target naming a Service of the Ingress's namespace becomes a
// RequestMirror filter; the mirror then gets the client's request as it is (its Host and path), which the report
// names; a target outside the cluster is not converted, and reported.
test('migrate: mirror-target to a Service becomes a RequestMirror filter; the copy carries the client\'s Host and path, as the report says', async (t) => {
  const w = await world(t);
  const out = await createTempDir('nginx-mirror-migrated-');
  t.teardown(() => out.remove());
  const httpPort = await freePort();
  const { report } = await runMigrate({
    manifests: w.dir,
    out: out.path,
    httpPort,
    httpsPort: await freePort(),
    classes: { ingressClassName: defaultTranslateOptions.ingressClassName, controllerName: defaultTranslateOptions.controllerName, nginxAnnotations: true },
  });
  const differencesOf = (name: string): string[] => report.ingresses.find((i) => i.name === name)?.paths[0]?.differences.filter((d) => d.id === 'mirror-target').map((d) => d.message) ?? [];
  t.regex(differencesOf('fixed-path')[0] ?? '', /Host mirror\.default\.svc\.cluster\.local and the path \/mirror/);
  t.regex(differencesOf('request-uri')[0] ?? '', /Host test\.env\.com and the path the request's own URI/);
  t.deepEqual(differencesOf('local'), [], 'a local target is refused by the Ingress too: nothing differs');
  const after = await startStack(t, { manifestsDir: out.path, translate: { nginxAnnotations: true } });
  await after.envoy.waitForListener(`gateway/http/${httpPort}`);
  let answer = await httpGet({ port: httpPort, hostHeader: 'path.mirror.test', path: '/migrated/x?q=1' });
  await waitFor(async () => (answer = await httpGet({ port: httpPort, hostHeader: 'path.mirror.test', path: '/migrated/x?q=1' })).status === 200, { timeoutMs: 20_000, description: 'the migrated route' }).catch(() => undefined);
  t.is(answer.json?.service, 'web', 'the request is served by its backend');
  const copy = await mirroredWith(w, (m) => m.path === '/migrated/x?q=1');
  t.deepEqual(copy, { method: 'GET', path: '/migrated/x?q=1', host: 'path.mirror.test', body: '' }, 'the RequestMirror copy: the client\'s Host and path');
  const posted = await httpGet({ port: httpPort, hostHeader: 'uri.mirror.test', path: '/migrated/orders?full=1', method: 'POST', body: 'hello gateway mirror' });
  t.is(posted.json?.service, 'web');
  const postedCopy = await mirroredWith(w, (m) => m.path === '/migrated/orders?full=1');
  t.deepEqual(postedCopy, { method: 'POST', path: '/migrated/orders?full=1', host: 'uri.mirror.test', body: 'hello gateway mirror' });
});

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
import type { Stack } from './fixtures/standalone-stack.js';

interface Mirrored {
  method: string;
  path: string;
  host: string;
  body: string;
}

interface World {
  stack: Stack;
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
  return { stack, mirrored };
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

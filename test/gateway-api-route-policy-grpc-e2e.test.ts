// End to end for a RoutePolicy on a GRPCRoute: manifests -> standalone controller -> a real Envoy -> gRPC backends
// (@grpc/grpc-js), called by a real gRPC client on the Gateway's HTTP listener (the client is 127.0.0.1).
// - Denials are gRPC answers: Envoy's local replies (RBAC for source ranges, ext_authz for basic and external auth, a
//   direct 500 for a policy it cannot honour) to a gRPC request are trailers-only responses (HTTP 200,
//   content-type application/grpc, grpc-status from the HTTP status: 403 -> PERMISSION_DENIED, 401 ->
//   UNAUTHENTICATED, 500 -> UNKNOWN), checked both through grpc-js and on the raw HTTP/2 stream.
// - Allowed clients and right credentials reach the backend; a policy of another namespace naming the GRPCRoute
//   changes nothing; cookie affinity sets its cookie in the response metadata and keeps a client that sends it back.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import test from 'ava';
import { echoService, grpcCall, startGrpcBackend } from './harness/grpc-echo.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';
const policyApi = 'gateway.envoy-ingress.io/v1alpha1';
const host = 'grpc-policy.example.test';
const methods = ['Open', 'Denied', 'Private', 'Broken', 'External', 'Sticky'];

const sha = (password: string): string => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function routePolicy(name: string, sectionName: string | undefined, spec: object, namespace = 'default'): object {
  return {
    apiVersion: policyApi,
    kind: 'RoutePolicy',
    metadata: { name, namespace, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'GRPCRoute', name: 'echo', ...(sectionName === undefined ? {} : { sectionName }) }], ...spec },
  };
}

/** The raw HTTP/2 answer to a gRPC call (empty message): status, headers and trailers as Envoy sent them. */
function rawGrpcAnswer(port: number, method: string): Promise<{ status: number; headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': `/${echoService}/${method}`, ':authority': host, 'content-type': 'application/grpc', te: 'trailers' });
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('trailers', (h) => (trailers = h));
    stream.on('data', () => undefined);
    stream.on('end', () => {
      session.close();
      resolve({ status: Number(headers[':status']), headers, trailers });
    });
    stream.on('error', reject);
    stream.end(Buffer.alloc(5));
  });
}

test('RoutePolicy on a GRPCRoute through Envoy: gRPC clients get PERMISSION_DENIED / UNAUTHENTICATED / UNKNOWN as gRPC answers, allowed ones the backend; another namespace\'s policy changes nothing; cookie affinity', async (t) => {
  t.timeout(120_000);
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const backends = { one: await startGrpcBackend('one', methods), two: await startGrpcBackend('two', methods) };
  t.teardown(() => Object.values(backends).forEach((b) => b.stop()));
  // The authorization service: `x-token: good` -> 200 with X-Auth-User, anything else 401.
  const checks: string[] = [];
  const authz = createServer((req, res) => {
    checks.push(req.url ?? '');
    if (req.headers['x-token'] === 'good') res.writeHead(200, { 'x-auth-user': 'alice' }).end();
    else res.writeHead(401, { 'content-type': 'text/plain' }).end('who are you?\n');
  });
  await new Promise<void>((resolve) => authz.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => authz.close(() => resolve())));
  const gatewayPort = await freePort();
  const rule = (method: string, service = 'one'): object => ({ name: method.toLowerCase(), matches: [{ method: { service: echoService, method } }], backendRefs: [{ name: service, port: 80 }] });
  const objects = [
    ...serviceWithEndpoints('one', [{ address: '127.0.0.1', port: backends.one.port }]),
    ...serviceWithEndpoints('both', [
      { address: '127.0.0.1', port: backends.one.port },
      { address: '127.0.0.1', port: backends.two.port },
    ]),
    ...serviceWithEndpoints('authz', [{ address: '127.0.0.1', port: (authz.address() as AddressInfo).port }]),
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'users', namespace: 'default' }, type: 'Opaque', stringData: { auth: `alice:${sha('wonderland')}\n` } },
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'default' },
      spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] },
    },
    {
      apiVersion: gatewayApi,
      kind: 'GRPCRoute',
      metadata: { name: 'echo', namespace: 'default' },
      spec: { parentRefs: [{ name: 'gw' }], hostnames: [host], rules: [rule('Open'), rule('Denied'), rule('Private'), rule('Broken'), rule('External'), rule('Sticky', 'both')] },
    },
    // Route-wide: loopback clients allowed; the rules with a policy of their own get theirs instead.
    routePolicy('loopback-only', undefined, { sourceRanges: { allow: ['127.0.0.0/8', '::1'] } }),
    routePolicy('deny-loopback', 'denied', { sourceRanges: { allow: ['0.0.0.0/0'], deny: ['127.0.0.1'] } }),
    routePolicy('users', 'private', { basicAuth: { secretRef: { name: 'users' }, realm: 'gRPC area' } }),
    routePolicy('no-secret', 'broken', { basicAuth: { secretRef: { name: 'missing' } } }),
    routePolicy('authz', 'external', { externalAuth: { backendRef: { name: 'authz', port: 80 }, path: '/verify', responseHeaders: ['X-Auth-User'] } }),
    routePolicy('sticky', 'sticky', { sessionAffinity: { cookie: { name: 'route', maxAgeSeconds: 600 } } }),
    // Another tenant naming the GRPCRoute `echo`: a policy only ever targets routes of its own namespace.
    routePolicy('intruder', undefined, { sourceRanges: { deny: ['0.0.0.0/0', '::/0'] } }, 'mallory'),
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  const call = (method: string, metadata: Record<string, string> = {}) => grpcCall(gatewayPort, host, method, metadata);
  await waitFor(async () => (await call('Open')).code === grpc.status.OK, { description: 'the GRPCRoute is served' });

  // Allowed by the route-wide allow-list (and untouched by mallory's deny-everybody policy).
  const open = await call('Open');
  t.is(open.backend, 'one');

  // Source ranges: RBAC's 403 becomes grpc-status 7 in a trailers-only answer; the backend never sees the call.
  const calls = backends.one.calls;
  const denied = await call('Denied');
  t.is(denied.code, grpc.status.PERMISSION_DENIED, JSON.stringify(denied));
  const deniedRaw = await rawGrpcAnswer(gatewayPort, 'Denied');
  t.is(deniedRaw.status, 200, 'a gRPC answer, not an HTTP error');
  t.is(deniedRaw.headers['content-type'], 'application/grpc');
  t.is(deniedRaw.headers['grpc-status'], String(grpc.status.PERMISSION_DENIED), 'trailers-only: grpc-status in the headers');

  // Basic auth: UNAUTHENTICATED with the realm's challenge, the backend with right credentials.
  const challenge = await call('Private');
  t.is(challenge.code, grpc.status.UNAUTHENTICATED, JSON.stringify(challenge));
  t.is(challenge.headers['www-authenticate'], 'Basic realm="gRPC area"');
  t.is((await call('Private', { authorization: basic('alice', 'wrong') })).code, grpc.status.UNAUTHENTICATED);
  const authed = await call('Private', { authorization: basic('alice', 'wonderland') });
  t.is(authed.code, grpc.status.OK);
  t.is(authed.backend, 'one');
  t.false('authorization' in (authed.metadata ?? {}), 'the credentials do not reach the backend');
  const privateRaw = await rawGrpcAnswer(gatewayPort, 'Private');
  t.is(privateRaw.status, 200);
  t.is(privateRaw.headers['grpc-status'], String(grpc.status.UNAUTHENTICATED));

  // External auth: the service's 401 is UNAUTHENTICATED; its 200 lets the call through with X-Auth-User.
  t.is((await call('External')).code, grpc.status.UNAUTHENTICATED);
  t.is(checks.at(-1), `/verify/${echoService}/External`);
  const external = await call('External', { 'x-token': 'good' });
  t.is(external.code, grpc.status.OK);
  t.deepEqual(external.metadata?.['x-auth-user'], 'alice');

  // A policy that cannot be honoured (its Secret is missing) closes its rule: 500 -> UNKNOWN, even with credentials.
  t.is((await call('Broken')).code, grpc.status.UNKNOWN);
  t.is((await call('Broken', { authorization: basic('alice', 'wonderland') })).code, grpc.status.UNKNOWN);
  const brokenRaw = await rawGrpcAnswer(gatewayPort, 'Broken');
  t.is(brokenRaw.status, 200);
  t.is(brokenRaw.headers['grpc-status'], String(grpc.status.UNKNOWN));
  t.is(backends.one.calls, calls + 2, 'only the allowed calls reached the backend: Private with credentials, External with the token');

  // Cookie affinity: the cookie comes in the response metadata; a client sending it back stays on one endpoint.
  const seen = new Set<string>();
  let cookie = '';
  for (let i = 0; i < 30; i++) {
    const answer = await call('Sticky');
    t.is(answer.code, grpc.status.OK);
    seen.add(String(answer.backend));
    const setCookie = String(answer.headers['set-cookie'] ?? '');
    t.regex(setCookie, new RegExp(`^route=[^;|]+\\|[0-9a-f]{32}; Max-Age=600; Path=/${echoService.replaceAll('.', '\\.')}/Sticky; HttpOnly`));
    cookie = setCookie.split(';')[0] ?? '';
  }
  t.deepEqual([...seen].sort(), ['one', 'two'], 'new clients are spread over both endpoints');
  const first = await call('Sticky', { cookie });
  const sticky = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const answer = await call('Sticky', { cookie });
    sticky.add(String(answer.backend));
    t.is(answer.headers['set-cookie'], undefined);
  }
  t.deepEqual([...sticky], [String(first.backend)]);
});

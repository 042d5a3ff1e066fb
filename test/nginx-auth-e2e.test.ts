// End to end with --nginx-annotations: ingress-nginx's authentication annotations (auth-type basic + auth-secret,
// auth-url + auth-response-headers) -> controller (standalone) -> a real Envoy -> echo backends and a small
// authorization service, one host per case, one stack for the whole file.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test from 'ava';
import { createTestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { nginxIngress } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf, hostGet as get, corsPreflight } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';
import { irView, xdsView } from '../cli/debug-views.js';

/** A check request as the authorization service received it. */
interface CheckRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

interface AuthService {
  port: number;
  /** Check requests received, oldest first. */
  requests: CheckRequest[];
  close(): Promise<void>;
}

/**
 * The authorization service: `x-token: good` -> 200 with `X-Auth-User: alice` (and a header nobody asked to copy),
 * `forbidden` -> 403, `broken` -> 500, anything else -> 401 with a Bearer challenge.
 */
async function startAuthService(tls?: { cert: string; key: string }): Promise<AuthService> {
  const requests: CheckRequest[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    const token = req.headers['x-token'];
    if (token === 'good') {
      res.writeHead(200, { 'x-auth-user': 'alice', 'x-not-copied': 'secret-detail' }).end();
    } else if (token === 'forbidden') {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden by the auth service\n');
    } else if (token === 'broken') {
      res.writeHead(500).end();
    } else {
      res.writeHead(401, { 'www-authenticate': 'Bearer realm="test"', 'content-type': 'text/plain' }).end('who are you?\n');
    }
  };
  const server: Server = tls === undefined ? createServer(handle) : createTlsServer(tls, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface World {
  stack: Stack;
  auth: AuthService;
  authTls: AuthService;
  /** Rewrites the manifests with the `rotating` Secret holding this htpasswd file. */
  rotate(htpasswd: string): Promise<void>;
}

/** An Ingress to `web` with these ingress-nginx annotations. */
const annotated = (name: string, host: string, values: Record<string, string>): object => nginxIngress(name, host, 'web', values);

/** An htpasswd {SHA} entry, as `htpasswd -s` writes it. */
const sha = (password: string): string => `{SHA}${createHash('sha1').update(password).digest('base64')}`;

function opaqueSecret(name: string, stringData: Record<string, string>): object {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' }, type: 'Opaque', stringData };
}

/** test/fixtures/htpasswd/htpasswd-2.4.txt: one user per scheme, password pw-<scheme> (README beside it). */
const realHtpasswd = readFileSync(new URL('../../test/fixtures/htpasswd/htpasswd-2.4.txt', import.meta.url), 'utf8');

/** A line of the other tenant's Secret that is not `user:hash` (such lines were once copied into messages). */
const strayLine = 'stray-line-of-the-other-tenant';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const web = await scope.startBackend({ service: 'web' });
  const auth = await startAuthService();
  scope.defer(() => auth.close());
  // The same service over TLS (its Service port is 80, as serviceWithEndpoints makes it: the URL names it).
  const ca = await createTestCA();
  const authCert = await ca.issue({ dnsNames: ['authz-tls.default.svc.cluster.local'] });
  const authTls = await startAuthService({ cert: authCert.certPem, key: authCert.keyPem });
  scope.defer(() => authTls.close());
  const objects = (rotating: string): object[] => [
    opaqueSecret('rotating', { auth: rotating }),
    annotated('rotating', 'rotating.test', { 'auth-type': 'basic', 'auth-secret': 'rotating' }),
    ingressClass(),
    ...serviceWithEndpoints('web', [endpointOf(web)]),
    // The authorization service as an in-cluster Service: auth-url names it by its DNS name.
    ...serviceWithEndpoints('authz', [{ address: '127.0.0.1', port: auth.port }]),
    ...serviceWithEndpoints('authz-tls', [{ address: '127.0.0.1', port: authTls.port }]),
    annotated('external-tls', 'external-tls.test', { 'auth-url': 'https://authz-tls.default.svc.cluster.local:80/verify' }),
    // An htpasswd file with CRLF line ends: alice has a {SHA} hash, bob an apr1 one (password "bar").
    opaqueSecret('basic-auth', { auth: `alice:${sha('wonderland')}\r\nbob:$apr1$OFG3Xybp$ckL0FHDAkoXYIlH9.cysT0\r\n` }),
    // Written by Apache's real htpasswd: -c (apr1, the command of ingress-nginx's docs), -B (bcrypt), -s, -d, -2, -5.
    opaqueSecret('htpasswd-real', { auth: realHtpasswd }),
    annotated('real', 'real.test', { 'auth-type': 'basic', 'auth-secret': 'htpasswd-real', 'auth-realm': 'test auth' }),
    opaqueSecret('basic-map', { carol: sha('s3cret') }),
    annotated('basic', 'basic.test', { 'auth-type': 'basic', 'auth-secret': 'basic-auth', 'auth-realm': 'Authentication Required' }),
    annotated('basic-map', 'basic-map.test', { 'auth-type': 'basic', 'auth-secret': 'default/basic-map', 'auth-secret-type': 'auth-map' }),
    annotated('basic-missing', 'basic-missing.test', { 'auth-type': 'basic', 'auth-secret': 'nowhere' }),
    annotated('digest', 'digest.test', { 'auth-type': 'digest', 'auth-secret': 'basic-auth' }),
    annotated('external', 'external.test', {
      'auth-url': 'http://authz.default.svc.cluster.local/verify',
      'auth-response-headers': 'X-Auth-User',
    }),
    annotated('external-loopback', 'external-loopback.test', { 'auth-url': `http://127.0.0.1:${auth.port}/verify` }),
    // Another tenant's authorization Service (namespace other), named by an Ingress of namespace default.
    ...serviceWithEndpoints('authz', [{ address: '127.0.0.1', port: auth.port }], 'other'),
    annotated('external-foreign', 'external-foreign.test', { 'auth-url': 'http://authz.other.svc.cluster.local/verify' }),
    annotated('both', 'both.test', {
      'auth-type': 'basic',
      'auth-secret': 'basic-map',
      'auth-secret-type': 'auth-map',
      'auth-url': 'http://authz.default.svc.cluster.local/verify',
    }),
    annotated('open', 'open.test', {}),
    // satisfy: any with an allow-list: a listed client (the tests' 127.0.0.1) needs no credentials, others do.
    annotated('any-listed', 'any-listed.test', { 'auth-type': 'basic', 'auth-secret': 'basic-auth', 'whitelist-source-range': '127.0.0.0/8', satisfy: 'any' }),
    annotated('any-unlisted', 'any-unlisted.test', { 'auth-type': 'basic', 'auth-secret': 'basic-auth', 'whitelist-source-range': '10.0.0.0/8', satisfy: 'any' }),
    annotated('all-unlisted', 'all-unlisted.test', { 'auth-type': 'basic', 'auth-secret': 'basic-auth', 'whitelist-source-range': '10.0.0.0/8' }),
    // Another tenant's Secret (namespace other), named by an Ingress of namespace default.
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'theirs', namespace: 'other' }, type: 'Opaque', stringData: { auth: `victim:${sha('their-password')}\n${strayLine}\n` } },
    annotated('cross-namespace', 'cross-namespace.test', { 'auth-type': 'basic', 'auth-secret': 'other/theirs' }),
    annotated('cors-basic', 'cors-basic.test', { 'enable-cors': 'true', 'auth-type': 'basic', 'auth-secret': 'basic-auth' }),
  ];
  const stack = await scope.startStack({
    dir,
    objects: objects(`erin:${sha('first')}\n`),
    translate: { nginxAnnotations: true },
    ready: { host: 'both.test', status: 401 },
  });
  return { stack, auth, authTls, rotate: (htpasswd) => writeFile(path.join(dir, 'objects.yaml'), toYaml(objects(htpasswd))) };
});

test('auth-type basic: no credentials get 401 with the auth-realm in the Basic challenge and nginx\'s page', async (t) => {
  const w = await world(t);
  const res = await get(w, 'basic.test', '/private');
  t.is(res.status, 401);
  t.is(res.headers['www-authenticate'], 'Basic realm="Authentication Required"');
  t.regex(res.body, /401 Authorization Required/);
  // Without auth-realm the realm is empty, as nginx's `auth_basic ""`.
  t.is((await get(w, 'basic-map.test', '/')).headers['www-authenticate'], 'Basic realm=""');
});

test('hashes made by the real htpasswd log in: -c (apr1), -B (bcrypt), -s, -d, -2, -5; a wrong password gets 401', async (t) => {
  const w = await world(t);
  for (const scheme of ['apr1', 'bcrypt', 'sha1', 'crypt', 'sha256', 'sha512']) {
    const right = await get(w, 'real.test', '/', { headers: { authorization: basic(`${scheme}-user`, `pw-${scheme}`) } });
    t.is(right.status, 200, scheme);
    t.is(right.json?.service, 'web');
    t.is((await get(w, 'real.test', '/', { headers: { authorization: basic(`${scheme}-user`, `no-${scheme}`) } })).status, 401, `${scheme} wrong`);
    // Another user's password is not this user's.
    t.is((await get(w, 'real.test', '/', { headers: { authorization: basic(`${scheme}-user`, 'pw-apr1') } })).status, scheme === 'apr1' ? 200 : 401);
  }
});

// Serial: ava runs serial tests before the concurrent ones, so no other test verifies passwords meanwhile.
test.serial('a right password verified once is remembered: bcrypt is not paid on every request', async (t) => {
  const w = await world(t);
  const stats = w.stack.controller.basicAuth.stats;
  const credentials = { authorization: basic('bcrypt-user', 'pw-bcrypt') };
  t.is((await get(w, 'real.test', '/first', { headers: credentials })).status, 200);
  const verifications = stats.verifications;
  for (let i = 0; i < 5; i++) t.is((await get(w, 'real.test', `/again/${i}`, { headers: credentials })).status, 200);
  t.is(stats.verifications, verifications, 'no new verification for the same user and password');
  // A wrong password is verified (and refused) every time.
  await get(w, 'real.test', '/', { headers: { authorization: basic('bcrypt-user', 'nope') } });
  t.is(stats.verifications, verifications + 1);
});

test('auth-type basic: a wrong password gets 401, the right one reaches the backend', async (t) => {
  const w = await world(t);
  const wrong = await get(w, 'basic.test', '/', { headers: { authorization: basic('alice', 'guess') } });
  t.is(wrong.status, 401);
  const unknown = await get(w, 'basic.test', '/', { headers: { authorization: basic('mallory', 'wonderland') } });
  t.is(unknown.status, 401);
  const right = await get(w, 'basic.test', '/x', { headers: { authorization: basic('alice', 'wonderland') } });
  t.is(right.status, 200);
  t.is(right.json?.service, 'web');
  t.is(right.json?.path, '/x');
  // As with ingress-nginx (`proxy_set_header Authorization ""`), the credentials do not go on to the backend.
  t.is(right.json?.headers.authorization, undefined);
});

test('auth-type basic: a user with an apr1 hash logs in', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'basic.test', '/', { headers: { authorization: basic('bob', 'bar') } })).status, 200);
  t.is((await get(w, 'basic.test', '/', { headers: { authorization: basic('bob', 'baz') } })).status, 401);
});

test('auth-secret-type auth-map and a namespace/name auth-secret: each key is a user', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'basic-map.test', '/', { headers: { authorization: basic('carol', 's3cret') } })).status, 200);
  t.is((await get(w, 'basic-map.test', '/', { headers: { authorization: basic('carol', 'secret') } })).status, 401);
  // The users of one Ingress are not the users of another.
  t.is((await get(w, 'basic-map.test', '/', { headers: { authorization: basic('alice', 'wonderland') } })).status, 401);
});

test('auth that cannot be configured never serves the paths unprotected: missing Secret and digest answer 503', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'basic-missing.test', '/')).status, 503);
  t.is((await get(w, 'digest.test', '/', { headers: { authorization: basic('alice', 'wonderland') } })).status, 503);
  // Other Ingresses are not affected.
  t.is((await get(w, 'open.test', '/')).status, 200);
});

test('auth-url: the service allows with 200, and only the listed answer headers reach the backend', async (t) => {
  const w = await world(t);
  const res = await get(w, 'external.test', '/app/page?q=1', {
    method: 'POST',
    headers: { 'x-token': 'good', 'x-auth-user': 'mallory', cookie: 'session=abc' },
  });
  t.is(res.status, 200);
  t.is(res.json?.service, 'web');
  // The answer's X-Auth-User replaces what the client sent; X-Not-Copied is not listed.
  t.is(res.json?.headers['x-auth-user'], 'alice');
  t.is(res.json?.headers['x-not-copied'], undefined);
  const check = w.auth.requests.find((r) => r.headers['x-token'] === 'good' && r.headers.cookie === 'session=abc');
  t.truthy(check, 'the check request carries the client headers');
  // Envoy puts the request path (with its query) after the URL's path and keeps the client's method.
  t.is(check?.path, '/verify/app/page?q=1');
  t.is(check?.method, 'POST');
  t.is(check?.headers['content-length'], '0');
  // The headers ingress-nginx's auth subrequest carries.
  t.is(check?.headers['x-original-url'], 'http://external.test/app/page?q=1');
  t.is(check?.headers['x-original-method'], 'POST');
  t.is(check?.headers['x-auth-request-redirect'], '/app/page?q=1');
  t.is(check?.headers['x-sent-from'], 'nginx-ingress-controller');
});

test('auth-url: 401 and 403 from the service go to the client, the backend is not called', async (t) => {
  const w = await world(t);
  const unauthenticated = await get(w, 'external.test', '/');
  t.is(unauthenticated.status, 401);
  t.is(unauthenticated.headers['www-authenticate'], 'Bearer realm="test"');
  t.not(unauthenticated.json?.service, 'web');
  const forbidden = await get(w, 'external.test', '/', { headers: { 'x-token': 'forbidden' } });
  t.is(forbidden.status, 403);
  t.is(forbidden.body, 'forbidden by the auth service\n');
});

test('auth-url: a failing service gives 500, as nginx auth_request does', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'external.test', '/', { headers: { 'x-token': 'broken' } })).status, 500);
});

test('auth-url on a loopback address is refused: 503, the service is never asked', async (t) => {
  const w = await world(t);
  const before = w.auth.requests.filter((r) => r.path.startsWith('/verify/loopback-probe')).length;
  t.is((await get(w, 'external-loopback.test', '/loopback-probe', { headers: { 'x-token': 'good' } })).status, 503);
  t.is(w.auth.requests.filter((r) => r.path.startsWith('/verify/loopback-probe')).length, before);
});

test("auth-url naming another namespace's Service is refused: 503, that service is never asked", async (t) => {
  const w = await world(t);
  const asked = (): number => w.auth.requests.filter((r) => r.path.startsWith('/verify/foreign-probe')).length;
  const before = asked();
  t.is((await get(w, 'external-foreign.test', '/foreign-probe', { headers: { 'x-token': 'good' } })).status, 503);
  t.is(asked(), before);
});

test('basic auth and auth-url together: both must accept the request', async (t) => {
  const w = await world(t);
  const carol = basic('carol', 's3cret');
  t.is((await get(w, 'both.test', '/', { headers: { 'x-token': 'good' } })).status, 401);
  t.is((await get(w, 'both.test', '/', { headers: { authorization: carol } })).status, 401);
  t.is((await get(w, 'both.test', '/', { headers: { authorization: carol, 'x-token': 'forbidden' } })).status, 403);
  const both = await get(w, 'both.test', '/', { headers: { authorization: carol, 'x-token': 'good' } });
  t.is(both.status, 200);
  t.is(both.json?.service, 'web');
});

test('a changed auth Secret is picked up: the new password works, the old one no longer does', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'rotating.test', '/', { headers: { authorization: basic('erin', 'first') } })).status, 200);
  await w.rotate(`erin:${sha('second')}\n`);
  await waitFor(async () => (await get(w, 'rotating.test', '/', { headers: { authorization: basic('erin', 'second') } })).status === 200, {
    description: 'the new password is accepted',
    timeoutMs: 20_000,
  });
  t.is((await get(w, 'rotating.test', '/', { headers: { authorization: basic('erin', 'first') } })).status, 401);
});

test('auth-url over https: the check request goes over TLS (SNI = the URL host) to the Service endpoints', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'external-tls.test', '/tls-probe')).status, 401);
  const allowed = await get(w, 'external-tls.test', '/tls-probe', { headers: { 'x-token': 'good' } });
  t.is(allowed.status, 200);
  t.is(allowed.json?.service, 'web');
  t.true(w.authTls.requests.some((r) => r.path === '/verify/tls-probe' && r.headers['x-token'] === 'good'));
});

test('with enable-cors, a CORS preflight is answered 204 without credentials, and the 401 carries the CORS headers, as ingress-nginx does (auth.go)', async (t) => {
  const w = await world(t);
  const preflight = await get(w, 'cors-basic.test', '/api', corsPreflight('https://app.example.test', 'GET'));
  t.is(preflight.status, 204);
  t.is(preflight.headers['access-control-allow-origin'], '*');
  // The request itself still needs the credentials; its 401 has Access-Control-Allow-Origin: * (auth.go).
  const denied = await get(w, 'cors-basic.test', '/api');
  t.is(denied.status, 401);
  t.is(denied.headers['access-control-allow-origin'], '*');
});

test('auth-secret in another namespace: refused, paths closed (503), nothing of that Secret in diagnostics or /debug', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'cross-namespace.test', '/')).status, 503);
  t.is((await get(w, 'cross-namespace.test', '/', { headers: { authorization: basic('victim', 'their-password') } })).status, 503);
  const cp = w.stack.controller;
  const ir = irView(cp);
  const refusal = ir.diagnostics.filter((d) => d.object.name === 'cross-namespace');
  t.deepEqual(refusal.map((d) => d.reason), ['SecretNamespaceRefused']);
  // What /debug/ir and /debug/xds serve, and the controller's log.
  const pages = [JSON.stringify(ir), JSON.stringify(xdsView(cp)), w.stack.logs()].join('\n');
  for (const word of ['victim', sha('their-password'), strayLine]) t.false(pages.includes(word), word);
});

test('satisfy any with an allow-list: listed clients need no credentials, others need right ones; satisfy all needs both', async (t) => {
  const w = await world(t);
  const alice = { authorization: basic('alice', 'wonderland') };
  const listed = await get(w, 'any-listed.test', '/');
  t.is(listed.status, 200);
  t.is(listed.json?.service, 'web');
  t.is((await get(w, 'any-listed.test', '/', { headers: alice })).json?.headers.authorization, undefined);
  t.is((await get(w, 'any-unlisted.test', '/')).status, 401);
  t.is((await get(w, 'any-unlisted.test', '/', { headers: { authorization: basic('alice', 'nope') } })).status, 401);
  t.is((await get(w, 'any-unlisted.test', '/', { headers: alice })).status, 200);
  // satisfy all (the default): the allow-list refuses whatever the credentials.
  t.is((await get(w, 'all-unlisted.test', '/', { headers: alice })).status, 403);
});

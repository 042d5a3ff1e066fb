// End to end with --nginx-annotations: ingress-nginx annotations -> controller (standalone) -> a real Envoy ->
// echo backends, one host per case, one stack for the whole file. Each test shows ingress-nginx's documented
// behaviour for one supported annotation (controller/translate/ingress/nginx/catalog.ts).
import test from 'ava';
import { ECHO_DELAY_HEADER } from './harness/echo-backend.js';
import { createTestCA } from './harness/test-certs.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret } from './fixtures/manifests.js';
import { nginx, nginxIngress } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf as endpoint, hostGet as get, corsPreflight } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';

interface World {
  stack: Stack;
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const ca = await createTestCA();
  const backendCert = await ca.issue({ dnsNames: ['backend.internal'] });
  const tls = { cert: backendCert.certPem, key: backendCert.keyPem };
  const start = scope.startBackend;
  const web = await start({ service: 'web' });
  const h2c = await start({ service: 'h2c', http2: true });
  const tlsH1 = await start({ service: 'tls-h1', tls });
  const tlsH2 = await start({ service: 'tls-h2', tls, http2: true });
  const stickyA = await start({ service: 'sticky-a', host: '127.0.0.1' });
  const stickyB = await start({ service: 'sticky-b', host: '127.0.0.2' });
  const plainCert = await ca.issue({ dnsNames: ['plain-ok.test'] });
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('web', [endpoint(web)]),
    ...serviceWithEndpoints('h2c', [endpoint(h2c)]),
    ...serviceWithEndpoints('tls-h1', [endpoint(tlsH1)]),
    ...serviceWithEndpoints('tls-h2', [endpoint(tlsH2)]),
    ...serviceWithEndpoints('sticky', [endpoint(stickyA), endpoint(stickyB)]),
    tlsSecret('plain-ok-tls', plainCert.certPem, plainCert.keyPem),
    ingress('plain-ok', {
      annotations: nginx({ 'ssl-redirect': 'false' }),
      rules: [{ host: 'plain-ok.test', paths: [{ path: '/', service: 'web' }] }],
      tls: [{ hosts: ['plain-ok.test'], secretName: 'plain-ok-tls' }],
    }),
    ingress('redirected', {
      rules: [{ host: 'redirected.test', paths: [{ path: '/', service: 'web' }] }],
      tls: [{ hosts: ['redirected.test'], secretName: 'plain-ok-tls' }],
    }),
    nginxIngress('forced', 'forced.test', 'web', { 'force-ssl-redirect': 'true' }),
    nginxIngress('grpc', 'grpc.test', 'h2c', { 'backend-protocol': 'GRPC' }),
    nginxIngress('h2c', 'h2c.test', 'h2c', { 'backend-protocol': 'H2C' }),
    nginxIngress('https', 'https.test', 'tls-h1', { 'backend-protocol': 'HTTPS' }),
    nginxIngress('grpcs', 'grpcs.test', 'tls-h2', { 'backend-protocol': 'GRPCS' }),
    nginxIngress('body', 'body.test', 'web', { 'proxy-body-size': '1k' }),
    nginxIngress('body-unlimited', 'body-unlimited.test', 'web', { 'proxy-body-size': '0' }),
    nginxIngress('read-timeout', 'read-timeout.test', 'web', { 'proxy-read-timeout': '1' }),
    nginxIngress('send-timeout', 'send-timeout.test', 'web', { 'proxy-send-timeout': '1' }),
    nginxIngress('whitelist', 'whitelist.test', 'web', { 'whitelist-source-range': '127.0.0.2/32,10.0.0.0/8' }),
    nginxIngress('allowlist', 'allowlist.test', 'web', { 'allowlist-source-range': '127.0.0.2/32' }),
    nginxIngress('cors', 'cors.test', 'web', {
      'enable-cors': 'true',
      'cors-allow-origin': 'https://app.example.test',
      'cors-allow-methods': 'GET, PUT',
      'cors-allow-headers': 'X-User',
      'cors-expose-headers': 'X-Trace',
      'cors-allow-credentials': 'false',
      'cors-max-age': '600',
    }),
    nginxIngress('cors-defaults', 'cors-defaults.test', 'web', { 'enable-cors': 'true' }),
    ingress('cors-tls', {
      annotations: nginx({ 'enable-cors': 'true', 'cors-allow-origin': 'https://app.example.test' }),
      rules: [{ host: 'cors-tls.test', paths: [{ path: '/api', service: 'web' }] }],
      tls: [{ hosts: ['cors-tls.test'], secretName: 'plain-ok-tls' }],
    }),
    nginxIngress('hash', 'hash.test', 'sticky', { 'upstream-hash-by': '$http_x_user' }),
    nginxIngress('hash-cookie', 'hash-cookie.test', 'sticky', { 'upstream-hash-by': '$cookie_sid' }),
    nginxIngress('hash-addr', 'hash-addr.test', 'sticky', { 'upstream-hash-by': '$remote_addr' }),
    nginxIngress('affinity', 'affinity.test', 'sticky', { affinity: 'cookie' }),
    nginxIngress('affinity-named', 'affinity-named.test', 'sticky', { affinity: 'cookie', 'session-cookie-name': 'route' }),
    nginxIngress('rewrite', 'rewrite.test', 'web', { 'rewrite-target': '/new' }, '/something'),
    nginxIngress('prefix', 'prefix.test', 'web', { 'x-forwarded-prefix': '/shop' }),
    nginxIngress('vhost', 'vhost.test', 'web', { 'upstream-vhost': 'backend.internal' }),
    nginxIngress('moved', 'moved.test', 'web', { 'permanent-redirect': 'https://new.example.test/landing' }),
    nginxIngress('moved-308', 'moved-308.test', 'web', { 'permanent-redirect': 'http://new.example.test:8081/x?from=old', 'permanent-redirect-code': '308' }),
    nginxIngress('away', 'away.test', 'web', { 'temporal-redirect': 'https://status.example.test' }),
    nginxIngress('mixed', 'mixed.test', 'web', {
      'configuration-snippet': 'more_set_headers "X-Snippet: yes";',
      'canary-weight': '20',
      'made-up-annotation': 'x',
      'x-forwarded-prefix': '/still-applied',
    }),
  ];
  const stack = await scope.startStack({
    dir,
    objects,
    translate: { nginxAnnotations: true },
    waitForHttpsListener: true,
    ready: { host: 'mixed.test' },
  });
  return { stack };
});

test('ssl-redirect "false": a TLS host is served on plain HTTP; without it plain HTTP redirects', async (t) => {
  const w = await world(t);
  const plain = await get(w, 'plain-ok.test', '/');
  t.is(plain.status, 200);
  t.is(plain.json?.service, 'web');
  const redirected = await get(w, 'redirected.test', '/x');
  // ingress-nginx's http-redirect-code (308); the port is the HTTPS listener's (not 443 in this test).
  t.is(redirected.status, 308);
  t.is(redirected.headers.location, `https://redirected.test:${w.stack.httpsPort}/x`);
});

test('force-ssl-redirect "true": plain HTTP redirects to https without a tls entry', async (t) => {
  const w = await world(t);
  const res = await get(w, 'forced.test', '/a?b=1');
  t.is(res.status, 308);
  t.is(res.headers.location, `https://forced.test:${w.stack.httpsPort}/a?b=1`);
});

test('backend-protocol GRPC and H2C: HTTP/2 without TLS; HTTPS: HTTP/1.1 over TLS; GRPCS: HTTP/2 over TLS', async (t) => {
  const w = await world(t);
  for (const host of ['grpc.test', 'h2c.test']) {
    const res = await get(w, host, '/');
    t.is(res.status, 200, host);
    t.is(res.json?.httpVersion, '2.0', host);
    t.false(res.json?.tls, host);
  }
  const https = await get(w, 'https.test', '/');
  t.is(https.status, 200);
  t.true(https.json?.tls);
  t.is(https.json?.httpVersion, '1.1');
  const grpcs = await get(w, 'grpcs.test', '/');
  t.is(grpcs.status, 200);
  t.true(grpcs.json?.tls);
  t.is(grpcs.json?.httpVersion, '2.0');
});

test('proxy-body-size: 1k refuses a 2 KiB body with 413 and passes 512 bytes; "0" sets no limit', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'body.test', '/', { method: 'POST', body: 'x'.repeat(2048) })).status, 413);
  const small = await get(w, 'body.test', '/', { method: 'POST', body: 'x'.repeat(512) });
  t.is(small.status, 200);
  t.is(small.json?.headers?.['content-length'], '512');
  const big = await get(w, 'body-unlimited.test', '/', { method: 'POST', body: 'x'.repeat(2 * 1024 * 1024) });
  t.is(big.status, 200);
});

test('proxy-read-timeout / proxy-send-timeout (seconds): a backend silent longer gets 504, a quick one answers', async (t) => {
  const w = await world(t);
  for (const host of ['read-timeout.test', 'send-timeout.test']) {
    const slow = await get(w, host, '/', { headers: { [ECHO_DELAY_HEADER]: '3000' } });
    t.is(slow.status, 504, host);
    t.is(slow.body, 'stream timeout', host);
    t.is((await get(w, host, '/', { headers: { [ECHO_DELAY_HEADER]: '100' } })).status, 200, host);
  }
});

test('whitelist-source-range / allowlist-source-range: listed clients pass, others get 403', async (t) => {
  const w = await world(t);
  for (const host of ['whitelist.test', 'allowlist.test']) {
    t.is((await get(w, host, '/', { localAddress: '127.0.0.2' })).status, 200, host);
    t.is((await get(w, host, '/', { localAddress: '127.0.0.1' })).status, 403, host);
  }
});

test('enable-cors with cors-allow-origin/methods/headers/expose-headers/credentials/max-age: headers as written, preflight 204 from the proxy', async (t) => {
  const w = await world(t);
  const preflight = await get(w, 'cors.test', '/', corsPreflight('https://app.example.test', 'PUT'));
  t.is(preflight.status, 204);
  t.is(preflight.json, undefined, 'answered by the proxy, not the backend');
  t.is(preflight.headers['access-control-allow-origin'], 'https://app.example.test');
  t.is(preflight.headers['access-control-allow-methods'], 'GET, PUT');
  t.is(preflight.headers['access-control-allow-headers'], 'X-User');
  t.is(preflight.headers['access-control-expose-headers'], 'X-Trace');
  t.is(preflight.headers['access-control-max-age'], '600');
  t.is(preflight.headers['access-control-allow-credentials'], undefined);
  const simple = await get(w, 'cors.test', '/', { headers: { origin: 'https://app.example.test' } });
  t.is(simple.json?.service, 'web');
  t.is(simple.headers['access-control-allow-origin'], 'https://app.example.test');
  t.is(simple.headers['access-control-expose-headers'], 'X-Trace');
  t.is(simple.headers['access-control-allow-methods'], 'GET, PUT', 'nginx sends them on every response');
  // Another origin: the backend answers, preflight included, without any CORS header.
  const other = await get(w, 'cors.test', '/', corsPreflight('https://evil.test', 'PUT'));
  t.is(other.json?.service, 'web');
  t.is(other.headers['access-control-allow-origin'], undefined);
  t.is(other.headers['access-control-allow-methods'], undefined);
});

test("enable-cors alone: ingress-nginx's defaults (origin *, on every response, credentials, max-age 1728000)", async (t) => {
  const w = await world(t);
  const preflight = await get(w, 'cors-defaults.test', '/', corsPreflight('https://anywhere.test', 'DELETE'));
  t.is(preflight.status, 204);
  t.is(preflight.headers['access-control-allow-origin'], '*');
  t.is(preflight.headers['access-control-allow-credentials'], 'true');
  t.is(preflight.headers['access-control-max-age'], '1728000');
  t.is(preflight.headers['access-control-allow-methods'], 'GET, PUT, POST, DELETE, PATCH, OPTIONS');
  t.is(preflight.headers['access-control-allow-headers'], 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization');
  t.is((await get(w, 'cors-defaults.test', '/', { method: 'OPTIONS' })).status, 204, 'any OPTIONS, Origin or not');
  const plain = await get(w, 'cors-defaults.test', '/');
  t.is(plain.json?.service, 'web');
  t.is(plain.headers['access-control-allow-origin'], '*', 'with or without an Origin');
});

test('enable-cors on a TLS host: over plain HTTP an allowed OPTIONS is answered 204 and the https redirect carries the CORS headers, as nginx runs its CORS block before redirecting', async (t) => {
  const w = await world(t);
  const origin = { origin: 'https://app.example.test' };
  const preflight = await get(w, 'cors-tls.test', '/api', corsPreflight(origin.origin, 'GET'));
  t.is(preflight.status, 204);
  t.is(preflight.headers['access-control-allow-origin'], origin.origin);
  const redirected = await get(w, 'cors-tls.test', '/api/x', { headers: origin });
  t.true([301, 308].includes(redirected.status), `status ${redirected.status}`);
  t.is(redirected.headers['access-control-allow-origin'], origin.origin);
  t.is(redirected.headers['access-control-max-age'], '1728000');
  // Another Origin, or another path of the host: redirected, no CORS headers; OPTIONS redirected too.
  const other = await get(w, 'cors-tls.test', '/api', corsPreflight('https://evil.test', 'GET'));
  t.true([301, 308].includes(other.status), `status ${other.status}`);
  t.is(other.headers['access-control-allow-origin'], undefined);
  const otherPath = await get(w, 'cors-tls.test', '/elsewhere', { method: 'OPTIONS', headers: origin });
  t.true([301, 308].includes(otherPath.status), `status ${otherPath.status}`);
});

test('upstream-hash-by $http_x_user: one user always reaches the same endpoint, users spread over both', async (t) => {
  const w = await world(t);
  const seen = new Set<string>();
  for (let user = 0; user < 16; user++) {
    const services = new Set<string>();
    for (let i = 0; i < 4; i++) services.add(String((await get(w, 'hash.test', '/', { headers: { 'x-user': `user-${user}` } })).json?.service));
    t.is(services.size, 1, `user-${user} stuck to one endpoint`);
    for (const s of services) seen.add(s);
  }
  // 16 users all hashing to one of two endpoints would be a 1 in 32768 chance.
  t.deepEqual([...seen].sort(), ['sticky-a', 'sticky-b']);
});

test('upstream-hash-by $cookie_sid: one session always reaches the same endpoint, sessions spread over both', async (t) => {
  const w = await world(t);
  const seen = new Set<string>();
  for (let user = 0; user < 16; user++) {
    const services = new Set<string>();
    for (let i = 0; i < 4; i++) services.add(String((await get(w, 'hash-cookie.test', '/', { headers: { cookie: `sid=s-${user}` } })).json?.service));
    t.is(services.size, 1, `s-${user} stuck to one endpoint`);
    for (const s of services) seen.add(s);
  }
  t.deepEqual([...seen].sort(), ['sticky-a', 'sticky-b']);
});

test('upstream-hash-by $remote_addr: each client address always reaches the same endpoint', async (t) => {
  const w = await world(t);
  for (const localAddress of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) {
    const services = new Set<string>();
    for (let i = 0; i < 6; i++) services.add(String((await get(w, 'hash-addr.test', '/', { localAddress })).json?.service));
    t.is(services.size, 1, `${localAddress} stuck to one endpoint`);
  }
});

for (const [host, cookieName] of [
  ['affinity.test', 'INGRESSCOOKIE'],
  ['affinity-named.test', 'route'],
] as const) {
  test(`affinity cookie (${cookieName}): the cookie is set, and a client sending it back stays on one endpoint`, async (t) => {
    const w = await world(t);
    const first = await get(w, host, '/');
    t.is(first.status, 200);
    const setCookie = first.headers['set-cookie']?.[0] ?? '';
    t.regex(setCookie, new RegExp(`^${cookieName}=[^;]+`));
    const cookie = setCookie.split(';')[0] as string;
    const services = new Set<string>();
    for (let i = 0; i < 8; i++) services.add(String((await get(w, host, '/', { headers: { cookie } })).json?.service));
    t.is(services.size, 1);
  });
}

test('rewrite-target without capture groups: the whole path becomes the target, the query is kept', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'rewrite.test', '/something')).json?.path, '/new');
  t.is((await get(w, 'rewrite.test', '/something/deeper/x?q=1')).json?.path, '/new?q=1');
});

test('x-forwarded-prefix: the backend sees the header', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'prefix.test', '/a')).json?.headers?.['x-forwarded-prefix'], '/shop');
});

test('upstream-vhost: the backend sees the given Host, and the client\'s in X-Forwarded-Host (sent to every backend, as ingress-nginx does)', async (t) => {
  const w = await world(t);
  const res = await get(w, 'vhost.test', '/', { headers: { 'x-forwarded-host': 'spoofed.test' } });
  t.is(res.status, 200);
  t.is(res.json?.host, 'backend.internal');
  t.is(res.json?.headers?.['x-forwarded-host'], 'vhost.test', 'the client\'s own X-Forwarded-Host is replaced');
  const other = await get(w, 'prefix.test', '/');
  t.is(other.json?.host, 'prefix.test', 'other Ingresses keep the client Host');
  t.is(other.json?.headers?.['x-forwarded-host'], 'prefix.test');
});

test('permanent-redirect (301, or permanent-redirect-code) and temporal-redirect (302) send every path to the URL', async (t) => {
  const w = await world(t);
  const moved = await get(w, 'moved.test', '/any/path?q=1');
  t.is(moved.status, 301);
  t.is(moved.headers.location, 'https://new.example.test/landing', 'path and query of the request are not kept');
  const moved308 = await get(w, 'moved-308.test', '/a');
  t.is(moved308.status, 308);
  t.is(moved308.headers.location, 'http://new.example.test:8081/x?from=old');
  const withPort = await get(w, 'moved.test', '/', { hostHeader: `moved.test:${w.stack.httpPort}` });
  t.is(withPort.headers.location, 'https://new.example.test/landing', 'the client port is not carried over');
  const away = await get(w, 'away.test', '/');
  t.is(away.status, 302);
  t.is(away.headers.location, 'https://status.example.test', 'the value as written, as nginx sends it');
});

test('a snippet, an unmapped and an unknown annotation are reported; the rest of the Ingress is served', async (t) => {
  const w = await world(t);
  const res = await get(w, 'mixed.test', '/');
  t.is(res.status, 200);
  t.is(res.json?.headers?.['x-forwarded-prefix'], '/still-applied');
  t.is(res.headers['x-snippet'], undefined, 'the snippet is not applied');
  const logs = w.stack.logs();
  t.regex(logs, /NginxSnippetRefused/);
  t.regex(logs, /InvalidAnnotation[^\n]*canary-weight ignored: it needs [^\n]*canary \\?"true/);
  t.regex(logs, /UnsupportedNginxAnnotation[^\n]*made-up-annotation/);
});

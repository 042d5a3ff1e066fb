import test from 'ava';
import { Annotation } from '../annotations.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { Ingress } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationCatalog, nginxAnnotationPrefix } from './catalog.js';
import { mappedNginxAnnotations, parseAnnotationsWithNginx } from './nginx-annotations.js';
import type { WithNginxAffinity } from './nginx-affinity.js';
import { nginxAuthAnnotations } from './nginx-auth.js';
import { nginxCanaryAnnotations } from './nginx-canary.js';
import { nginxEdgeAnnotations } from './nginx-edge.js';

import type { RouteActionIR } from '../../../../ir/index.js';

/** The status of a permanent-redirect / temporal-redirect action (a redirect, or nginx's direct answer). */
const statusOf = (action: RouteActionIR | undefined): number | undefined => (action?.kind === 'redirect' ? action.statusCode : action?.kind === 'direct' ? action.status : undefined);

function ingressWith(annotations: Record<string, string>): Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'app', namespace: 'default', annotations },
    spec: { rules: [{ host: 'app.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
  } as Ingress;
}

const nginx = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));

function parse(values: Record<string, string>, enabled = true): { parsed: ReturnType<typeof parseAnnotationsWithNginx>; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  return { parsed: parseAnnotationsWithNginx(ingressWith(values), diagnostics, enabled), diagnostics };
}

/** A value of each supported annotation (with what it needs beside it) that changes what is served. */
const samples: Record<string, Record<string, string>> = {
  'ssl-redirect': { 'ssl-redirect': 'false' },
  'force-ssl-redirect': { 'force-ssl-redirect': 'true' },
  'backend-protocol': { 'backend-protocol': 'GRPCS' },
  'proxy-body-size': { 'proxy-body-size': '1m' },
  'proxy-read-timeout': { 'proxy-read-timeout': '5' },
  'proxy-send-timeout': { 'proxy-send-timeout': '5' },
  'whitelist-source-range': { 'whitelist-source-range': '10.0.0.0/8' },
  'allowlist-source-range': { 'allowlist-source-range': '10.0.0.0/8' },
  'enable-cors': { 'enable-cors': 'true' },
  'cors-allow-origin': { 'enable-cors': 'true', 'cors-allow-origin': 'https://a.test' },
  'cors-allow-methods': { 'enable-cors': 'true', 'cors-allow-methods': 'GET' },
  'cors-allow-headers': { 'enable-cors': 'true', 'cors-allow-headers': 'X-A' },
  'cors-expose-headers': { 'enable-cors': 'true', 'cors-expose-headers': 'X-B' },
  'cors-allow-credentials': { 'enable-cors': 'true', 'cors-allow-credentials': 'false' },
  'cors-max-age': { 'enable-cors': 'true', 'cors-max-age': '5' },
  'upstream-hash-by': { 'upstream-hash-by': '$remote_addr' },
  'load-balance': { 'load-balance': 'ewma' },
  'affinity-mode': { affinity: 'cookie', 'affinity-mode': 'persistent' },
  'proxy-next-upstream': { 'proxy-next-upstream': 'error http_502' },
  'proxy-next-upstream-tries': { 'proxy-next-upstream-tries': '5' },
  'service-upstream': { 'service-upstream': 'true' },
  'mirror-target': { 'mirror-target': 'http://mirror.default.svc/copy' },
  'mirror-host': { 'mirror-target': 'http://mirror.default.svc/copy', 'mirror-host': 'copy.test' },
  affinity: { affinity: 'cookie' },
  'session-cookie-name': { affinity: 'cookie', 'session-cookie-name': 'sticky' },
  'rewrite-target': { 'rewrite-target': '/new' },
  'use-regex': { 'use-regex': 'true' },
  'app-root': { 'app-root': '/app1' },
  'x-forwarded-prefix': { 'x-forwarded-prefix': '/p' },
  'connection-proxy-header': { 'connection-proxy-header': 'keep-alive' },
  'enable-access-log': { 'enable-access-log': 'false' },
  'proxy-cookie-domain': { 'proxy-cookie-domain': 'localhost example.org' },
  'proxy-cookie-path': { 'proxy-cookie-path': '/one/ /' },
  'upstream-vhost': { 'upstream-vhost': 'api.internal' },
  'permanent-redirect': { 'permanent-redirect': 'https://new.test/' },
  'permanent-redirect-code': { 'permanent-redirect': 'https://new.test/', 'permanent-redirect-code': '308' },
  'temporal-redirect': { 'temporal-redirect': 'https://new.test/' },
  'temporal-redirect-code': { 'temporal-redirect': 'https://new.test/', 'temporal-redirect-code': '307' },
  'relative-redirects': { 'permanent-redirect': '/new', 'relative-redirects': 'true' },
  'preserve-trailing-slash': { 'preserve-trailing-slash': 'true' },
  'server-alias': { 'server-alias': 'alias.test' },
  'from-to-www-redirect': { 'from-to-www-redirect': 'true' },
  'proxy-connect-timeout': { 'proxy-connect-timeout': '3' },
  'denylist-source-range': { 'denylist-source-range': '10.0.0.0/8' },
  'limit-rps': { 'limit-rps': '5' },
  'limit-rpm': { 'limit-rpm': '100' },
  'limit-burst-multiplier': { 'limit-rps': '5', 'limit-burst-multiplier': '2' },
  'limit-connections': { 'limit-connections': '10' },
  'limit-whitelist': { 'limit-rps': '5', 'limit-whitelist': '10.0.0.0/8' },
  'session-cookie-path': { affinity: 'cookie', 'session-cookie-path': '/app' },
  'session-cookie-expires': { affinity: 'cookie', 'session-cookie-expires': '3600' },
  'session-cookie-max-age': { affinity: 'cookie', 'session-cookie-max-age': '3600' },
  'session-cookie-samesite': { affinity: 'cookie', 'session-cookie-samesite': 'Lax' },
  'session-cookie-secure': { affinity: 'cookie', 'session-cookie-secure': 'true' },
  'session-cookie-domain': { affinity: 'cookie', 'session-cookie-domain': 'foo.bar' },
  'session-cookie-conditional-samesite-none': { affinity: 'cookie', 'session-cookie-samesite': 'None', 'session-cookie-conditional-samesite-none': 'true' },
  'auth-tls-secret': { 'auth-tls-secret': 'default/ca' },
  'auth-tls-verify-client': { 'auth-tls-secret': 'default/ca', 'auth-tls-verify-client': 'optional' },
  'auth-tls-verify-depth': { 'auth-tls-secret': 'default/ca', 'auth-tls-verify-depth': '2' },
  'auth-tls-error-page': { 'auth-tls-secret': 'default/ca', 'auth-tls-error-page': 'http://app.test/error' },
  'auth-tls-pass-certificate-to-upstream': { 'auth-tls-secret': 'default/ca', 'auth-tls-pass-certificate-to-upstream': 'true' },
  'auth-tls-match-cn': { 'auth-tls-secret': 'default/ca', 'auth-tls-match-cn': 'CN=client' },
  'proxy-ssl-secret': { 'proxy-ssl-secret': 'default/backend' },
  'proxy-ssl-verify': { 'proxy-ssl-secret': 'default/backend', 'proxy-ssl-verify': 'on' },
  'proxy-ssl-verify-depth': { 'proxy-ssl-secret': 'default/backend', 'proxy-ssl-verify-depth': '2' },
  'proxy-ssl-name': { 'proxy-ssl-secret': 'default/backend', 'proxy-ssl-name': 'web.internal' },
  'proxy-ssl-server-name': { 'proxy-ssl-secret': 'default/backend', 'proxy-ssl-server-name': 'on' },
  'proxy-ssl-ciphers': { 'proxy-ssl-secret': 'default/backend', 'proxy-ssl-ciphers': 'HIGH:!AES' },
  'proxy-ssl-protocols': { 'proxy-ssl-secret': 'default/backend', 'proxy-ssl-protocols': 'TLSv1.3' },
};

test('the catalog and the layer agree: every supported entry is mapped, every mapped one is supported', (t) => {
  const supported = Object.entries(nginxAnnotationCatalog)
    .filter(([, e]) => e.status === 'supported' || e.status === 'supported-with-difference')
    .map(([name]) => name)
    .sort();
  t.deepEqual(supported, [...mappedNginxAnnotations].sort());
});

for (const [name, entry] of Object.entries(nginxAnnotationCatalog)) {
  if (entry.status !== 'supported' && entry.status !== 'supported-with-difference') continue;
  // Canaries change other Ingresses' routes, not their own: nginx-canary.test.ts shows them through translate().
  if (nginxCanaryAnnotations.includes(name) || name === 'affinity-canary-behavior') continue;
  // ssl-passthrough, default-backend, custom-http-errors act on routes and listeners: nginx-edge.test.ts.
  if (nginxEdgeAnnotations.includes(name)) continue;
  // auth-* are resolved against Secrets and Services once the IR is built: nginx-auth.test.ts, the nginx-auth golden.
  if ((nginxAuthAnnotations as readonly string[]).includes(name)) continue;
  test(`supported ${name} changes what is served (and nothing without the opt-in)`, (t) => {
    const sample = samples[name];
    if (sample === undefined) return t.fail(`no sample for ${name}`);
    const base = sample[name] === undefined ? {} : Object.fromEntries(Object.entries(sample).filter(([k]) => k !== name));
    const withIt = parse(nginx(sample));
    t.deepEqual(withIt.diagnostics, []);
    t.notDeepEqual(withIt.parsed, parse(nginx(base)).parsed, 'the annotation is read');
    t.deepEqual(parse(nginx(sample), false).parsed, parse({}, false).parsed, 'ignored without --nginx-annotations');
  });
}

test('values map with ingress-nginx semantics', (t) => {
  t.is(parse(nginx({ 'proxy-body-size': '8m' })).parsed.route.maxRequestBodyBytes, 8 * 1024 * 1024);
  t.is(parse(nginx({ 'proxy-body-size': '1G' })).parsed.route.maxRequestBodyBytes, 1024 ** 3);
  t.is(parse(nginx({ 'proxy-body-size': '2048' })).parsed.route.maxRequestBodyBytes, 2048);
  const unlimited = parse(nginx({ 'proxy-body-size': '0' }));
  t.is(unlimited.parsed.route.maxRequestBodyBytes, undefined, '0 = no limit');
  t.deepEqual(unlimited.diagnostics, []);
  t.is(parse(nginx({ 'proxy-read-timeout': '120', 'proxy-send-timeout': '30' })).parsed.route.idleTimeoutMs, 120_000);
  t.deepEqual(parse(nginx({ 'backend-protocol': 'HTTP' })).parsed.cluster, {});
  t.deepEqual(parse(nginx({ 'backend-protocol': 'HTTPS' })).parsed.cluster, { upstreamTls: {} });
  t.deepEqual(parse(nginx({ 'backend-protocol': 'GRPC' })).parsed.cluster, { protocol: 'http2' });
  t.deepEqual(parse(nginx({ 'backend-protocol': 'H2C' })).parsed.cluster, { protocol: 'http2' });
  t.deepEqual(parse(nginx({ 'backend-protocol': 'GRPCS' })).parsed.cluster, { protocol: 'http2', upstreamTls: {} });
  t.deepEqual(parse(nginx({ 'upstream-hash-by': '$http_x_user_id' })).parsed.route.hashPolicies, [{ kind: 'header', name: 'x-user-id' }]);
  t.deepEqual(parse(nginx({ 'upstream-hash-by': '$cookie_sid' })).parsed.route.hashPolicies, [{ kind: 'cookie', name: 'sid' }]);
  t.deepEqual((parse(nginx({ affinity: 'cookie' })).parsed as WithNginxAffinity).nginxAffinity, { name: 'INGRESSCOOKIE' });
  t.is(parse(nginx({ affinity: 'cookie' })).parsed.cluster.loadBalancer, 'ring-hash');
  t.is(parse(nginx({ 'enable-cors': 'true' })).parsed.route.cors, undefined, 'not Envoy\'s CORS filter (nginx-cors.test.ts)');
  t.is(parse(nginx({ 'enable-cors': 'true' })).parsed.route.corsResponse?.originRegex, undefined, 'origin * by default');
  t.deepEqual(parse(nginx({ 'rewrite-target': '/new' })).parsed.route.rewrite, { kind: 'regex', pattern: '^.*$', substitution: '/new' });
  t.is(parse(nginx({ 'upstream-vhost': 'API.internal:8080' })).parsed.route.hostRewrite, 'api.internal:8080');
  t.true(parse(nginx({})).parsed.route.forwardedHost, 'X-Forwarded-Host for every backend, as ingress-nginx');
  t.is(parse({}, false).parsed.route.forwardedHost, undefined, 'not without the nginx annotations');
  t.deepEqual(parse(nginx({ 'connection-proxy-header': 'close', 'x-forwarded-prefix': '/p' })).parsed.route.requestHeaders?.set, [
    { name: 'x-forwarded-prefix', value: '/p' },
    { name: 'connection', value: 'close' },
  ]);
  const badConnection = parse(nginx({ 'connection-proxy-header': 'upgrade' }));
  t.is(badConnection.parsed.route.requestHeaders, undefined);
  t.deepEqual(badConnection.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  const emptyPrefix = parse(nginx({ 'x-forwarded-prefix': '' }));
  t.is(emptyPrefix.parsed.route.requestHeaders, undefined);
  t.deepEqual(emptyPrefix.diagnostics, [], 'an empty x-forwarded-prefix sends no header, silently (as ingress-nginx)');
  const vhostVariable = parse(nginx({ 'upstream-vhost': '$host' }));
  t.is(vhostVariable.parsed.route.hostRewrite, undefined);
  t.deepEqual(vhostVariable.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  t.deepEqual(parse(nginx({ 'allowlist-source-range': '10.0.0.0/8', 'whitelist-source-range': '1.2.3.4' })).parsed.route.allowedSourceCidrs, [
    { address: '10.0.0.0', prefixLength: 8 },
  ]);
});

test('permanent-redirect / temporal-redirect: the value as written, status codes, precedence, invalid values', (t) => {
  const redirect = (values: Record<string, string>) => parse(nginx(values)).parsed.nginxRedirects?.redirect;
  // nginx `return CODE URL`: a URL is the Location as written; a path a redirect to it on the request's host, unless
  // relative-redirects keeps it as written.
  t.deepEqual(redirect({ 'permanent-redirect': 'https://new.test' }), { kind: 'direct', status: 301, headers: [{ name: 'location', value: 'https://new.test' }] });
  t.deepEqual(redirect({ 'permanent-redirect': '/new', 'permanent-redirect-code': '308', 'relative-redirects': 'true' }), {
    kind: 'direct',
    status: 308,
    headers: [{ name: 'location', value: '/new' }],
  });
  t.deepEqual(redirect({ 'permanent-redirect': '/new?a=1', 'permanent-redirect-code': '308' }), {
    kind: 'redirect',
    statusCode: 308,
    path: { kind: 'replace', path: '/new' },
    query: { kind: 'replace', query: 'a=1' },
  });
  // A code nginx sends no Location for: the URL is the body.
  t.deepEqual(redirect({ 'permanent-redirect': 'https://new.test', 'permanent-redirect-code': '300' }), { kind: 'direct', status: 300, body: 'https://new.test' });
  const both = parse(nginx({ 'temporal-redirect': 'https://t.test/', 'permanent-redirect': 'https://p.test/', 'temporal-redirect-code': '307' }));
  t.deepEqual(both.parsed.nginxRedirects?.redirect, { kind: 'direct', status: 307, headers: [{ name: 'location', value: 'https://t.test/' }] });
  t.deepEqual(both.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  // ingress-nginx: a temporal URL must be http(s); a code that is no number drops the redirect; one out of range
  // falls back to the default; characters outside its validator make the value invalid.
  for (const values of [
    { 'temporal-redirect': 'ftp://x.test/' },
    { 'temporal-redirect': '/relative' },
    { 'permanent-redirect': 'https://x.test/', 'permanent-redirect-code': 'x' },
    { 'permanent-redirect': 'https://user@x.test/' },
    { 'permanent-redirect': 'https://x.test/a b' },
  ]) {
    const r = parse(nginx(values));
    t.is(r.parsed.nginxRedirects?.redirect, undefined, JSON.stringify(values));
    t.deepEqual(r.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation], JSON.stringify(values));
  }
  t.is(statusOf(redirect({ 'permanent-redirect': 'https://p.test/', 'permanent-redirect-code': '200' })), 301);
  t.is(statusOf(redirect({ 'permanent-redirect': 'https://p.test/', 'permanent-redirect-code': '309' })), 301);
  t.is(statusOf(redirect({ 'temporal-redirect': 'https://p.test/', 'temporal-redirect-code': '308' })), 302);
  t.is(statusOf(redirect({ 'permanent-redirect': 'https://p.test/', 'permanent-redirect-code': '303' })), 303);
});

test('our annotation wins over the nginx one for the same setting', (t) => {
  const { parsed } = parse({
    ...nginx({ 'proxy-body-size': '8m', 'rewrite-target': '/x', 'x-forwarded-prefix': '/n' }),
    [Annotation.maxRequestBodySize]: '1k',
    [Annotation.rewritePrefix]: '/',
    [Annotation.requestHeadersSet]: 'X-Forwarded-Prefix: /ours\nX-Other: 1',
  });
  t.is(parsed.route.maxRequestBodyBytes, 1024);
  t.deepEqual(parsed.route.rewrite, { kind: 'prefix', replacement: '/' });
  t.deepEqual(parsed.route.requestHeaders?.set, [
    { name: 'x-forwarded-prefix', value: '/ours' },
    { name: 'x-other', value: '1' },
  ]);
  // Other headers of ours stay beside X-Forwarded-Prefix.
  const merged = parse({ ...nginx({ 'x-forwarded-prefix': '/n' }), [Annotation.requestHeadersSet]: 'X-Other: 1' }).parsed;
  t.deepEqual(merged.route.requestHeaders?.set, [
    { name: 'x-other', value: '1' },
    { name: 'x-forwarded-prefix', value: '/n' },
  ]);
});

test('snippets are refused, unknown and unmapped ones reported, invalid values named; the rest still applies', (t) => {
  const { parsed, diagnostics } = parse(
    nginx({
      'server-snippet': 'location /x {}',
      'auth-snippet': 'x',
      'stream-snippet': 'x',
      'configuration-snippet': 'x',
      'bogus-annotation': 'x',
      'made-up': 'x',
      'proxy-body-size': 'lots',
      'x-forwarded-prefix': '/still',
    }),
  );
  t.deepEqual(
    diagnostics.map((d) => d.reason),
    [
      Reason.NginxSnippetRefused,
      Reason.UnsupportedNginxAnnotation,
      Reason.NginxSnippetRefused,
      Reason.UnsupportedNginxAnnotation,
      Reason.NginxSnippetRefused,
      Reason.NginxSnippetRefused,
      Reason.InvalidAnnotation,
    ],
  );
  t.true(diagnostics.every((d) => d.message.includes(nginxAnnotationPrefix)));
  t.regex(diagnostics[6]?.message ?? '', /proxy-body-size has invalid value "lots"/);
  t.is(parsed.route.maxRequestBodyBytes, undefined);
  t.deepEqual(parsed.route.requestHeaders?.set, [{ name: 'x-forwarded-prefix', value: '/still' }]);
});

test('rewrite-target with capture groups makes regex paths and a per-route rewrite (nginx-regex.ts)', (t) => {
  const { parsed, diagnostics } = parse(nginx({ 'rewrite-target': '/$2', 'use-regex': 'true' }));
  t.is(parsed.route.rewrite, undefined, 'set per route, with the route\'s own regex');
  t.deepEqual(parsed.nginxRegex, { captureRewrite: { target: '/$2', maxGroup: 2 } });
  // The sample Ingress's path "/" has no group 2: reported (the group is empty there, as in nginx).
  t.deepEqual(diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
});

test('proxy-cookie-domain / proxy-cookie-path: "FROM TO" pairs, "off", the regex form reported', (t) => {
  t.deepEqual(parse(nginx({ 'proxy-cookie-domain': 'localhost  example.org', 'proxy-cookie-path': '/one/ /' })).parsed.route.cookieRewrite, {
    domain: { from: 'localhost', to: 'example.org' },
    path: { from: '/one/', to: '/' },
  });
  const off = parse(nginx({ 'proxy-cookie-domain': 'off', 'proxy-cookie-path': 'off' }));
  t.is(off.parsed.route.cookieRewrite, undefined);
  t.deepEqual(off.diagnostics, []);
  const regex = parse(nginx({ 'proxy-cookie-path': '~^/one/(.*)$ /$1' }));
  t.is(regex.parsed.route.cookieRewrite, undefined);
  t.regex(regex.diagnostics[0]?.message ?? '', /regex form/);
});

import test from 'ava';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { Ingress } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { defaultCorsHeaders, defaultCorsMethods, readNginxCors } from './nginx-cors.js';

function read(values: Record<string, string>): { cors: ReturnType<typeof readNginxCors>; diagnostics: Diagnostic[] } {
  const annotations = Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));
  const ingress = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'app', namespace: 'default', annotations }, spec: {} } as Ingress;
  const diagnostics: Diagnostic[] = [];
  return { cors: readNginxCors(ingress, diagnostics), diagnostics };
}

/** Whether the RE2 pattern (only `(?i)` at its start differs from JavaScript) takes the whole Origin value. */
function allows(values: Record<string, string>, origin: string): boolean {
  const regex = read({ 'enable-cors': 'true', ...values }).cors?.originRegex;
  if (regex === undefined) return true;
  return new RegExp(`^(?:${regex.replace(/^\(\?i\)/, '')})$`, 'i').test(origin);
}

test('enable-cors alone: origin *, the default methods and headers, credentials true, max-age 1728000 (ingress-nginx cors/main.go)', (t) => {
  const { cors, diagnostics } = read({ 'enable-cors': 'true' });
  t.deepEqual(cors, {
    headers: [
      { name: 'Access-Control-Allow-Credentials', value: 'true' },
      { name: 'Access-Control-Allow-Methods', value: defaultCorsMethods },
      { name: 'Access-Control-Allow-Headers', value: defaultCorsHeaders },
      { name: 'Access-Control-Max-Age', value: '1728000' },
    ],
  });
  t.deepEqual(diagnostics, []);
  t.is(defaultCorsMethods, 'GET, PUT, POST, DELETE, PATCH, OPTIONS');
  t.is(defaultCorsHeaders, 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization');
});

test('values are sent as written; credentials false leaves the header out; expose headers only when set', (t) => {
  const { cors } = read({
    'enable-cors': 'True',
    'cors-allow-methods': 'POST, GET',
    'cors-allow-headers': 'DNT, User-Agent',
    'cors-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader',
    'cors-allow-credentials': 'false',
    'cors-max-age': '200',
  });
  t.deepEqual(cors?.headers, [
    { name: 'Access-Control-Allow-Methods', value: 'POST, GET' },
    { name: 'Access-Control-Allow-Headers', value: 'DNT, User-Agent' },
    { name: 'Access-Control-Expose-Headers', value: 'X-CustomResponseHeader, X-CustomSecondHeader' },
    { name: 'Access-Control-Max-Age', value: '200' },
  ]);
});

test('invalid values fall back to ingress-nginx\'s defaults, reported', (t) => {
  const { cors, diagnostics } = read({
    'enable-cors': 'true',
    'cors-allow-methods': 'GET; rm',
    'cors-allow-headers': 'X-A $pid',
    'cors-expose-headers': 'X-$upstream_addr',
    'cors-allow-credentials': 'maybe',
    'cors-max-age': 'ten',
  });
  t.deepEqual(cors?.headers.map((h) => h.value), ['true', defaultCorsMethods, defaultCorsHeaders, '1728000']);
  t.is(diagnostics.length, 5);
  t.true(diagnostics.every((d) => d.reason === Reason.InvalidAnnotation));
});

test('off unless enable-cors is true; the family without it is reported', (t) => {
  t.is(read({ 'cors-allow-origin': 'https://a.test' }).cors, undefined);
  t.is(read({ 'cors-allow-origin': 'https://a.test' }).diagnostics.length, 1);
  t.is(read({ 'enable-cors': 'false' }).cors, undefined);
  t.is(read({ 'enable-cors': 'yes' }).cors, undefined);
  t.is(read({ 'enable-cors': 'yes' }).diagnostics.length, 1);
});

test('origins: "*" anywhere, blank or an invalid list mean *; entries without a scheme are skipped; none left turns CORS off', (t) => {
  for (const value of ['*', '*, foo.bar.com', '      ', 'https://a.test/path', 'https://a.test, *']) {
    t.is(read({ 'enable-cors': 'true', 'cors-allow-origin': value }).cors?.originRegex, undefined, value);
  }
  const skipped = read({ 'enable-cors': 'true', 'cors-allow-origin': 'origin.cors.com:8080, https://origin2.cors.com' });
  t.is(skipped.diagnostics.length, 1);
  t.false(allows({ 'cors-allow-origin': 'origin.cors.com:8080, https://origin2.cors.com' }, 'origin.cors.com:8080'));
  const none = read({ 'enable-cors': 'true', 'cors-allow-origin': 'origin.cors.com' });
  t.is(none.cors, undefined);
});

test('origin matching as ingress-nginx\'s regex (cors.go cases)', (t) => {
  const list = { 'cors-allow-origin': 'https://origin.cors.com:8080, https://origin2.cors.com' };
  t.true(allows(list, 'https://origin.cors.com:8080'));
  t.true(allows(list, 'HTTPS://Origin2.cors.com'), 'case-insensitive');
  t.false(allows(list, 'https://origin.cors.com'), 'the port is part of the origin');
  t.false(allows({ 'cors-allow-origin': 'https://foo.bar.com' }, 'https://fooxbar.com'), 'dots are literal');
  const wildcard = { 'cors-allow-origin': 'http://*.origin.cors.com, http://*.origin.com:8080' };
  t.true(allows(wildcard, 'http://foo.origin.cors.com'));
  t.true(allows(wildcard, 'http://bar-foo.origin.cors.com'));
  t.false(allows(wildcard, 'http://bar.foo.origin.cors.com'), 'one label');
  t.true(allows(wildcard, 'http://abc.origin.com:8080'));
  t.false(allows(wildcard, 'http://abc.origin.com'));
  t.false(allows(wildcard, 'http://origin.com:8080'), 'the label is required');
  const trailing = { 'cors-allow-origin': 'https://origin-123.cors.com:8080,   ,https://origin-321.cors.com:8080,' };
  t.true(allows(trailing, 'https://origin-321.cors.com:8080'));
  t.false(allows(trailing, 'https://unknown.cors.com:8080'));
  const schemes = { 'cors-allow-origin': 'test://localhost, tauri://localhost:3000' };
  t.true(allows(schemes, 'tauri://localhost:3000'));
  t.true(allows(schemes, 'test://localhost'));
  t.true(allows({ 'cors-allow-origin': 'null' }, 'null'));
  // Anchored at the end only, as nginx's `~* (...)$`.
  t.true(allows(list, 'xhttps://origin2.cors.com'));
});

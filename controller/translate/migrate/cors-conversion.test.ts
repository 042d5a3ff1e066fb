import test from 'ava';
import type { Diagnostic } from '../shared/diagnostics.js';
import type { ClusterState, HTTPRoute, Ingress, IngressClass, Service } from '../shared/kube-objects.js';
import { defaultTranslateOptions } from '../shared/options.js';
import { Annotation } from '../ingress/annotations.js';
import { readNginxCors } from '../ingress/nginx/nginx-cors.js';
import { corsConversion, CorsDifferenceIds } from './cors-conversion.js';
import { migrateIngresses, type MigrateOptions } from './migrate-ingresses.js';

const p = 'nginx.ingress.kubernetes.io/';

function ingress(annotations: Record<string, string>): Ingress {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${p}${k}`, v]));
  return {
    kind: 'Ingress',
    metadata: { name: 'app', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z', annotations: prefixed },
    spec: { rules: [{ host: 'app.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
  };
}

/** The conversion of an Ingress's CORS annotations, read by the nginx layer's own parser as migrate reads them. */
function convert(annotations: Record<string, string>): ReturnType<typeof corsConversion> {
  const ing = ingress(annotations);
  const diagnostics: Diagnostic[] = [];
  return corsConversion(ing, readNginxCors(ing, diagnostics));
}

const corsOf = (c: ReturnType<typeof corsConversion>) => c.filters.find((f) => f.type === 'CORS')?.cors;
const ids = (c: ReturnType<typeof corsConversion>): string[] => c.differences.map((d) => d.id);

test('enable-cors alone: origin *, and nginx defaults written out (max-age 1728000, its methods and headers), not the filter\'s; credentials off, since nginx\'s * with credentials lets no browser send them', (t) => {
  const c = convert({ 'enable-cors': 'true' });
  t.deepEqual(corsOf(c), {
    allowOrigins: ['*'],
    allowCredentials: false,
    allowMethods: ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'],
    allowHeaders: ['DNT', 'Keep-Alive', 'User-Agent', 'X-Requested-With', 'If-Modified-Since', 'Cache-Control', 'Content-Type', 'Range', 'Authorization'],
    maxAge: 1728000,
  });
  // Origin *: nginx's fixed headers on every answer, as nginx sends them (values as written).
  t.deepEqual(c.filters.find((f) => f.type === 'ResponseHeaderModifier')?.responseHeaderModifier?.set, [
    { name: 'Access-Control-Allow-Origin', value: '*' },
    { name: 'Access-Control-Allow-Methods', value: 'GET, PUT, POST, DELETE, PATCH, OPTIONS' },
    { name: 'Access-Control-Allow-Headers', value: 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization' },
    { name: 'Access-Control-Max-Age', value: '1728000' },
  ]);
  t.deepEqual(ids(c), [CorsDifferenceIds.preflight, CorsDifferenceIds.responseHeaders, CorsDifferenceIds.anyOrigin, CorsDifferenceIds.anyOriginCredentials]);
  // A list of origins keeps nginx's default credentials (true), not the filter's (false).
  t.is(corsOf(convert({ 'enable-cors': 'true', 'cors-allow-origin': 'https://a.test' }))?.allowCredentials, true);
  t.false(ids(convert({ 'enable-cors': 'true', 'cors-allow-credentials': 'false' })).includes(CorsDifferenceIds.anyOriginCredentials));
  t.true(c.differences.every((d) => d.message !== '' && d.action !== ''));
});

test('each cors-* annotation lands in its field; a list of origins gets no fixed headers (they depend on the Origin)', (t) => {
  const c = convert({
    'enable-cors': 'true',
    'cors-allow-origin': 'https://origin.cors.com:8080, https://Origin2.cors.com',
    'cors-allow-methods': 'POST, GET',
    'cors-allow-headers': 'DNT, User-Agent',
    'cors-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader',
    'cors-allow-credentials': 'false',
    'cors-max-age': '200',
  });
  t.deepEqual(corsOf(c), {
    allowOrigins: ['https://origin.cors.com:8080', 'https://origin2.cors.com'],
    allowCredentials: false,
    allowMethods: ['POST', 'GET'],
    allowHeaders: ['DNT', 'User-Agent'],
    exposeHeaders: ['X-CustomResponseHeader', 'X-CustomSecondHeader'],
    maxAge: 200,
  });
  t.is(c.filters.length, 1);
  t.deepEqual(ids(c), [CorsDifferenceIds.preflight, CorsDifferenceIds.responseHeaders]);
});

test('origins a CORS filter cannot name are left out and reported; with none left there is no filter', (t) => {
  const some = convert({ 'enable-cors': 'true', 'cors-allow-origin': 'https://ok.test, tauri://localhost:3000' });
  t.deepEqual(corsOf(some)?.allowOrigins, ['https://ok.test']);
  t.true(some.differences.some((d) => d.id === CorsDifferenceIds.origin && d.message.includes('tauri://localhost:3000')));
  const none = convert({ 'enable-cors': 'true', 'cors-allow-origin': 'test://localhost, tauri://localhost:3000' });
  t.deepEqual(none.filters, []);
  t.deepEqual(ids(none), [CorsDifferenceIds.origin]);
  t.regex(none.differences[0]?.message ?? '', /no CORS filter is written/);
});

test('"*." is one label in nginx, any number in the filter: kept and reported', (t) => {
  const c = convert({ 'enable-cors': 'true', 'cors-allow-origin': 'http://*.origin.cors.com, http://origin.com:8080' });
  t.deepEqual(corsOf(c)?.allowOrigins, ['http://*.origin.cors.com', 'http://origin.com:8080']);
  t.true(c.differences.some((d) => d.id === CorsDifferenceIds.origin && d.message.includes('one DNS label')));
});

test('a blank or invalid origin list is "*" as in ingress-nginx; "*" in a list is "*"', (t) => {
  for (const origin of ['      ', '*, foo.bar.com', 'not an origin!']) {
    const c = convert({ 'enable-cors': 'true', 'cors-allow-origin': origin });
    t.deepEqual(corsOf(c)?.allowOrigins, ['*'], origin);
    t.true(ids(c).includes(CorsDifferenceIds.anyOrigin), origin);
  }
});

test('methods outside the filter\'s list, max-age 0 and expose "*" with credentials are reported', (t) => {
  const c = convert({ 'enable-cors': 'true', 'cors-allow-origin': 'https://a.test', 'cors-allow-methods': 'GET, purge', 'cors-max-age': '0', 'cors-expose-headers': '*' });
  const cors = corsOf(c);
  t.deepEqual(cors?.allowMethods, ['GET']);
  t.is(cors?.maxAge, 1);
  t.is(cors?.exposeHeaders, undefined);
  t.deepEqual(ids(c).filter((id) => id !== CorsDifferenceIds.preflight && id !== CorsDifferenceIds.responseHeaders), [CorsDifferenceIds.methods, CorsDifferenceIds.exposeHeaders, CorsDifferenceIds.maxAge]);
  // Without credentials "*" is exposed as is.
  t.deepEqual(corsOf(convert({ 'enable-cors': 'true', 'cors-allow-credentials': 'false', 'cors-expose-headers': '*' }))?.exposeHeaders, ['*']);
});

test('no CORS without enable-cors "true" (cors-* alone are ignored by ingress-nginx too)', (t) => {
  t.deepEqual(convert({ 'cors-allow-origin': 'https://a.test' }), { filters: [], differences: [] });
  t.deepEqual(convert({ 'enable-cors': 'false', 'cors-max-age': '5' }), { filters: [], differences: [] });
  // This controller's own cors-allow-origins wins on the Ingress: nginx's CORS is not what it serves.
  const own = ingress({ 'enable-cors': 'true' });
  own.metadata.annotations = { ...own.metadata.annotations, [Annotation.corsAllowOrigins]: 'https://a.test' };
  t.deepEqual(corsConversion(own, readNginxCors(own, [])), { filters: [], differences: [] });
});

test('migrate puts the CORS filter on every rule of the Ingress and names the differences on each path, not the annotations', (t) => {
  const ours: IngressClass = { kind: 'IngressClass', metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: defaultTranslateOptions.controllerName } };
  const web: Service = { kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } };
  const state: Pick<ClusterState, 'ingresses' | 'ingressClasses' | 'services' | 'secrets'> = { ingresses: [ingress({ 'enable-cors': 'true', 'cors-allow-origin': 'https://a.test', 'cors-max-age': '60' })], ingressClasses: [ours], services: [web], secrets: [] };
  const options: MigrateOptions = {
    gatewayClassName: 'envoy-ingress',
    gatewayNamespace: 'gateways',
    httpPort: 80,
    httpsPort: 443,
    classes: { ingressClassName: defaultTranslateOptions.ingressClassName, controllerName: defaultTranslateOptions.controllerName, nginxAnnotations: true },
  };
  const result = migrateIngresses(state, options);
  const route = result.objects.find((o): o is HTTPRoute => o.kind === 'HTTPRoute');
  t.deepEqual(route?.spec?.rules?.[0]?.filters?.find((f) => f.type === 'CORS')?.cors?.allowOrigins, ['https://a.test']);
  t.is(route?.spec?.rules?.[0]?.filters?.find((f) => f.type === 'CORS')?.cors?.maxAge, 60);
  const reported = result.report.ingresses[0]?.paths[0];
  t.is(reported?.result, 'different');
  const reportedIds = reported?.differences.map((d) => d.id) ?? [];
  t.true(reportedIds.includes(CorsDifferenceIds.preflight));
  // The annotations themselves are carried: only what differs is named.
  t.false(reportedIds.includes('enable-cors'));
  t.false(reportedIds.includes('cors-max-age'));
});

// What the built resources make a real Envoy do with traffic: host matching (wildcards of exactly one label,
// case, ports), Ingress path semantics, path normalisation, local replies and redirects, TLS by SNI. Envoy
// serves the resources inlined into a static bootstrap, on OS-chosen ports.
import { type DataPlaneIR, PrivateKey, type RouteIR, type RouteTableIR } from '../ir/index.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { useEchoBackend, useEnvoy } from '../test/harness/ava-fixtures.js';
import type { EchoBackend } from '../test/harness/echo-backend.js';
import { httpGet, httpsGet, type HttpResult } from '../test/harness/http-client.js';
import { buildResources } from './build-resources.js';
import { inlineIntoStaticBootstrap } from './static-bootstrap.js';
import { envoyTestdataDir } from './test-helpers/golden-cases.js';
import { ingressPairIR } from './test-helpers/ingress-pair-ir.js';

const certificate = readFileSync(path.join(envoyTestdataDir(), 'certs', 'test-only.crt'), 'utf8');
const privateKey = readFileSync(path.join(envoyTestdataDir(), 'certs', 'test-only.key'), 'utf8');

const notFound: RouteIR = {
  name: 'not-found',
  match: { kind: 'prefix', path: '/' },
  action: { kind: 'direct', status: 404, body: '<h1>not found</h1>', contentType: 'text/html; charset=utf-8' },
};

function forward(name: string, kind: 'exact' | 'prefix', p: string, cluster: string): RouteIR {
  return { name, match: { kind, path: p }, action: { kind: 'forward', cluster } };
}

function gateway(): DataPlaneIR {
  const catchAll = {
    name: '*',
    hostnames: ['*'],
    routes: [forward('shared', 'prefix', '/shared', 'default/shared/80'), notFound],
  };
  const wildcard = { name: '*.example.com', hostnames: ['*.example.com'], routes: [forward('wild', 'prefix', '/', 'default/wild/80')] };
  const http: RouteTableIR = {
    name: 'http',
    virtualHosts: [
      catchAll,
      wildcard,
      {
        name: 'foo.example.com',
        hostnames: ['foo.example.com'],
        routes: [
          forward('exact', 'exact', '/exact', 'default/foo/80'),
          forward('app', 'prefix', '/app', 'default/foo/80'),
          { name: 'redirect-8443', match: { kind: 'prefix', path: '/secure' }, action: { kind: 'redirect', statusCode: 308, scheme: 'https', port: 8443 } },
          { name: 'redirect-443', match: { kind: 'prefix', path: '/login' }, action: { kind: 'redirect', statusCode: 301, scheme: 'https' } },
          { name: 'unavailable', match: { kind: 'prefix', path: '/broken' }, action: { kind: 'direct', status: 503, body: 'no backend' } },
          notFound,
        ],
      },
    ],
  };
  const tlsTable: RouteTableIR = { name: 'https/*.example.com', virtualHosts: [{ ...catchAll, routes: [notFound] }, wildcard] };
  return ingressPairIR({
    http,
    tlsServers: [{ name: 'https/*.example.com', serverNames: ['*.example.com'], secret: 'default/tls', routeTable: tlsTable }],
    clusters: ['default/foo/80', 'default/shared/80', 'default/wild/80'].map((name) => {
      const [namespace = '', service = ''] = name.split('/');
      return { name, service: { namespace, name: service, port: 80 } };
    }),
    secrets: [{ name: 'default/tls', certificateChain: certificate, privateKey: new PrivateKey(privateKey) }],
  }, { http: 0, https: 0 });
}

interface Ports {
  http: number;
  https: number;
}

async function startDataPlane(t: ExecutionContext): Promise<Ports> {
  const backends: Record<string, EchoBackend> = {};
  for (const service of ['foo', 'shared', 'wild']) backends[service] = await useEchoBackend(t, { service });
  const endpoints = Object.entries(backends).map(([service, b]) => ({
    cluster: `default/${service}/80`,
    endpoints: [{ address: b.address, port: b.port }],
  }));
  const resources = buildResources(gateway(), endpoints, { listenAddress: '127.0.0.1', httpPort: 0, httpsPort: 0 });
  const envoy = await useEnvoy(t, { bootstrap: inlineIntoStaticBootstrap(resources), logLevel: 'warn' });
  return { http: await envoy.waitForListener('ingress_http'), https: await envoy.waitForListener('ingress_https') };
}

function servedBy(result: HttpResult): string {
  return typeof result.json?.service === 'string' ? (result.json.service as string) : `status ${result.status}`;
}

test('hosts, paths, local replies and redirects behave as the Ingress spec says', async (t) => {
  const ports = await startDataPlane(t);
  const get = (hostHeader: string, p: string): Promise<HttpResult> => httpGet({ port: ports.http, hostHeader, path: p });

  // A wildcard covers exactly one label, whatever the case and with or without a port.
  t.is(servedBy(await get('a.example.com', '/')), 'wild');
  t.is(servedBy(await get('A.Example.COM', '/')), 'wild');
  t.is(servedBy(await get('a.example.com:8080', '/')), 'wild');
  // Two labels is an unknown host: the catch-all's routes apply.
  t.is(servedBy(await get('a.b.example.com', '/shared/x')), 'shared');
  const deep = await get('a.b.example.com', '/');
  t.is(deep.status, 404);
  t.is(deep.body, '<h1>not found</h1>');
  t.is(deep.headers['content-type'], 'text/html; charset=utf-8');
  t.is((await get('example.com', '/')).status, 404);

  // Exact hosts match with a port too; exact and element-wise prefix paths.
  t.is(servedBy(await get('foo.example.com:8080', '/exact')), 'foo');
  t.is((await get('foo.example.com', '/exact/')).status, 404);
  t.is(servedBy(await get('foo.example.com', '/app')), 'foo');
  t.is(servedBy(await get('foo.example.com', '/app/')), 'foo');
  t.is(servedBy(await get('foo.example.com', '/app/x')), 'foo');
  t.is((await get('foo.example.com', '/apple')).status, 404);

  // Paths are normalised before matching, and the backend sees the normalised path.
  const dotted = await get('foo.example.com', '/x/../app/y');
  t.is(servedBy(dotted), 'foo');
  t.is(dotted.json?.path, '/app/y');
  t.is(servedBy(await get('foo.example.com', '//app//y')), 'foo');

  // Local replies: 503 without a content type is Envoy's text/plain.
  const broken = await get('foo.example.com', '/broken');
  t.is(broken.status, 503);
  t.is(broken.body, 'no backend');
  t.is(broken.headers['content-type'], 'text/plain');

  // Redirects keep host, path and query; the port is the HTTPS one, dropped when it is 443.
  const secure = await get('foo.example.com:8080', '/secure/a?q=1');
  t.is(secure.status, 308);
  t.is(secure.headers.location, 'https://foo.example.com:8443/secure/a?q=1');
  const login = await get('foo.example.com:8080', '/login');
  t.is(login.status, 301);
  t.is(login.headers.location, 'https://foo.example.com/login');
});

test('TLS is terminated with the SDS certificate chosen by SNI', async (t) => {
  const ports = await startDataPlane(t);
  const result = await httpsGet({ port: ports.https, servername: 'a.example.com', hostHeader: 'a.example.com', path: '/', ca: certificate });
  t.is(servedBy(result), 'wild');
  t.regex(result.peerCertificate?.subjectAltName ?? '', /DNS:\*\.example\.com/);
  const deep = await httpsGet({ port: ports.https, servername: 'a.example.com', hostHeader: 'a.b.example.com', path: '/', ca: certificate });
  t.is(deep.status, 404);
});

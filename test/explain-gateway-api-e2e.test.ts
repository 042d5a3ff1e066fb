// explain against a real Envoy for Gateway API listeners: one Gateway (a wildcard HTTP listener on a free port) and
// HTTPRoutes with header, query parameter and method matches, precedence across routes, a weighted split with an
// invalid backendRef, a redirect and a URL rewrite. Every request goes through the standalone controller and Envoy;
// explain, on the same manifests, must predict what answers: the Service (and the path and Host it receives), the
// status, the redirect's Location, or, for a split, the set of answers.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { loadExplainInput } from '../cli/explain-command.js';
import { explain, type ExplainRequest, type Explanation } from '../controller/explain.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

interface Row {
  host: string;
  path: string;
  headers?: Record<string, string>;
  method?: string;
}

/** What explain predicts, in the terms the request yields: `service path host`, `status N`, `N -> location`. */
function predicted(e: Explanation): string[] {
  if (e.response.kind === 'redirect') return [`${e.response.status} -> ${e.response.location}`];
  if (e.response.kind === 'forward' && e.response.backends !== undefined) {
    return [...new Set(e.response.backends.map((b) => (b.cluster === null ? 'status 500' : `${b.service!.name} ${e.request.path} ${e.request.host}`)))].sort();
  }
  if (e.response.kind === 'forward' && e.status === null) {
    return [`${e.response.service!.name} ${e.response.upstream?.path ?? e.request.path} ${e.response.upstream?.host ?? e.request.host}`];
  }
  return [`status ${e.status}`];
}

test('explain predicts what Envoy answers on a Gateway API listener', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const names = ['web', 'api', 'canary'] as const;
  const services = [];
  for (const name of names) {
    const b = await useEchoBackend(t, { service: name });
    services.push(...serviceWithEndpoints(name, [{ address: b.address, port: b.port }]));
  }
  const gatewayPort = await freePort();
  const objects = [
    ...services,
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'default' },
      spec: { gatewayClassName: 'envoy', listeners: [{ name: 'web', port: gatewayPort, protocol: 'HTTP', hostname: '*.example.test' }] },
    },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'older', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: ['shop.example.test'],
        rules: [
          { matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'web', port: 80 }] },
          { matches: [{ path: { type: 'Exact', value: '/api/v1' } }], backendRefs: [{ name: 'web', port: 80 }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/api' }, headers: [{ name: 'x-a', value: '1' }, { name: 'x-b', value: '1' }] }], backendRefs: [{ name: 'web', port: 80 }] },
        ],
      },
    },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'newer', namespace: 'default', creationTimestamp: '2026-02-01T00:00:00Z' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: ['shop.example.test', '*.deep.example.test'],
        rules: [
          { name: 'api', matches: [{ path: { type: 'PathPrefix', value: '/api' } }], backendRefs: [{ name: 'api', port: 80 }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/api' }, headers: [{ name: 'x-a', value: '1' }] }], backendRefs: [{ name: 'canary', port: 80 }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/api' }, headers: [{ name: 'x-env', type: 'RegularExpression', value: 'pre.*' }] }], backendRefs: [{ name: 'canary', port: 80 }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/search' }, queryParams: [{ name: 'q', value: 'canary' }] }], backendRefs: [{ name: 'canary', port: 80 }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/search' }, method: 'DELETE' }], backendRefs: [{ name: 'api', port: 80 }] },
          {
            matches: [{ path: { type: 'PathPrefix', value: '/v1' } }],
            filters: [{ type: 'URLRewrite', urlRewrite: { hostname: 'internal.example.test', path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } }],
            backendRefs: [{ name: 'api', port: 80 }],
          },
          {
            matches: [{ path: { type: 'Exact', value: '/old' } }],
            filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', hostname: 'new.example.test', statusCode: 301 } }],
          },
          {
            matches: [{ path: { type: 'PathPrefix', value: '/split' } }],
            backendRefs: [
              { name: 'api', port: 80, weight: 1 },
              { name: 'canary', port: 80, weight: 1 },
              { name: 'missing', port: 80, weight: 1 },
            ],
          },
          { matches: [{ path: { type: 'PathPrefix', value: '/broken' } }], backendRefs: [{ name: 'missing', port: 80 }] },
        ],
      },
    },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  const input = await loadExplainInput(
    { manifests: tmp.path },
    {
      translate: { ...defaultTranslateOptions, httpsRedirectPort: stack.httpsPort },
      envoy: { listenAddress: '127.0.0.1', httpPort: stack.httpPort, httpsPort: stack.httpsPort },
    },
  );

  const observe = async (row: Row): Promise<string> => {
    const res = await httpGet({ port: gatewayPort, hostHeader: row.host, path: row.path, headers: row.headers ?? {}, method: row.method ?? 'GET' });
    if (res.status === 200) return `${String(res.json?.service)} ${String(res.json?.path).split('?')[0]} ${String(res.json?.host)}`;
    if (res.status >= 300 && res.status < 400) return `${res.status} -> ${String(res.headers.location)}`;
    return `status ${res.status}`;
  };
  await waitFor(async () => (await observe({ host: 'shop.example.test', path: '/' })).startsWith('web'), { description: 'the Gateway listener routes' });

  const rows: Row[] = [
    { host: 'shop.example.test', path: '/' },
    { host: 'shop.example.test', path: '/api/items' },
    { host: 'shop.example.test', path: '/api/v1' },
    { host: 'shop.example.test', path: '/apix' },
    { host: 'shop.example.test', path: '/api/items', headers: { 'x-a': '1' } },
    { host: 'shop.example.test', path: '/api/items', headers: { 'x-a': '1', 'x-b': '1' } },
    { host: 'shop.example.test', path: '/api/items', headers: { 'x-env': 'preview' } },
    { host: 'shop.example.test', path: '/api/items', headers: { 'x-env': 'production' } },
    { host: 'shop.example.test', path: '/search?q=canary' },
    { host: 'shop.example.test', path: '/search?q=other' },
    { host: 'shop.example.test', path: '/search', method: 'DELETE' },
    { host: 'Shop.Example.Test', path: '/v1/items?x=1' },
    { host: 'shop.example.test', path: '/old?keep=1' },
    { host: 'shop.example.test', path: '/broken' },
    { host: 'a.b.deep.example.test', path: '/api' },
    { host: 'deep.example.test', path: '/api' },
    { host: 'other.example.test', path: '/' },
  ];
  for (const row of rows) {
    const request: ExplainRequest = { host: row.host, path: row.path, port: gatewayPort, ...(row.method ? { method: row.method } : {}), ...(row.headers ? { headers: row.headers } : {}) };
    const e = explain(input, request);
    t.deepEqual([await observe(row)], predicted(e), `${row.method ?? 'GET'} ${row.host}${row.path} ${JSON.stringify(row.headers ?? {})}: ${e.verdict}`);
  }

  // The split: every answer explain names, and only those.
  const split = explain(input, { host: 'shop.example.test', path: '/split', port: gatewayPort });
  const seen = new Set<string>();
  for (let i = 0; i < 90; i++) seen.add(await observe({ host: 'shop.example.test', path: '/split' }));
  t.deepEqual([...seen].sort(), predicted(split), split.verdict);
});

import { readFileSync } from 'node:fs';
import test from 'ava';
import fc from 'fast-check';
import { clusterStateFromYaml } from './shared/cluster-state-yaml.js';
import type { ClusterState, Ingress, IngressBackend, Service } from './shared/kube-objects.js';
import { defaultTranslateOptions } from './shared/options.js';
import { translate } from './translate.js';
import { ingressHttpTableOf, ingressHttpsTableOf, ingressTlsServersOf } from './ingress/ingress-listeners.js';
import { isHttpsRedirect } from './ingress/https-redirect.js';

const testdata = new URL('../../../testdata/translate/', import.meta.url);
const load = (name: string): ClusterState =>
  clusterStateFromYaml(readFileSync(new URL(`${name}.in.yaml`, testdata), 'utf8')).state;

const ourClass = {
  kind: 'IngressClass' as const,
  metadata: { name: 'envoy-ingress' },
  spec: { controller: defaultTranslateOptions.controllerName },
};
const web: Service = {
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec: { ports: [{ name: 'http', port: 80 }] },
};

function ingress(name: string, spec: Ingress['spec'], meta: Partial<Ingress['metadata']> = {}): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace: 'default', ...meta },
    spec: { ingressClassName: 'envoy-ingress', ...spec },
  };
}

function backend(service: string): IngressBackend {
  return { service: { name: service, port: { number: 80 } } };
}

function state(parts: Partial<ClusterState>): ClusterState {
  const empty = { ingresses: [], endpointSlices: [], endpoints: [], secrets: [] };
  return { ...empty, ingressClasses: [ourClass], services: [web], ...parts };
}

test('output does not depend on the order objects are listed in (property)', (t) => {
  for (const name of ['rule-conflict-oldest-wins', 'tls-conflict', 'ssl-redirect-off', 'default-backend-with-rules']) {
    const input = load(name);
    const expected = JSON.stringify(translate(input, defaultTranslateOptions));
    const permutation = <T>(items: readonly T[]): fc.Arbitrary<T[]> =>
      fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length });
    t.notThrows(() =>
      fc.assert(
        fc.property(
          fc.record({
            ingresses: permutation(input.ingresses),
            ingressClasses: permutation(input.ingressClasses),
            services: permutation(input.services),
            endpointSlices: permutation(input.endpointSlices),
            endpoints: permutation(input.endpoints),
            secrets: permutation(input.secrets),
          }),
          (shuffled) => JSON.stringify(translate(shuffled, defaultTranslateOptions)) === expected,
        ),
        { numRuns: 30 },
      ),
      name,
    );
  }
});

test('the 404 page and the https port come from the options', (t) => {
  const input = load('tls-valid');
  const options = { ...defaultTranslateOptions, notFoundPage: 'nothing here', httpsRedirectPort: 30443 };
  const { ir } = translate(input, options);
  const catchAll = ingressHttpTableOf(ir).virtualHosts.at(-1);
  t.is(catchAll?.name, '*');
  t.deepEqual(catchAll?.routes.at(-1)?.action, {
    kind: 'direct',
    status: 404,
    body: 'nothing here',
    contentType: 'text/html',
  });
  const secure = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === 'secure.example.com');
  t.deepEqual(secure?.routes[0]?.action, { kind: 'redirect', statusCode: 301, scheme: 'https', port: 30443 });
});

test('https serves the very virtual host plain HTTP serves unchanged (one IR object, built once); a redirecting host differs', (t) => {
  const { ir } = translate(load('ssl-redirect-off'), defaultTranslateOptions);
  const https = ingressTlsServersOf(ir).some((s) => s.name === 'https/optout.example.com') ? ingressHttpsTableOf(ir) : undefined;
  const optout = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === 'optout.example.com');
  t.truthy(optout);
  t.is(https?.virtualHosts.find((v) => v.name === 'optout.example.com'), optout);
  for (const vhost of ingressHttpTableOf(ir).virtualHosts) {
    const served = https?.virtualHosts.find((v) => v.name === vhost.name);
    if (vhost.routes.some((r) => isHttpsRedirect(r.action))) t.not(served, vhost, vhost.name);
  }
});

test('an Ingress that only provides TLS for a host and keeps the default still makes it redirect', (t) => {
  const input = load('ssl-redirect-off');
  const certOnly = ingress('cert-only', { tls: [{ hosts: ['optout.example.com'], secretName: 'example-tls' }] }, {
    creationTimestamp: '2024-06-01T00:00:00Z',
  });
  const { ir } = translate({ ...input, ingresses: [...input.ingresses, certOnly] }, defaultTranslateOptions);
  const optout = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === 'optout.example.com');
  t.true(optout?.routes[0] !== undefined && isHttpsRedirect(optout.routes[0].action));
});

test('an Ingress without creationTimestamp counts as the newest', (t) => {
  const rule = (service: string): Ingress['spec'] => ({
    rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend(service) }] } }],
  });
  const api: Service = { ...web, metadata: { name: 'api', namespace: 'default' } };
  const result = translate(
    state({
      services: [web, api],
      ingresses: [
        ingress('aaa-undated', rule('api')),
        ingress('zzz-dated', rule('web'), { creationTimestamp: '2030-01-01T00:00:00Z' }),
      ],
    }),
    defaultTranslateOptions,
  );
  t.deepEqual(result.ir.clusters.map((c) => c.name), ['default/web/80']);
  t.deepEqual(result.diagnostics.map((d) => [d.object.name, d.reason]), [['aaa-undated', 'RuleConflict']]);
});

test('an Ingress whose every part is broken is still served (its status is ours) and breaks nothing else', (t) => {
  const broken = ingress('broken', {
    rules: [
      { host: 'bad host', http: { paths: [] } },
      { host: 'b.example.com', http: { paths: [{ path: 'x', pathType: 'Prefix', backend: {} }] } },
    ],
    tls: [{ hosts: ['b.example.com'], secretName: 'nope' }],
  });
  const good = ingress('good', {
    rules: [{ host: 'b.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('web') }] } }],
  });
  const result = translate(state({ ingresses: [broken, good] }), defaultTranslateOptions);
  t.deepEqual(result.servedIngresses.map((r) => r.name), ['broken', 'good']);
  t.deepEqual(result.diagnostics.map((d) => d.reason), ['InvalidHost', 'InvalidPath', 'SecretNotFound']);
  const vhost = ingressHttpTableOf(result.ir).virtualHosts.find((v) => v.name === 'b.example.com');
  t.deepEqual(vhost?.routes.map((r) => r.name), ['ingress/default/good/rule/0/path/0', 'fallback']);
});

test('an empty state still has the catch-all virtual host answering 404', (t) => {
  const result = translate(state({}), defaultTranslateOptions);
  // One listener, plain HTTP on the default port (no TLS host: no HTTPS listener).
  t.deepEqual(result.ir, {
    listeners: [
      {
        name: 'ingress_http',
        port: 8080,
        protocol: 'HTTP',
        routeConfiguration: 'ingress',
        routeTable: {
          name: 'ingress_http',
          virtualHosts: [
            {
              name: '*',
              hostnames: ['*'],
              routes: [
                {
                  name: 'fallback',
                  match: { kind: 'prefix', path: '/' },
                  action: {
                    kind: 'direct',
                    status: 404,
                    body: defaultTranslateOptions.notFoundPage,
                    contentType: 'text/html',
                  },
                },
              ],
            },
          ],
        },
      },
    ],
    clusters: [],
    secrets: [],
  });
  t.deepEqual(result.diagnostics, []);
  t.deepEqual(result.servedIngresses, []);
});

test('the YAML loader folds Secret stringData into base64 data and reads TranslateOptions', (t) => {
  const parsed = clusterStateFromYaml(
    'kind: Secret\nmetadata: {name: s, namespace: n}\ndata: {a: YQ==}\nstringData: {b: "hi"}\n---\nkind: TranslateOptions\nhttpsRedirectPort: 8443\n',
  );
  t.deepEqual(parsed.state.secrets, [
    { kind: 'Secret', metadata: { name: 's', namespace: 'n' }, data: { a: 'YQ==', b: 'aGk=' } },
  ]);
  t.deepEqual(parsed.options, { httpsRedirectPort: 8443 });
  t.throws(() => clusterStateFromYaml('kind: Pod\nmetadata: {name: p}\n'), { message: /unsupported kind "Pod"/ });
});

test('references list what served Ingresses name, existing or not, and nothing from other Ingresses', (t) => {
  const served = ingress('served', {
    defaultBackend: backend('fallback'),
    rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('web') }] } }],
    tls: [{ hosts: ['a.example.com'], secretName: 'cert' }],
  });
  const foreign = ingress('foreign', {
    ingressClassName: 'nginx',
    rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('nginx-only') }] } }],
    tls: [{ hosts: ['b.example.com'], secretName: 'nginx-cert' }],
  });
  const { references } = translate(state({ ingresses: [served, foreign] }), defaultTranslateOptions);
  t.deepEqual(references, { services: ['default/fallback', 'default/web'], secrets: ['default/cert'] });
});

test('a GatewayClass of ours is Accepted with its supportedFeatures before any Gateway exists', (t) => {
  const { gatewayApiStatus, ir } = translate(
    state({
      gatewayClasses: [
        { kind: 'GatewayClass', metadata: { name: 'ours', generation: 3 }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
        { kind: 'GatewayClass', metadata: { name: 'theirs', generation: 1 }, spec: { controllerName: 'example.com/other' } },
      ],
    }),
    defaultTranslateOptions,
  );
  t.deepEqual(gatewayApiStatus?.gatewayClasses.map((c) => c.ref.name), ['ours']);
  const accepted = gatewayApiStatus?.gatewayClasses[0]?.conditions.find((c) => c.type === 'Accepted');
  t.is(accepted?.status, 'True');
  t.is(accepted?.observedGeneration, 3);
  t.true((gatewayApiStatus?.gatewayClasses[0]?.supportedFeatures.length ?? 0) > 0);
  t.false(ir.listeners.some((l) => l.name.startsWith('gateway/')));
});

test('a route of another controller\'s Gateway gets no diagnostic from us, even with an invalid hostname', (t) => {
  const route = (parent: string) => ({
    kind: 'HTTPRoute',
    metadata: { name: `to-${parent}`, namespace: 'default' },
    spec: { parentRefs: [{ name: parent }], hostnames: ['bad_host!'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
  });
  const { diagnostics } = translate(
    state({
      gatewayClasses: [
        { kind: 'GatewayClass', metadata: { name: 'ours' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
        { kind: 'GatewayClass', metadata: { name: 'theirs' }, spec: { controllerName: 'example.com/other' } },
      ],
      gateways: [
        { kind: 'Gateway', metadata: { name: 'mine', namespace: 'default' }, spec: { gatewayClassName: 'ours', listeners: [{ name: 'http', port: 9080, protocol: 'HTTP' }] } },
        { kind: 'Gateway', metadata: { name: 'other', namespace: 'default' }, spec: { gatewayClassName: 'theirs', listeners: [{ name: 'http', port: 9080, protocol: 'HTTP' }] } },
      ],
      httpRoutes: [route('mine'), route('other')],
    } as Partial<ClusterState>),
    defaultTranslateOptions,
  );
  const invalid = diagnostics.filter((d) => d.reason === 'InvalidHostname').map((d) => d.object.name);
  t.deepEqual(invalid, ['to-mine']);
});

// Property: whatever values canary Ingresses carry (valid, invalid, hostile) and whichever routes they name, the
// translation never throws, the main Ingresses' routes are all still served to their own backends, every header
// regex is RE2 and every split well formed, and the real Envoy accepts the generated configuration.
import test from 'ava';
import fc from 'fast-check';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { translateEndpoints } from '../controller/translate/shared/endpoints.js';
import type { ClusterState, Ingress, Service } from '../controller/translate/shared/kube-objects.js';
import { nginxAnnotationPrefix } from '../controller/translate/ingress/nginx/catalog.js';
import { isNginxCanary } from '../controller/translate/ingress/nginx/nginx-canary.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { compileRe2 } from '../controller/translate/ingress/path-match-regex.js';
import { translate } from '../controller/translate/translate.js';
import { buildResources } from '../envoy/build-resources.js';
import { inlineIntoStaticBootstrap } from '../envoy/static-bootstrap.js';
import { ingressHttpTableOf } from '../controller/translate/ingress/ingress-listeners.js';

const options = { ...defaultTranslateOptions, nginxAnnotations: true };
const hosts = ['a.test', 'b.test', '*.wild.test'];
const paths = ['/', '/api', '/api/v1'];
const services = ['main', 'v2', 'v3', 'missing'];

/** Strings users write, strings with quotes, regex and header syntax, and plain noise. */
const text = fc.oneof(
  fc.constantFrom('X-Canary', 'x_canary', 'always', 'never', 'eu west', ' padded ', 'a"b', 'a\\b', '%d', 'bad header', 'Host', 'cookie', ''),
  fc.constantFrom('^(qa|internal)-', '(?<=a)b', '\\1', '(', 'a)|(b', '\\u0041', '.*', '[[:alpha:]]+', '(?i)BETA', 'x{2,}', '\\Q.\\E'),
  fc.constantFrom('canary', 'my.cookie', 'a;b', 'a=b', 'c o', 'ü'),
  fc.string({ maxLength: 12 }),
);
const number = fc.oneof(fc.constantFrom('0', '1', '20', '99', '100', '101', '1000', '-5', '12.5', '1e3', ' 30 ', 'lots', ''), fc.nat(2_000_000).map(String));
const canaryAnnotations = fc.record(
  {
    canary: fc.constantFrom('true', 'True', '1', 'false', 'yes'),
    'canary-by-header': text,
    'canary-by-header-value': text,
    'canary-by-header-pattern': text,
    'canary-by-cookie': text,
    'canary-weight': number,
    'canary-weight-total': number,
    'proxy-read-timeout': fc.constantFrom('5', 'x'),
  },
  { requiredKeys: ['canary'] },
);
const canaryIngress = fc.record({
  annotations: canaryAnnotations,
  host: fc.constantFrom(...hosts, 'x.wild.test', 'nobody.test'),
  path: fc.constantFrom(...paths, '/other'),
  // Mostly Prefix, the mains' pathType: a canary joins only the same pathType as written (as in ingress-nginx).
  pathType: fc.oneof({ arbitrary: fc.constant('Prefix'), weight: 4 }, fc.constant('Exact'), fc.constant('ImplementationSpecific')),
  service: fc.constantFrom(...services),
});

function ingress(name: string, age: number, annotations: Record<string, string>, host: string, path: string, pathType: string, service: string): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace: 'default', annotations, creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, age)).toISOString() },
    spec: { ingressClassName: 'envoy-ingress', rules: [{ host, http: { paths: [{ path, pathType, backend: { service: { name: service, port: { number: 80 } } } }] } }] },
  };
}

function service(name: string): Service {
  return { kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } };
}

interface CanarySpec {
  annotations: Partial<Record<string, string>>;
  host: string;
  path: string;
  pathType: string;
  service: string;
}

function stateOf(canaries: readonly CanarySpec[]): ClusterState {
  const mains = hosts.flatMap((host, i) => paths.map((path, j) => ingress(`main-${i}-${j}`, 0, {}, host, path, 'Prefix', 'main')));
  const canaryObjects = canaries.map((c, k) =>
    ingress(`canary-${k}`, k + 1, Object.fromEntries(Object.entries(c.annotations).map(([key, v]) => [`${nginxAnnotationPrefix}${key}`, v ?? ''])), c.host, c.path, c.pathType, c.service),
  );
  const endpointSlices = services.filter((s) => s !== 'missing').map((s, i) => ({
    kind: 'EndpointSlice' as const,
    metadata: { name: `${s}-1`, namespace: 'default', labels: { 'kubernetes.io/service-name': s } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080 }],
    endpoints: [{ addresses: [`10.0.0.${i + 1}`], conditions: { ready: true } }],
  }));
  return {
    ingresses: [...mains, ...canaryObjects],
    ingressClasses: [{ kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } }],
    services: services.filter((s) => s !== 'missing').map(service),
    endpointSlices,
    endpoints: [],
    secrets: [],
  } as ClusterState;
}

function check(state: ClusterState): string | undefined {
  const { ir } = translate(state, options);
  for (const vhost of ingressHttpTableOf(ir).virtualHosts) {
    for (const route of vhost.routes) {
      for (const header of route.headers ?? []) {
        if (header.kind === 'regex' && !compileRe2(header.value).ok) return `${route.name}: ${header.value} is not RE2`;
        if (header.name !== header.name.toLowerCase() || header.name === 'host') return `${route.name}: header ${header.name}`;
      }
      const action = route.action;
      if (action.kind === 'forward' && action.split !== undefined) {
        const { backends, totalWeight } = action.split;
        const [backend, ...more] = backends;
        const weight = backend?.weight ?? 0;
        // An ingress-nginx canary is one backend taking weight of totalWeight.
        if (more.length > 0 || !(Number.isInteger(weight) && weight > 0 && weight <= totalWeight && totalWeight >= 100)) return `${route.name}: split ${weight}/${totalWeight}`;
      }
    }
  }
  // Every main route is still there, to the main Service, and no canary got a route of its own.
  for (const [i, host] of hosts.entries()) {
    const vhost = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === host);
    for (const j of paths.keys()) {
      const main = vhost?.routes.find((r) => r.name === `ingress/default/main-${i}-${j}/rule/0/path/0`);
      if (main?.action.kind !== 'forward' || main.action.cluster !== 'default/main/80') return `main-${i}-${j} not served by its backend`;
    }
  }
  const canaryNames = new Set(state.ingresses.filter(isNginxCanary).map((i) => i.metadata.name));
  const stray = ingressHttpTableOf(ir).virtualHosts.flatMap((v) => v.routes).find((r) => r.source !== undefined && canaryNames.has(r.source.name));
  return stray === undefined ? undefined : `canary route ${stray.name}`;
}

test('any canary annotations: no exception, main routes intact, header regexes RE2, splits well formed', (t) => {
  t.notThrows(() =>
    fc.assert(
      fc.property(fc.array(canaryIngress, { maxLength: 8 }), (canaries) => check(stateOf(canaries)) === undefined),
      { numRuns: 300, seed: 7 },
    ),
  );
});

test('the real Envoy accepts what any canary annotations produce', async (t) => {
  // Three large samples (fixed seed: the same inputs every run), one `envoy --mode validate` each.
  const samples = fc.sample(fc.array(canaryIngress, { minLength: 30, maxLength: 40 }), { numRuns: 3, seed: 11 });
  for (const canaries of samples) {
    const state = stateOf(canaries);
    const { ir } = translate(state, options);
    t.true(ingressHttpTableOf(ir).virtualHosts.some((v) => v.routes.some((r) => r.headers !== undefined)), 'the sample has canary routes');
    const resources = buildResources(ir, translateEndpoints(state, ir.clusters), { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 });
    const result = await validateWithEnvoy(inlineIntoStaticBootstrap(resources));
    t.true(result.ok, result.output);
  }
});

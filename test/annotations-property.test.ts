// Property test of the annotations against the real Envoy: Ingresses carrying random mixes of valid, nearly valid
// and arbitrary annotation values go through the whole pure pipeline. Every batch must keep every Ingress's route,
// report only InvalidAnnotation diagnostics that name one of our annotations, give encodable resources, and give a
// configuration `envoy --mode validate` accepts (what Envoy would NACK never leaves the controller). The seed is
// printed; PROPERTY_SEED=<n> replays a run.
import test from 'ava';
import fc from 'fast-check';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { buildConfig } from '../controller/pipeline/build-config.js';
import { Annotation } from '../controller/translate/ingress/annotations.js';
import type { ClusterState, Ingress } from '../controller/translate/shared/kube-objects.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { Reason } from '../controller/translate/shared/reasons.js';
import { inlineIntoStaticBootstrap } from '../envoy/static-bootstrap.js';
import { encodeAny } from '../proto/proto-json.js';
import { ingressHttpTableOf } from '../controller/translate/ingress/ingress-listeners.js';

const batches = 20;
const ingressesPerBatch = 25;

/** Values each annotation accepts, so random mixes reach the builders, not only the validators. */
const validSamples: Record<string, string[]> = {
  [Annotation.sslRedirect]: ['true', 'false'],
  [Annotation.httpsOnly]: ['true', 'false'],
  [Annotation.forceSslRedirect]: ['true', 'false'],
  [Annotation.requestTimeout]: ['0', '30s', '1.5s', '250ms', '2h'],
  [Annotation.idleTimeout]: ['0', '10s', '0.5m'],
  [Annotation.retryOn]: ['5xx', 'reset,connect-failure', 'gateway-error, retriable-4xx'],
  [Annotation.retryCount]: ['0', '1', '10'],
  [Annotation.retryPerTryTimeout]: ['500ms', '0', '3s'],
  [Annotation.rewritePrefix]: ['/', '/v2', '/v2/', '/a.b/$1/%41', '/(x)'],
  [Annotation.backendProtocol]: ['http', 'https', 'h2c', 'h2', 'H2C'],
  [Annotation.backendSni]: ['api.internal', 'a'],
  [Annotation.loadBalancer]: ['round-robin', 'least-request', 'ring-hash', 'maglev', 'random'],
  [Annotation.hashBy]: ['header:X-User', 'cookie:session', 'source-ip', 'cookie:A$b'],
  [Annotation.allowedSourceCidrs]: ['10.0.0.0/8', '127.0.0.1, ::1', '2001:db8::/32 192.168.0.0/16', '0.0.0.0/0'],
  [Annotation.maxRequestBodySize]: ['1', '1k', '8Mi', '4294967295'],
  [Annotation.requestHeadersSet]: ['X-A: 1', 'X-A: 100%\nX-B: %REQ(host)%', 'X-Empty:'],
  [Annotation.requestHeadersRemove]: ['x-debug', 'cookie, x-a'],
  [Annotation.responseHeadersSet]: ['Strict-Transport-Security: max-age=1', 'X-Q: "quoted" \\ back'],
  [Annotation.responseHeadersRemove]: ['server'],
  [Annotation.corsAllowOrigins]: ['*', 'https://app.example.com', 'https://*.example.org, http://localhost:3000'],
  [Annotation.corsAllowMethods]: ['GET', 'get, post'],
  [Annotation.corsAllowHeaders]: ['X-User', 'Content-Type, Authorization'],
  [Annotation.corsExposeHeaders]: ['X-Request-Id'],
  [Annotation.corsAllowCredentials]: ['true', 'false'],
  [Annotation.corsMaxAge]: ['0', '600'],
};

const nastyCharacters = ['%', '\\', ':', '\n', '\r', ' ', ',', '/', '*', '$', '"', '\u0000', 'é', '(', '[', '{', '?', '#'];

/** Valid values, valid values with a nasty character somewhere, and anything at all. */
function valueArbitrary(key: string): fc.Arbitrary<string> {
  const samples = validSamples[key] ?? ['x'];
  return fc.oneof(
    { arbitrary: fc.constantFrom(...samples), weight: 5 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...samples), fc.nat(), fc.constantFrom(...nastyCharacters))
        .map(([value, at, c]) => value.slice(0, at % (value.length + 1)) + c + value.slice(at % (value.length + 1))),
      weight: 2,
    },
    { arbitrary: fc.string({ maxLength: 40, unit: 'binary' }), weight: 1 },
    { arbitrary: fc.constant('9'.repeat(20_000)), weight: 1 },
  );
}

const annotationsArbitrary: fc.Arbitrary<Record<string, string>> = fc
  .subarray(Object.values(Annotation))
  .chain((keys) => fc.tuple(...keys.map((key) => valueArbitrary(key).map((value) => [key, value] as const))))
  .map((entries) => Object.fromEntries(entries));

function ingressWith(i: number, annotations: Record<string, string>): Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: `ing-${i}`, namespace: 'default', annotations, creationTimestamp: `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z` },
    spec: {
      ingressClassName: 'envoy-ingress',
      // Every other Ingress shares a host; the first one's annotations also go on the default backend.
      ...(i === 0 ? { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } : {}),
      rules: [
        {
          host: i % 2 === 0 ? 'shared.example.com' : `h${i}.example.com`,
          http: { paths: [{ path: `/p${i}`, pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] },
        },
      ],
    },
  } as Ingress;
}

function stateWith(ingresses: Ingress[]): ClusterState {
  return {
    ingresses,
    ingressClasses: [
      { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } },
    ],
    services: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }],
    endpointSlices: [
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'web-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'http', port: 8080 }],
      },
    ],
    endpoints: [],
    secrets: [],
  } as unknown as ClusterState;
}

test('random annotation values never break other settings, other Ingresses, or Envoy', async (t) => {
  t.timeout(300_000);
  const seed = Number(process.env['PROPERTY_SEED'] ?? 20_261_122);
  t.log(`seed ${seed} (PROPERTY_SEED=${seed} replays this run)`);
  const samples = fc.sample(fc.array(annotationsArbitrary, { minLength: ingressesPerBatch, maxLength: ingressesPerBatch }), {
    seed,
    numRuns: batches,
  });
  let cases = 0;
  let diagnostics = 0;
  let annotationsSeen = 0;
  for (const [b, batch] of samples.entries()) {
    const ingresses = batch.map((annotations, i) => ingressWith(i, annotations));
    cases += ingresses.length;
    annotationsSeen += batch.reduce((n, a) => n + Object.keys(a).length, 0);
    const built = buildConfig(stateWith(ingresses), {
      translate: defaultTranslateOptions,
      envoy: { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 },
    });
    const { ir } = built.translation;
    for (const d of built.translation.diagnostics) {
      diagnostics++;
      t.is(d.reason, Reason.InvalidAnnotation, d.message);
      t.regex(d.message, /^annotation envoy-ingress\.io\/[a-z-]+ /);
      t.true(d.message.length < 2000, 'a huge value is not copied into the message');
    }
    // Every Ingress keeps its route on plain HTTP (served, redirected or refused), whatever its annotations.
    const routeNames = ingressHttpTableOf(ir).virtualHosts.flatMap((v) => v.routes.map((r) => r.name));
    for (let i = 0; i < ingresses.length; i++) {
      const name = `ingress/default/ing-${i}/rule/0/path/0`;
      t.true(routeNames.some((n) => n === name || n.startsWith(`${name}/`)), `batch ${b}: ${name} missing`);
    }
    for (const list of Object.values(built.resources)) for (const { resource } of list) encodeAny(resource);
    const result = await validateWithEnvoy(inlineIntoStaticBootstrap(built.resources));
    t.true(result.ok, `batch ${b}: ${result.output}`);
  }
  t.log(`${cases} annotated Ingresses (${annotationsSeen} annotations) in ${batches} configurations accepted by Envoy; ${diagnostics} diagnostics`);
});

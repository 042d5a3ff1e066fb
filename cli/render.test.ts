import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from '../test/fixtures/manifests.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { createTestCA } from '../test/harness/test-certs.js';
import { loadAndBuild, renderDocuments, staticBootstrapOf } from './render.js';

const options = {
  translate: { ingressClassName: 'envoy-ingress', controllerName: 'envoy-ingress.io/ingress-controller', notFoundPage: '404', httpsRedirectPort: 443 },
  envoy: { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 },
};

async function world(t: import('ava').ExecutionContext) {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['secure.example.test'] });
  await writeFile(
    tmp.file('app.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('zeta', [{ address: '10.0.0.2', port: 80 }]),
      ...serviceWithEndpoints('alpha', [{ address: '10.0.0.1', port: 80 }]),
      tlsSecret('secure-tls', cert.certPem, cert.keyPem),
      ingress('app', {
        rules: [
          { host: 'z.example.test', paths: [{ path: '/', service: 'zeta' }] },
          { host: 'secure.example.test', paths: [{ path: '/', service: 'alpha' }] },
        ],
        tls: [{ hosts: ['secure.example.test'], secretName: 'secure-tls' }],
      }),
    ]),
  );
  await writeFile(tmp.file('broken.yaml'), 'kind: Service\nmetadata: {name: [\n');
  return { dir: tmp.path, keyPem: cert.keyPem };
}

test('render prints one JSON document per xDS type, resources sorted by name, then the problems', async (t) => {
  const { dir } = await world(t);
  const docs = renderDocuments(await loadAndBuild(dir, options)).map((d) => JSON.parse(d) as Record<string, unknown>);
  t.deepEqual(docs.slice(0, 6).map((d) => d['typeUrl']), [
    'type.googleapis.com/envoy.config.listener.v3.Listener',
    'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
    'type.googleapis.com/envoy.config.cluster.v3.Cluster',
    'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
    'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
    'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig',
  ]);
  // The filter configurations the listeners name (ECDS), each once.
  const filterNames = (docs[5]!['resources'] as { name: string }[]).map((c) => c.name);
  t.true(filterNames.includes('envoy.filters.http.lua'));
  t.deepEqual(filterNames, [...filterNames].sort());
  const clusterNames = (docs[2]!['resources'] as { name: string }[]).map((c) => c.name);
  t.is(clusterNames.length, 2);
  t.deepEqual(clusterNames, [...clusterNames].sort());
  t.true(clusterNames[0]!.includes('alpha'), 'alpha sorts before zeta although it was written after it');
  const last = docs[6] as { manifestProblems: { file: string }[]; servedIngresses: { name: string }[]; diagnostics: unknown[] };
  t.deepEqual(last.manifestProblems.map((p) => p.file), ['broken.yaml']);
  t.deepEqual(last.servedIngresses.map((r) => r.name), ['app']);
});

test('render never prints a private key', async (t) => {
  const { dir, keyPem } = await world(t);
  const config = await loadAndBuild(dir, options);
  const text = renderDocuments(config).join('\n');
  const keyBody = keyPem.split('\n')[1]!;
  t.false(text.includes(keyBody));
  t.false(text.includes('PRIVATE KEY'));
  const secrets = JSON.parse(renderDocuments(config)[4]!) as { resources: { tls_certificate: { private_key: unknown; certificate_chain: { inline_string: string } } }[] };
  t.deepEqual(secrets.resources[0]?.tls_certificate.private_key, { inline_string: '[redacted]' });
  t.regex(secrets.resources[0]!.tls_certificate.certificate_chain.inline_string, /BEGIN CERTIFICATE/, 'certificates are shown');
  // Redaction is for printing only: validate's static bootstrap carries the real key.
  t.true(JSON.stringify(staticBootstrapOf(config)).includes(keyBody));
});

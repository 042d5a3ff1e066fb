// xDS over mutual TLS (the split install: Envoy in another pod than the controller). The real controller serves
// xDS with certificates from files; a real Envoy with a client certificate from the same CA gets its config, one
// with a certificate from another CA and a client without any certificate are refused, and a rotated server
// certificate is picked up from the files without a restart.
import { writeFile, rename } from 'node:fs/promises';
import tls from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../cli/logger.js';
import { startStandaloneController, type StandaloneController } from '../cli/standalone-controller.js';
import { createXdsServerCredentials } from '../cli/xds-server-credentials.js';
import { defaultTranslateOptions } from '../controller/translate/options.js';
import { buildBootstrap } from '../envoy/bootstrap.js';
import { useEchoBackend, useEnvoy } from './harness/ava-fixtures.js';
import type { EnvoyProcess } from './harness/envoy-process.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type TestCA } from './harness/test-certs.js';
import { ingress, ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort } from './fixtures/standalone-stack.js';

const serverName = 'xds.envoy-ingress.test';

interface World {
  dir: string;
  ca: TestCA;
  controller: StandaloneController;
  httpPort: number;
}

/** Writes a file the way a Kubernetes Secret volume updates: a new file renamed over the old one. */
async function replaceFile(file: string, content: string): Promise<void> {
  await writeFile(`${file}.new`, content);
  await rename(`${file}.new`, file);
}

async function setUp(t: ExecutionContext): Promise<World> {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const ca = await createTestCA({ commonName: 'xds-ca' });
  const server = await ca.issue({ dnsNames: [serverName] });
  await writeFile(tmp.file('tls.crt'), server.certPem);
  await writeFile(tmp.file('tls.key'), server.keyPem);
  await writeFile(tmp.file('ca.crt'), ca.certPem);
  const backend = await useEchoBackend(t, { service: 'web' });
  const manifests = await createTempDir();
  t.teardown(() => manifests.remove());
  await writeFile(
    manifests.file('app.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('web', [{ address: backend.address, port: backend.port }]),
      ingress('web', { rules: [{ host: 'web.example.test', paths: [{ path: '/', service: 'web' }] }] }),
    ]),
  );
  const httpPort = await freePort();
  const controller = await startStandaloneController({
    manifestsDir: manifests.path,
    xdsHost: '127.0.0.1',
    xdsPort: 0,
    xdsCredentials: createXdsServerCredentials(
      { certFile: tmp.file('tls.crt'), keyFile: tmp.file('tls.key'), caFile: tmp.file('ca.crt') },
      200,
    ),
    translate: defaultTranslateOptions,
    envoy: { listenAddress: '127.0.0.1', httpPort, httpsPort: await freePort() },
    log: createLogger('warn', { write: () => true } as unknown as NodeJS.WritableStream),
  });
  t.teardown(() => controller.stop());
  return { dir: tmp.path, ca, controller, httpPort };
}

/** An Envoy whose xDS cluster speaks mutual TLS with the given client certificate. */
async function envoyWithClientCert(t: ExecutionContext, w: World, issuer: TestCA, name: string): Promise<EnvoyProcess> {
  const client = await issuer.issue({ dnsNames: [`${name}.envoy-ingress.test`], clientAuth: true });
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  await writeFile(dir.file('tls.crt'), client.certPem);
  await writeFile(dir.file('tls.key'), client.keyPem);
  await writeFile(dir.file('ca.crt'), w.ca.certPem);
  return useEnvoy(t, {
    bootstrap: buildBootstrap({
      nodeId: name,
      nodeCluster: 'test',
      xdsHost: '127.0.0.1',
      xdsPort: w.controller.xdsPort,
      adminAddress: '127.0.0.1',
      adminPort: 0,
      xdsProtocol: 'delta',
      xdsTls: { certFile: dir.file('tls.crt'), keyFile: dir.file('tls.key'), caFile: dir.file('ca.crt'), serverName },
    }),
    drainTimeS: 1,
  });
}

/** TLS handshake with the xDS port; resolves to the server certificate's serial, or the error. */
function handshake(w: World, client?: { cert: string; key: string }): Promise<{ serial?: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: w.controller.xdsPort,
      servername: serverName,
      ca: w.ca.certPem,
      ALPNProtocols: ['h2'],
      ...(client ?? {}),
    });
    socket.once('secureConnect', () => {
      const serial = socket.getPeerCertificate().serialNumber;
      // TLS 1.3: the server checks the client certificate after the client's handshake is done; a refusal comes
      // as an alert on the first read.
      socket.once('data', () => {
        socket.destroy();
        resolve({ serial });
      });
      socket.once('close', () => resolve({ error: 'closed' }));
      socket.once('error', (err) => resolve({ error: err.message }));
      // The HTTP/2 preface makes the server answer (SETTINGS) once it has accepted us.
      socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00');
    });
    socket.once('error', (err) => resolve({ error: err.message }));
  });
}

test('an Envoy with a client certificate from the xDS CA gets its config over mutual TLS', async (t) => {
  const w = await setUp(t);
  const envoy = await envoyWithClientCert(t, w, w.ca, 'good');
  await envoy.waitForListener('ingress_http');
  const res = await httpGet({ port: w.httpPort, hostHeader: 'web.example.test', path: '/' });
  t.is(res.json?.service, 'web');
  t.deepEqual(w.controller.server.clients().map((c) => c.node?.id), ['good']);
});

test('an Envoy whose client certificate another CA signed is refused and gets no config', async (t) => {
  const w = await setUp(t);
  const rogueCa = await createTestCA({ commonName: 'rogue-ca' });
  const envoy = await envoyWithClientCert(t, w, rogueCa, 'rogue');
  await envoy.waitUntil(async () => {
    const stats = await envoy.stats('cluster\\.xds_cluster\\.(upstream_cx_connect_fail|upstream_cx_destroy_remote|ssl\\.connection_error)$');
    return Object.values(stats).some((v) => v >= 2);
  }, 20_000, 'xDS connections refused');
  // With TLS 1.3 the client finishes its handshake before the server checks its certificate, so Envoy's
  // connected_state can flip to 1 for a moment on each retry; what matters is on the server side: no xDS stream
  // was ever accepted from this Envoy.
  t.is(w.controller.server.stats.streamsOpened, 0);
  t.deepEqual(w.controller.server.clients(), []);
  t.deepEqual((await envoy.warmingState()).warmingListeners, []);
  await t.throwsAsync(envoy.listenerPort('ingress_http'));
});

test('a client without a certificate cannot complete a connection; one with a valid certificate can', async (t) => {
  const w = await setUp(t);
  const without = await handshake(w);
  t.truthy(without.error, JSON.stringify(without));
  const client = await w.ca.issue({ dnsNames: ['client.envoy-ingress.test'], clientAuth: true });
  const withCert = await handshake(w, { cert: client.certPem, key: client.keyPem });
  t.truthy(withCert.serial, JSON.stringify(withCert));
});

test('a rotated server certificate is served from the files without a restart', async (t) => {
  const w = await setUp(t);
  const client = await w.ca.issue({ dnsNames: ['client.envoy-ingress.test'], clientAuth: true });
  const creds = { cert: client.certPem, key: client.keyPem };
  const first = await handshake(w, creds);
  t.truthy(first.serial);
  const rotated = await w.ca.issue({ dnsNames: [serverName] });
  await replaceFile(`${w.dir}/tls.key`, rotated.keyPem);
  await replaceFile(`${w.dir}/tls.crt`, rotated.certPem);
  const deadline = Date.now() + 15_000;
  let latest = first;
  while (latest.serial !== rotated.serialNumber && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    latest = await handshake(w, creds);
  }
  t.is(latest.serial?.toUpperCase(), rotated.serialNumber.toUpperCase());
});

// xDS over mutual TLS (the split install: Envoy in another pod than the controller). The real controller serves
// xDS with certificates from files; a real Envoy with a client certificate from the same CA gets its config, one
// with a certificate from another CA and a client without any certificate are refused, a rotated server
// certificate is picked up from the files without a restart, and a rotated client certificate and CA (a Secret
// volume updated the kubelet's way) are picked up by Envoy through its file-based SDS.
import { writeFile, rename } from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../cli/logger.js';
import { startStandaloneController, type StandaloneController } from '../cli/standalone-controller.js';
import { createXdsServerCredentials } from '../cli/xds-server-credentials.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { stringify } from 'yaml';
import { buildBootstrap, buildXdsTlsSdsFiles } from '../envoy/bootstrap.js';
import { useEnvoy } from './harness/ava-fixtures.js';
import type { EnvoyProcess } from './harness/envoy-process.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { secretVolume, type SecretVolume } from './harness/secret-volume.js';
import { createTestCA, type IssuedCertificate, type TestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingress, toYaml } from './fixtures/manifests.js';
import { useWebAppManifests } from './fixtures/echo-app-manifests.js';
import { freePort } from './fixtures/standalone-stack.js';

const serverName = 'xds.envoy-ingress.test';
/** The identity the controller admits (--xds-tls-client-san): the CA alone is not enough. */
const envoyIdentity = 'envoy.envoy-ingress.test';

interface World {
  dir: string;
  ca: TestCA;
  controller: StandaloneController;
  httpPort: number;
  manifestsDir: string;
  /** Stops the controller and starts a new one on the same xDS port with the current certificate files. */
  restartController(): Promise<StandaloneController>;
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
  const manifests = await useWebAppManifests(t);
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const start = (xdsPort: number) =>
    startStandaloneController({
      manifestsDir: manifests,
      xdsHost: '127.0.0.1',
      xdsPort,
      xdsCredentials: createXdsServerCredentials(
        { certFile: tmp.file('tls.crt'), keyFile: tmp.file('tls.key'), caFile: tmp.file('ca.crt') },
        200,
      ),
      xdsClientSans: [envoyIdentity],
      translate: defaultTranslateOptions,
      envoy: { listenAddress: '127.0.0.1', httpPort, httpsPort },
      log: createLogger('warn', { write: () => true } as unknown as NodeJS.WritableStream),
    });
  const w: World = {
    dir: tmp.path,
    ca,
    controller: await start(0),
    httpPort,
    manifestsDir: manifests,
    async restartController() {
      await w.controller.stop();
      w.controller = await start(w.controller.xdsPort);
      return w.controller;
    },
  };
  t.teardown(() => w.controller.stop());
  return w;
}

/**
 * An Envoy whose xDS cluster speaks mutual TLS with the given client certificate, read (as in the split install)
 * from a Secret volume through the SDS files `envoy-ingress bootstrap --output-dir` writes beside the bootstrap.
 */
async function envoyWithClientCert(
  t: ExecutionContext,
  w: World,
  issuer: TestCA,
  name: string,
  san = envoyIdentity,
): Promise<{ envoy: EnvoyProcess; volume: SecretVolume; client: IssuedCertificate }> {
  const client = await issuer.issue({ dnsNames: [san], clientAuth: true });
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  const volume = secretVolume(path.join(dir.path, 'xds-tls'));
  await volume.write({ 'tls.crt': client.certPem, 'tls.key': client.keyPem, 'ca.crt': w.ca.certPem });
  const xdsTls = { certFile: volume.file('tls.crt'), keyFile: volume.file('tls.key'), caFile: volume.file('ca.crt'), serverName, sdsDir: dir.path };
  for (const [file, doc] of Object.entries(buildXdsTlsSdsFiles(xdsTls))) await writeFile(dir.file(file), stringify(doc));
  const envoy = await useEnvoy(t, {
    bootstrap: buildBootstrap({
      nodeId: name,
      nodeCluster: 'test',
      xdsHost: '127.0.0.1',
      xdsPort: w.controller.xdsPort,
      adminAddress: '127.0.0.1',
      adminPort: 0,
      xdsProtocol: 'delta',
      xdsTls,
    }),
    drainTimeS: 1,
  });
  return { envoy, volume, client };
}

/** Serial numbers (upper-case hex) of the certificates Envoy's xDS cluster presents, from /certs. */
async function presentedSerials(envoy: EnvoyProcess): Promise<string[]> {
  const certs = JSON.parse((await envoy.admin('/certs')).body) as { certificates?: { cert_chain?: { serial_number?: string }[] }[] };
  return (certs.certificates ?? []).flatMap((c) => (c.cert_chain ?? []).map((x) => (x.serial_number ?? '').toUpperCase()));
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
  const { envoy } = await envoyWithClientCert(t, w, w.ca, 'good');
  await envoy.waitForListener('ingress_http');
  const res = await httpGet({ port: w.httpPort, hostHeader: 'web.example.test', path: '/' });
  t.is(res.json?.service, 'web');
  t.deepEqual(w.controller.server.clients().map((c) => c.node?.id), ['good']);
});

test('an Envoy whose client certificate another CA signed is refused and gets no config', async (t) => {
  const w = await setUp(t);
  const rogueCa = await createTestCA({ commonName: 'rogue-ca' });
  const { envoy } = await envoyWithClientCert(t, w, rogueCa, 'rogue');
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

test('an Envoy whose certificate the xDS CA signed for another identity (SAN) gets no stream and no config', async (t) => {
  const w = await setUp(t);
  const { envoy } = await envoyWithClientCert(t, w, w.ca, 'impostor', 'some-other-workload.envoy-ingress.test');
  await waitFor(() => w.controller.server.stats.refusedStreams >= 2, { description: 'xDS streams refused', timeoutMs: 20_000 });
  t.is(w.controller.server.stats.streamsOpened, 0);
  t.is(w.controller.server.stats.responses, 0);
  t.deepEqual(w.controller.server.clients(), []);
  await t.throwsAsync(envoy.listenerPort('ingress_http'));
  // The same CA, the expected identity: served.
  const { envoy: good } = await envoyWithClientCert(t, w, w.ca, 'good');
  await good.waitForListener('ingress_http');
  t.deepEqual(w.controller.server.clients().map((c) => c.node?.id), ['good']);
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

test('Envoy picks up a rotated client certificate and CA from its Secret volume and reconnects with them', async (t) => {
  const w = await setUp(t);
  const { envoy, volume, client } = await envoyWithClientCert(t, w, w.ca, 'rotating');
  await envoy.waitForListener('ingress_http');
  t.deepEqual(await presentedSerials(envoy), [client.serialNumber]);

  // Everything moves to a new CA: Envoy's Secret first (the kubelet's symlink swap), then the controller's.
  const newCa = await createTestCA({ commonName: 'xds-ca-2' });
  const newClient = await newCa.issue({ dnsNames: [envoyIdentity], clientAuth: true });
  await volume.write({ 'tls.crt': newClient.certPem, 'tls.key': newClient.keyPem, 'ca.crt': newCa.certPem });
  await envoy.waitUntil(async () => (await presentedSerials(envoy)).includes(newClient.serialNumber), 20_000, 'Envoy to load the new client certificate');
  t.deepEqual(await presentedSerials(envoy), [newClient.serialNumber]);

  const newServer = await newCa.issue({ dnsNames: [serverName] });
  await replaceFile(`${w.dir}/tls.key`, newServer.keyPem);
  await replaceFile(`${w.dir}/tls.crt`, newServer.certPem);
  // The old client certificate is no good from now on: the controller trusts only the new CA.
  await replaceFile(`${w.dir}/ca.crt`, newCa.certPem);

  // A new controller (as after a rollout) cuts the stream: Envoy must reconnect, presenting the new certificate and
  // trusting the new server certificate only through the new CA.
  const controller = await w.restartController();
  const refused = await handshake({ ...w, ca: newCa }, { cert: client.certPem, key: client.keyPem });
  t.truthy(refused.error, 'the controller refuses the old client certificate');
  await waitFor(() => controller.server.clients().some((c) => c.node?.id === 'rotating'), {
    description: 'Envoy to reconnect over mutual TLS with the rotated certificates',
    timeoutMs: 30_000,
  });
  // And it keeps getting updates: a new Ingress is served.
  await writeFile(
    path.join(w.manifestsDir, 'more.yaml'),
    toYaml([ingress('more', { rules: [{ host: 'more.example.test', paths: [{ path: '/', service: 'web' }] }] })]),
  );
  const served = await waitFor(
    async () => {
      const res = await httpGet({ port: w.httpPort, hostHeader: 'more.example.test', path: '/' });
      return res.status === 200 ? res : undefined;
    },
    { description: 'the new Ingress served through Envoy', timeoutMs: 20_000 },
  );
  t.is(served.json?.service, 'web');
});

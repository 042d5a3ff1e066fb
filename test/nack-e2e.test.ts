// When the real Envoy rejects config anyway (here: the HTTPS listener's port is taken, which `envoy --mode
// validate` cannot know), the controller reports the error with the objects involved, Envoy keeps serving its
// last good config, and the rejected version is not sent again.
import net from 'node:net';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

async function writeManifest(dir: string, name: string, objects: object[]): Promise<void> {
  const file = path.join(dir, name);
  await writeFile(`${file}.tmp`, toYaml(objects));
  await rename(`${file}.tmp`, file);
}

test('a NACK is reported with its objects, the last good config keeps serving, and the version is not resent', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  // Something else already listens on the port the HTTPS listener will want.
  const blocker = net.createServer();
  const takenPort = await freePort();
  await new Promise<void>((resolve) => blocker.listen(takenPort, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  const web = await useEchoBackend(t, { service: 'web', host: '127.0.0.2' });
  const moved = await useEchoBackend(t, { service: 'moved', host: '127.0.0.3' });
  await writeManifest(tmp.path, 'base.yaml', [ingressClass(), ingress('plain', { rules: [{ host: 'plain.example.test', paths: [{ path: '/', service: 'web' }] }] })]);
  await writeManifest(tmp.path, 'endpoints.yaml', serviceWithEndpoints('web', [{ address: web.address, port: web.port }]));
  const stack = await startStack(t, { manifestsDir: tmp.path, httpsPort: takenPort });
  await stack.envoy.waitForListener('ingress_http');
  t.is((await httpGet({ port: stack.httpPort, hostHeader: 'plain.example.test', path: '/' })).json?.service, 'web');

  // A TLS host appears: the HTTPS listener cannot bind, Envoy NACKs the LDS update.
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['secure.example.test'] });
  await writeManifest(tmp.path, 'tls.yaml', [
    tlsSecret('secure-tls', cert.certPem, cert.keyPem),
    ingress('secure', { rules: [{ host: 'secure.example.test', paths: [{ path: '/', service: 'web' }] }], tls: [{ hosts: ['secure.example.test'], secretName: 'secure-tls' }] }),
  ]);
  await waitFor(() => stack.controller.server.stats.nacks >= 1, { description: 'Envoy NACKs the listener', timeoutMs: 30_000 });
  const logs = stack.logs();
  const report = logs.split('\n').find((l) => l.includes('Envoy rejected config built from these objects'));
  t.truthy(report, 'the NACK is logged with the objects behind it');
  t.regex(report!, /Ingress\/default\/secure/);
  t.regex(report!, /"type":"listener"/);

  // Envoy keeps serving what it had.
  t.is((await httpGet({ port: stack.httpPort, hostHeader: 'plain.example.test', path: '/' })).json?.service, 'web');
  const nacks = stack.controller.server.stats.nacks;

  // No resend loop: an unrelated endpoint change sends exactly one response (EDS), and no new NACK follows.
  const sent = stack.controller.server.stats.responses;
  await writeManifest(tmp.path, 'endpoints.yaml', serviceWithEndpoints('web', [{ address: moved.address, port: moved.port }]));
  await waitFor(async () => (await httpGet({ port: stack.httpPort, hostHeader: 'plain.example.test', path: '/' })).json?.service === 'moved', {
    description: 'the endpoint change applied',
  });
  t.is(stack.controller.server.stats.responses - sent, 1, 'only the EDS update was sent; the rejected listener was not');
  t.is(stack.controller.server.stats.nacks, nacks);
});

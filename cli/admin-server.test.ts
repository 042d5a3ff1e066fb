// The admin server against a real standalone controller and a scripted ADS client (ACK and NACK on demand).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { TypeUrl } from '../proto/type-urls.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from '../test/fixtures/manifests.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { createTestCA } from '../test/harness/test-certs.js';
import { SotwTestClient } from '../xds/testing/ads-test-client.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { request as httpRequest } from 'node:http';
import { startAdminServer } from './admin-server.js';
import { debugHostAllowed } from './debug-host-check.js';
import type { ClientView, IrView, XdsView } from './debug-views.js';
import { createLogger } from './logger.js';
import { ControllerMetrics, metricNames } from './metrics.js';
import { startStandaloneController } from './standalone-controller.js';

const silent = createLogger('silent');

async function setUp(t: import('ava').ExecutionContext) {
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['secure.test'] });
  await writeFile(
    path.join(dir.path, 'all.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('web', [{ address: '10.0.0.1', port: 8000 }]),
      tlsSecret('secure-tls', cert.certPem, cert.keyPem),
      ingress('secure', {
        rules: [{ host: 'secure.test', paths: [{ path: '/', service: 'web' }, { path: '/gone', service: 'missing' }] }],
        tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }],
      }),
    ]),
  );
  const metrics = new ControllerMetrics({ processMetrics: false });
  const controller = await startStandaloneController({
    manifestsDir: dir.path,
    xdsHost: '127.0.0.1',
    xdsPort: 0,
    translate: defaultTranslateOptions,
    envoy: { listenAddress: '127.0.0.1', httpPort: 18080, httpsPort: 18443 },
    log: silent,
    watch: false,
    metrics,
  });
  t.teardown(() => controller.stop());
  const admin = await startAdminServer({ host: '127.0.0.1', port: 0, ready: () => ({ ready: true, reason: 'ok' }), metrics, controlPlane: controller });
  t.teardown(() => admin.close());
  const get = async (p: string) => {
    const res = await fetch(`${admin.url}${p}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
  };
  return { controller, admin, get, keyPem: cert.keyPem };
}

/** The value of one sample of the text exposition, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('metrics count pushes, ACKs and NACKs by type URL; /debug/clients shows the ACKed version and the last NACK', async (t) => {
  const { controller, get } = await setUp(t);
  const client = new SotwTestClient(`127.0.0.1:${controller.xdsPort}`);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node: { id: 'scripted-envoy', cluster: 'test' } });
  const cds = await client.next();
  client.ack(cds);
  client.send({ typeUrl: TypeUrl.listener });
  const lds = await client.next();
  client.send({ typeUrl: TypeUrl.listener, versionInfo: '', responseNonce: lds.nonce, errorDetail: { code: 3, message: 'listener rejected: test' } });
  // One more round trip so both answers above are processed before looking.
  client.send({ typeUrl: TypeUrl.secret, resourceNames: ['default/secure-tls'] });
  await client.next();

  const metrics = await get('/metrics');
  t.is(metrics.status, 200);
  t.regex(metrics.type, /^text\/plain/);
  const m = metrics.body;
  t.is(sample(m, metricNames.connectedEnvoys), 1);
  t.is(sample(m, metricNames.pushes, `type_url="${TypeUrl.cluster}"`), 1);
  t.is(sample(m, metricNames.pushes, `type_url="${TypeUrl.listener}"`), 1);
  t.is(sample(m, metricNames.acks, `type_url="${TypeUrl.cluster}"`), 1);
  t.is(sample(m, metricNames.nacks, `type_url="${TypeUrl.listener}"`), 1);
  t.is(sample(m, metricNames.acks, `type_url="${TypeUrl.listener}"`), undefined);
  t.is(sample(m, metricNames.envoysInSync), 0);
  t.is(sample(m, metricNames.watchedObjects, 'kind="Ingress"'), 1);
  t.is(sample(m, metricNames.watchedObjects, 'kind="Secret"'), 1);
  t.is(sample(m, metricNames.diagnostics, 'reason="ServiceNotFound",severity="Warning"'), 1);
  t.is(sample(m, metricNames.leader), 1);
  t.is(sample(m, `${metricNames.translationDuration}_count`, 'build="full"'), 1);
  t.true((sample(m, metricNames.lastSuccessfulBuild) ?? 0) > 1.7e9);

  const { clients } = JSON.parse((await get('/debug/clients')).body) as { clients: ClientView[] };
  t.is(clients.length, 1);
  const c = clients[0]!;
  t.is(c.nodeId, 'scripted-envoy');
  t.false(c.inSync);
  t.is(c.types[TypeUrl.cluster]?.ackedVersion, cds.versionInfo);
  t.is(c.types[TypeUrl.cluster]?.currentVersion, cds.versionInfo);
  t.is(c.types[TypeUrl.cluster]?.behind, 0);
  t.is(c.types[TypeUrl.listener]?.ackedVersion, null);
  t.is(c.types[TypeUrl.listener]?.lastNack?.error, 'listener rejected: test');
  t.is(c.types[TypeUrl.listener]?.behind, 2);
});

test('/debug/xds and /debug/ir show the served config with private keys redacted', async (t) => {
  const { controller, get, keyPem } = await setUp(t);
  const xds = await get('/debug/xds');
  t.is(xds.status, 200);
  const keyBody = keyPem.split('\n')[1]!;
  t.false(xds.body.includes(keyBody));
  t.false(xds.body.includes('PRIVATE KEY'));
  const view = JSON.parse(xds.body) as XdsView;
  t.true(view.ready);
  t.deepEqual(Object.keys(view.types).sort(), Object.values(TypeUrl).sort());
  const secret = view.types[TypeUrl.secret]!;
  t.is(secret.version, controller.cache.snapshot.versions.secret);
  t.deepEqual(secret.resources.map((r) => r.name), ['default/secure-tls']);
  t.deepEqual((secret.resources[0]!.resource as { tls_certificate: { private_key: unknown } }).tls_certificate.private_key, { inline_string: '[redacted]' });
  t.deepEqual(view.types[TypeUrl.listener]!.resources.map((r) => r.name), ['ingress_http', 'ingress_https']);

  const ir = await get('/debug/ir');
  t.false(ir.body.includes(keyBody));
  const irv = JSON.parse(ir.body) as IrView;
  t.is(irv.generation, controller.reconciler.generation);
  t.deepEqual(irv.ir?.listeners.flatMap((l) => l.tlsServers ?? []).map((s) => s.name), ['https/secure.test']);
  t.deepEqual(irv.endpoints.map((e) => e.endpoints), [[{ address: '10.0.0.1', port: 8000 }]]);
  t.true(irv.diagnostics.some((d) => d.reason === 'ServiceNotFound'));
});

test('/healthz, /readyz (503 until ready), unknown paths and non-GET methods', async (t) => {
  let ready = false;
  const admin = await startAdminServer({ host: '127.0.0.1', port: 0, ready: () => (ready ? { ready: true, reason: 'ok' } : { ready: false, reason: 'informers not synced' }) });
  t.teardown(() => admin.close());
  t.is((await fetch(`${admin.url}/healthz`)).status, 200);
  const notReady = await fetch(`${admin.url}/readyz`);
  t.is(notReady.status, 503);
  t.is(await notReady.text(), 'informers not synced\n');
  ready = true;
  t.is((await fetch(`${admin.url}/readyz`)).status, 200);
  // Without metrics and a control plane, those endpoints do not exist.
  t.is((await fetch(`${admin.url}/metrics`)).status, 404);
  t.is((await fetch(`${admin.url}/debug/xds`)).status, 404);
  t.is((await fetch(`${admin.url}/healthz`, { method: 'POST' })).status, 405);
});

/** GET with this Host header (fetch sets its own). */
function getWithHost(url: string, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('/debug answers only to a loopback or the configured Host (DNS rebinding through kubectl port-forward); the probes to any', async (t) => {
  const { admin } = await setUp(t);
  const port = admin.port;
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'localhost', `[::1]:${port}`]) {
    t.is(await getWithHost(admin.url, '/debug/xds', host), 200, host);
  }
  for (const host of [`rebind.attacker.example:${port}`, 'attacker.example', `localhost.attacker.example:${port}`]) {
    for (const path of ['/debug/xds', '/debug/ir', '/debug/clients', '/debug/ui', '/debug']) t.is(await getWithHost(admin.url, path, host), 421, `${host} ${path}`);
    t.is(await getWithHost(admin.url, '/healthz', host), 200, host);
  }
});

test('debugHostAllowed: loopback names and addresses, the configured address, nothing else', (t) => {
  t.true(debugHostAllowed('LOCALHOST:9101', '127.0.0.1'));
  t.true(debugHostAllowed('127.8.9.10', '127.0.0.1'));
  t.true(debugHostAllowed('10.1.2.3:9101', '10.1.2.3'));
  t.true(debugHostAllowed('[fd00::1]:9101', '[fd00::1]'));
  t.false(debugHostAllowed('10.1.2.3:9101', '0.0.0.0'));
  t.false(debugHostAllowed('127.0.0.1.nip.io', '127.0.0.1'));
  t.false(debugHostAllowed(undefined, '127.0.0.1'));
});

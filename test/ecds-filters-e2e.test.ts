// The HTTP filters' Lua scripts over ECDS, through a real Envoy, for both ADS variants: Envoy asks for them by the
// names the connection managers give, the listeners warm with them (on start, and a new filter chain later reuses
// the one subscription), the features that use them answer as before, every resource is ACKed (so status can be
// published), and a controller restart makes Envoy reconnect without reloading a configuration or touching a
// listener. The configurations show in /config_dump's EcdsConfigDump (docs/operations/debugging.md).
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../cli/logger.js';
import { startStandaloneController, type StandaloneController } from '../cli/standalone-controller.js';
import { buildConfig, fullUpdate } from '../controller/pipeline/build-config.js';
import { clusterStateFromYaml } from '../controller/translate/shared/cluster-state-yaml.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { buildBootstrap } from '../envoy/bootstrap.js';
import { routeConfiguredFilterConfigs } from '../envoy/http-filters.js';
import { AdsServer } from '../xds/ads-server.js';
import { clientSync } from '../xds/client-sync.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import { useEchoBackend, useEnvoy } from './harness/ava-fixtures.js';
import { findSection, type EnvoyProcess } from './harness/envoy-process.js';
import { httpGet, httpsGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type TestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { freePort } from './fixtures/standalone-stack.js';

const filterNames = routeConfiguredFilterConfigs.map((r) => r.name).sort();
const reloadStats = '^extension_config_discovery\\.http_filter\\..*\\.(config_reload|config_fail)$';
const listenerStats = '^listener_manager\\.(listener_modified|listener_in_place_updated|listener_create_success)$';

interface World {
  dir: string;
  ca: TestCA;
  envoy: EnvoyProcess;
  controller: StandaloneController;
  httpsPort: number;
  restartController(): Promise<StandaloneController>;
}

async function writeManifest(dir: string, name: string, objects: object[]): Promise<void> {
  await writeFile(path.join(dir, `${name}.tmp`), toYaml(objects));
  await rename(path.join(dir, `${name}.tmp`), path.join(dir, name));
}

/** A TLS host whose route uses two of the scripts: an affinity cookie and the Set-Cookie path rewrite. */
async function hostWithScripts(w: { dir: string; ca: TestCA }, name: string): Promise<void> {
  const host = `${name}.example.test`;
  const cert = await w.ca.issue({ dnsNames: [host] });
  await writeManifest(w.dir, `${name}.yaml`, [
    tlsSecret(`${name}-tls`, cert.certPem, cert.keyPem),
    ingress(name, {
      annotations: { 'nginx.ingress.kubernetes.io/affinity': 'cookie', 'nginx.ingress.kubernetes.io/proxy-cookie-path': '/one/ /' },
      rules: [{ host, paths: [{ path: '/', service: 'web' }] }],
      tls: [{ hosts: [host], secretName: `${name}-tls` }],
    }),
  ]);
}

async function setUp(t: ExecutionContext, xdsProtocol: 'sotw' | 'delta'): Promise<World> {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const ca = await createTestCA();
  const web = await useEchoBackend(t, { service: 'web' });
  await writeManifest(tmp.path, 'services.yaml', [ingressClass(), ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }])]);
  await hostWithScripts({ dir: tmp.path, ca }, 'app');
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const start = (xdsPort: number) =>
    startStandaloneController({
      manifestsDir: tmp.path,
      xdsHost: '127.0.0.1',
      xdsPort,
      translate: { ...defaultTranslateOptions, nginxAnnotations: true, httpsRedirectPort: httpsPort },
      envoy: { listenAddress: '127.0.0.1', httpPort, httpsPort },
      log: createLogger('silent'),
    });
  const controller = await start(0);
  const envoy = await useEnvoy(t, {
    bootstrap: buildBootstrap({
      nodeId: `ecds-${xdsProtocol}`,
      nodeCluster: 'test',
      xdsHost: '127.0.0.1',
      xdsPort: controller.xdsPort,
      adminAddress: '127.0.0.1',
      adminPort: 0,
      xdsProtocol,
    }),
    drainTimeS: 2,
  });
  const w: World = {
    dir: tmp.path,
    ca,
    envoy,
    controller,
    httpsPort,
    async restartController() {
      await w.controller.stop();
      w.controller = await start(w.controller.xdsPort);
      return w.controller;
    },
  };
  t.teardown(() => w.controller.stop());
  await envoy.waitForLive();
  return w;
}

/** An HTTPS request to `name`.example.test whose backend sets a cookie under /one/. */
function get(w: World, name: string) {
  const host = `${name}.example.test`;
  return httpsGet({
    port: w.httpsPort,
    hostHeader: host,
    servername: host,
    ca: w.ca.certPem,
    path: '/',
    headers: { 'x-echo-response-header': 'Set-Cookie: session=abc; Path=/one/two' },
  });
}

/** Both scripts ran on the answer: the affinity cookie was set and the backend's cookie path rewritten. */
async function scriptsAnswer(w: World, name: string): Promise<boolean> {
  const res = await get(w, name).catch(() => undefined);
  const cookies = ([] as string[]).concat(res?.headers['set-cookie'] ?? []);
  return res?.status === 200 && cookies.some((c) => c.startsWith('INGRESSCOOKIE=')) && cookies.includes('session=abc; Path=/two');
}

/** The controller's one client has ACKed every resource of the snapshot (what status publication waits for). */
function inSync(controller: StandaloneController): boolean {
  const clients = controller.server.clients();
  return clients.length === 1 && clientSync(clients[0]!.acked, controller.cache.snapshot).inSync;
}

for (const xdsProtocol of ['sotw', 'delta'] as const) {
  test(`${xdsProtocol}: the scripts come over ECDS once for every filter chain, the features using them answer, and a controller restart reloads nothing`, async (t) => {
    t.timeout(120_000);
    const w = await setUp(t, xdsProtocol);
    const { envoy } = w;
    await envoy.waitForListener('ingress_https');
    await waitFor(() => scriptsAnswer(w, 'app'), { description: 'app.example.test answered through both scripts', timeoutMs: 30_000 });

    // Served once, named as the filters: Envoy has exactly these, each loaded once.
    const ecds = findSection(await envoy.configDump(), 'EcdsConfigDump');
    const served = ((ecds?.['ecds_filters'] ?? []) as { ecds_filter: { name: string; typed_config: { '@type': string } } }[]).map((f) => f.ecds_filter);
    t.deepEqual(served.map((f) => f.name).sort(), filterNames);
    t.true(served.every((f) => f.typed_config['@type'] === 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua'));
    const reloads = await envoy.stats(reloadStats);
    for (const name of filterNames) {
      t.is(reloads[`extension_config_discovery.http_filter.${name}.config_reload`], 1, `${name} loaded once`);
      t.is(reloads[`extension_config_discovery.http_filter.${name}.config_fail`] ?? 0, 0);
    }
    await waitFor(() => inSync(w.controller), { description: 'every resource, ECDS included, ACKed', timeoutMs: 20_000 });
    t.is(w.controller.server.clients()[0]!.acked.extensionConfig.size, filterNames.length);

    // A new TLS host: a new filter chain, a listener update. It warms at once on the subscriptions Envoy has.
    await hostWithScripts(w, 'late');
    await waitFor(() => scriptsAnswer(w, 'late'), { description: 'late.example.test answered through both scripts', timeoutMs: 30_000 });
    t.true(await scriptsAnswer(w, 'app'));
    t.deepEqual((await envoy.warmingState()).warmingListeners, []);
    t.deepEqual(await envoy.stats(reloadStats), reloads, 'no configuration loaded again');

    // A controller restart (a rollout): Envoy reconnects and gets what it has; nothing is reloaded or rebuilt.
    const listenersBefore = await envoy.stats(listenerStats);
    const controller = await w.restartController();
    await waitFor(() => inSync(controller), { description: 'Envoy reconnected and in sync with the new controller', timeoutMs: 30_000 });
    t.true(await scriptsAnswer(w, 'app'));
    t.true(await scriptsAnswer(w, 'late'));
    t.deepEqual(await envoy.stats(reloadStats), reloads, 'no configuration loaded again after the restart');
    t.deepEqual(await envoy.stats(listenerStats), listenersBefore, 'no listener changed after the restart');
  });
}

// What the controller never does, to show what Envoy then does: a listener names a configuration that is not
// served. It waits for it (warming) until initial_fetch_timeout, then serves; the routes turning that filter on
// answer 500 (they fail closed, never run without it), the others are served. Over delta xDS this needs the server
// to leave the missing name unanswered: told it is removed, Envoy kept the listener warming for good
// (xds/delta-session.ts reportsMissing).
for (const xdsProtocol of ['sotw', 'delta'] as const) {
  test(`${xdsProtocol}: a filter configuration never served: the listener warms until the fetch times out, then only the routes using that filter fail, with 500`, async (t) => {
    t.timeout(120_000);
    const web = await useEchoBackend(t, { service: 'web' });
    const objects = [
      ingressClass(),
      ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }]),
      ingress('cookies', { annotations: { 'nginx.ingress.kubernetes.io/proxy-cookie-path': '/one/ /' }, rules: [{ host: 'cookies.example.test', paths: [{ path: '/', service: 'web' }] }] }),
      ingress('plain', { rules: [{ host: 'plain.example.test', paths: [{ path: '/', service: 'web' }] }] }),
    ];
    const httpPort = await freePort();
    const envoyOptions = { listenAddress: '127.0.0.1', httpPort, httpsPort: await freePort() };
    const { resources } = buildConfig(clusterStateFromYaml(toYaml(objects)).state, { translate: { ...defaultTranslateOptions, nginxAnnotations: true }, envoy: envoyOptions });
    const cache = new SnapshotCache();
    cache.update({ ...fullUpdate(resources), extensionConfig: resources.extensionConfigs.filter((r) => r.name !== 'proxy-cookie-rewrite') });
    const server = new AdsServer(cache);
    const xdsPort = await server.listen('127.0.0.1', 0);
    t.teardown(() => server.forceClose());
    const envoy = await useEnvoy(t, {
      bootstrap: buildBootstrap({ nodeId: 'ecds-missing', nodeCluster: 'test', xdsHost: '127.0.0.1', xdsPort, adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol }),
      drainTimeS: 2,
    });
    const started = Date.now();
    await envoy.waitUntil(async () => (await envoy.warmingState()).warmingListeners.includes('ingress_http'), 10_000, 'the listener warming');
    await envoy.waitForListener('ingress_http', 40_000);
    t.true(Date.now() - started > 10_000, 'it waited for the configuration (initial_fetch_timeout, 15 s)');
    const get = (host: string) => httpGet({ port: httpPort, hostHeader: host, path: '/', headers: { 'x-echo-response-header': 'Set-Cookie: s=1; Path=/one/two' } });
    t.is((await get('plain.example.test')).status, 200);
    t.is((await get('cookies.example.test')).status, 500);
    const stats = await envoy.stats('^extension_config_discovery\\.http_filter\\.proxy-cookie-rewrite\\.');
    t.is(stats['extension_config_discovery.http_filter.proxy-cookie-rewrite.config_reload'] ?? 0, 0);
  });
}

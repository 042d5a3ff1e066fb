// Observability and debugging against a real Envoy: explain's answers agree with what Envoy does, the admin
// endpoints describe the connected Envoy, /debug/ui renders in headless Chromium, no key material reaches a log,
// and Envoy writes a JSON access log line per request.
import { access, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { chromium } from 'playwright-core';
import { startAdminServer, type AdminServer } from '../cli/admin-server.js';
import { loadExplainInput } from '../cli/explain-command.js';
import type { ClientView } from '../cli/debug-views.js';
import { createLogger } from '../cli/logger.js';
import { ControllerMetrics, metricNames } from '../cli/metrics.js';
import { startStandaloneController, type StandaloneController } from '../cli/standalone-controller.js';
import { explain, type ExplainRequest } from '../controller/explain.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { buildBootstrap } from '../envoy/bootstrap.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { freePort } from './fixtures/standalone-stack.js';
import { startEchoBackend, type EchoBackend } from './harness/echo-backend.js';
import { startEnvoy, type EnvoyProcess } from './harness/envoy-process.js';
import { httpGet, httpsGet } from './harness/http-client.js';
import { LineRingBuffer } from './harness/line-ring-buffer.js';
import { createTempDir, type TempDir } from './harness/temp-dir.js';
import { createTestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';

interface World {
  dir: TempDir;
  backends: EchoBackend[];
  controller: StandaloneController;
  admin: AdminServer;
  envoy: EnvoyProcess;
  httpPort: number;
  httpsPort: number;
  caPem: string;
  keyPem: string;
  controllerLog: LineRingBuffer;
}

let world: World | undefined;
const w = (): World => world!;

test.before(async () => {
  const dir = await createTempDir();
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['secure.example.test'] });
  const backends: EchoBackend[] = [];
  const backend = async (service: string): Promise<EchoBackend> => {
    const b = await startEchoBackend({ service });
    backends.push(b);
    return b;
  };
  const [web, api, wild, secure] = [await backend('web'), await backend('api'), await backend('wild'), await backend('secure')];
  const at = (b: EchoBackend) => [{ address: b.address, port: b.port }];
  const notReadyApi = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'api-starting', namespace: 'default', labels: { 'kubernetes.io/service-name': 'api' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: api!.port, protocol: 'TCP' }],
    endpoints: [{ addresses: ['127.0.0.9'], conditions: { ready: false } }],
  };
  await writeFile(
    path.join(dir.path, 'all.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('web', at(web!)),
      ...serviceWithEndpoints('api', at(api!)),
      notReadyApi,
      ...serviceWithEndpoints('wild', at(wild!)),
      ...serviceWithEndpoints('secure', at(secure!)),
      tlsSecret('secure-tls', cert.certPem, cert.keyPem),
      ingress('shop', {
        creationTimestamp: '2026-01-01T00:00:00Z',
        rules: [
          {
            host: 'shop.example.test',
            paths: [
              { path: '/', service: 'web' },
              { path: '/api', service: 'api' },
              { path: '/exact', pathType: 'Exact', service: 'api' },
              { path: '/broken', service: 'missing' },
            ],
          },
          { host: '*.wild.test', paths: [{ path: '/', service: 'wild' }] },
        ],
      }),
      ingress('secure', {
        rules: [{ host: 'secure.example.test', paths: [{ path: '/', service: 'secure' }] }],
        tls: [{ hosts: ['secure.example.test'], secretName: 'secure-tls' }],
      }),
    ]),
  );
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const controllerLog = new LineRingBuffer(20_000);
  // Trace level: the most the controller ever logs, scanned for key material below.
  const log = createLogger('trace', { write: (s: string) => (controllerLog.append('log', s), true) } as unknown as NodeJS.WritableStream);
  const metrics = new ControllerMetrics();
  const controller = await startStandaloneController({
    manifestsDir: dir.path,
    xdsHost: '127.0.0.1',
    xdsPort: 0,
    translate: { ...defaultTranslateOptions, httpsRedirectPort: httpsPort },
    envoy: { listenAddress: '127.0.0.1', httpPort, httpsPort },
    log,
    metrics,
  });
  const admin = await startAdminServer({ host: '127.0.0.1', port: 0, ready: () => ({ ready: controller.cache.ready, reason: 'ok' }), metrics, controlPlane: controller });
  const envoy = await startEnvoy({
    bootstrap: buildBootstrap({
      nodeId: `observability-${process.pid}`,
      nodeCluster: 'test',
      xdsHost: '127.0.0.1',
      xdsPort: controller.xdsPort,
      adminAddress: '127.0.0.1',
      adminPort: 0,
      xdsProtocol: 'delta',
    }),
    drainTimeS: 1,
    logLevel: 'debug',
    maxLogLines: 20_000,
  });
  world = { dir, backends, controller, admin, envoy, httpPort, httpsPort, caPem: ca.certPem, keyPem: cert.keyPem, controllerLog };
  await envoy.waitForLive();
  await envoy.waitForListener('ingress_http');
  await envoy.waitForListener('ingress_https');
});

test.after.always(async () => {
  if (!world) return;
  await world.envoy.stop();
  await world.admin.close();
  await world.controller.stop();
  await Promise.all(world.backends.map((b) => b.close()));
  await world.dir.remove();
});

const cases: (ExplainRequest & { why: string })[] = [
  { host: 'shop.example.test', path: '/', why: 'root prefix' },
  { host: 'shop.example.test', path: '/api/v1?x=1', why: 'longest prefix wins' },
  { host: 'shop.example.test', path: '/apix', why: 'prefixes match whole segments' },
  { host: 'shop.example.test', path: '/exact', why: 'Exact' },
  { host: 'shop.example.test', path: '/exact/more', why: 'Exact is not a prefix' },
  { host: 'shop.example.test', path: '/broken/x', why: 'unresolvable backend' },
  { host: 'shop.example.test', path: '/x/../api', why: 'dot segments' },
  { host: 'shop.example.test', path: '//api', why: 'merged slashes' },
  { host: 'SHOP.example.test:8080', path: '/api', why: 'host case and port' },
  { host: 'a.wild.test', path: '/z', why: 'wildcard, one label' },
  { host: 'a.b.wild.test', path: '/z', why: 'wildcard, two labels' },
  { host: 'wild.test', path: '/', why: 'wildcard does not cover its parent' },
  { host: 'unknown.test', path: '/', why: 'no host, no default backend' },
  { host: 'secure.example.test', path: '/p?q', why: 'TLS host over plain HTTP redirects' },
  { host: 'secure.example.test', path: '/p', scheme: 'https', why: 'TLS host' },
];

test.serial('explain agrees with the real Envoy on every case (IR fetched from /debug/ir)', async (t) => {
  const input = await loadExplainInput({ controller: w().admin.url }, { translate: defaultTranslateOptions, envoy: { listenAddress: '', httpPort: 0, httpsPort: 0 } });
  for (const c of cases) {
    const e = explain(input, c);
    const res =
      c.scheme === 'https'
        ? await httpsGet({ port: w().httpsPort, hostHeader: c.host, servername: c.host, path: c.path, ca: w().caPem })
        : await httpGet({ port: w().httpPort, hostHeader: c.host, path: c.path });
    const label = `${c.why}: ${c.scheme ?? 'http'}://${c.host}${c.path} -> ${e.verdict}`;
    if (e.response.kind === 'forward' && e.status === null) {
      t.is(res.status, 200, label);
      t.is(res.json?.service, e.response.service?.name, label);
    } else {
      t.is(res.status, e.status ?? -1, label);
    }
    if (e.response.kind === 'redirect') t.is(res.headers.location, e.response.location, label);
  }
});

test.serial('/debug/clients shows the Envoy in sync with its node id; /metrics counts it', async (t) => {
  const clients = await waitFor(
    async () => {
      const body = (await (await fetch(`${w().admin.url}/debug/clients`)).json()) as { clients: ClientView[] };
      return body.clients.length === 1 && body.clients[0]!.inSync ? body.clients : undefined;
    },
    { description: 'the Envoy in sync', timeoutMs: 30_000 },
  );
  const c = clients[0]!;
  t.is(c.nodeId, `observability-${process.pid}`);
  t.is(c.protocol, 'delta');
  for (const [typeUrl, type] of Object.entries(c.types)) {
    t.is(type.behind, 0, typeUrl);
    t.is(type.lastNack, null, typeUrl);
  }
  const metrics = await (await fetch(`${w().admin.url}/metrics`)).text();
  t.regex(metrics, new RegExp(`^${metricNames.connectedEnvoys} 1$`, 'm'));
  t.regex(metrics, new RegExp(`^${metricNames.envoysInSync} 1$`, 'm'));
  t.regex(metrics, new RegExp(`^${metricNames.acks}\\{type_url="type.googleapis.com/envoy.config.route.v3.RouteConfiguration"\\} [1-9]`, 'm'));
  t.regex(metrics, /^process_resident_memory_bytes \d+/m);
});

test.serial('/debug/ui renders routes, endpoints with readiness, Envoys and diagnostics in headless Chromium', async (t) => {
  const executablePath = process.env['CHROMIUM_BIN'] ?? '/usr/bin/chromium';
  try {
    await access(executablePath);
  } catch {
    t.fail(`no Chromium at ${executablePath}: run scripts/ensure-chromium.sh (npm test does)`);
    return;
  }
  // The page shows the Envoy as in sync once it is; wait for that first so the screenshot is meaningful.
  await waitFor(async () => ((await (await fetch(`${w().admin.url}/metrics`)).text()).includes(`${metricNames.envoysInSync} 1`) ? true : undefined), {
    description: 'the Envoy in sync',
    timeoutMs: 30_000,
  });
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const response = await page.goto(`${w().admin.url}/debug/ui`);
  t.is(response?.status(), 200);
  t.is(await page.title(), 'envoy-ingress status');
  const routes = page.locator('#routes + table');
  const apiRow = routes.locator('tr', { hasText: 'Prefix /api' }).first();
  t.true(await apiRow.isVisible());
  t.regex(await apiRow.innerText(), /shop\.example\.test[\s\S]*Service default\/api:80[\s\S]*ready[\s\S]*127\.0\.0\.9:\d+\s+not ready[\s\S]*default\/shop/);
  t.regex(await routes.locator('tr', { hasText: 'Prefix /broken' }).first().innerText(), /503 from Envoy/);
  t.regex(await routes.locator('tr', { hasText: 'secure.example.test' }).first().innerText(), /301 redirect to https/);
  const envoys = page.locator('#envoys + table');
  t.regex(await envoys.innerText(), new RegExp(`observability-${process.pid}\\s+delta[\\s\\S]*in sync`));
  t.regex(await page.locator('#diagnostics + table').innerText(), /ServiceNotFound\s+Ingress\/default\/shop\s+rule 0 path 3: service default\/missing not found/);
  const shots = await createTempDir('envoy-ingress-ui-');
  const file = shots.file('debug-ui.png');
  await page.screenshot({ path: file, fullPage: true });
  await access(file);
  t.log(`screenshot: ${file}`);
});

test.serial('no private key material reaches the controller log at trace level or the admin endpoints', async (t) => {
  // Every full-length base64 line of the PEM body (the short last line could occur by chance).
  const keyLines = w().keyPem.split('\n').filter((l) => l.length >= 40 && !l.startsWith('-----'));
  t.true(keyLines.length >= 2);
  // Something was logged at trace level (xDS requests), so the scan covers a real log.
  const logText = w().controllerLog.toString();
  t.regex(logText, /"msg":"xDS request"/);
  // Envoy runs at debug level here; what it prints about the config it received must not carry the key either.
  const sources: [string, string][] = [['controller log', logText], ['Envoy output', w().envoy.logs()]];
  for (const p of ['/debug/xds', '/debug/ir', '/debug/clients', '/debug/ui', '/metrics']) {
    sources.push([p, await (await fetch(`${w().admin.url}${p}`)).text()]);
  }
  for (const [name, text] of sources) {
    t.false(text.includes('PRIVATE KEY'), name);
    for (const line of keyLines) t.false(text.includes(line), `${name} contains a line of the private key`);
  }
});

test.serial('Envoy writes a JSON access log line to stdout for a request (on by default)', async (t) => {
  const marker = `/api/access-log-check-${process.pid}`;
  const res = await httpGet({ port: w().httpPort, hostHeader: 'shop.example.test', path: marker, headers: { 'user-agent': 'observability-test' } });
  t.is(res.status, 200);
  const line = await waitFor(
    () =>
      w()
        .envoy.logs()
        .split('\n')
        .map((l) => l.slice(l.indexOf('{')))
        .find((l) => l.includes(marker)),
    { description: 'an access log line for the request', timeoutMs: 15_000 },
  );
  const entry = JSON.parse(line) as Record<string, unknown>;
  t.like(entry, {
    method: 'GET',
    authority: 'shop.example.test',
    path: marker,
    status: 200,
    route_name: 'ingress/default/shop/rule/0/path/1',
    upstream_cluster: 'default/api/80',
    user_agent: 'observability-test',
  });
  t.is(typeof entry['duration_ms'], 'number');
});

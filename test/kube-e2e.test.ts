// Kubernetes mode end to end: a real kube-apiserver + etcd, the controller (the real CLI) running as the
// ServiceAccount bound only to deploy/'s ClusterRole, a real Envoy, and echo backends on a test host (a network
// namespace: the API server refuses loopback addresses in EndpointSlices).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { stringify } from 'yaml';
import type { EnvoyProcess } from './harness/envoy-process.js';
import { httpGet, httpsGet } from './harness/http-client.js';
import { createTestCA } from './harness/test-certs.js';
import type { RemoteEcho } from './harness/netns-host.js';
import { startRequestLoop } from './harness/request-loop.js';
import { findRepoRoot } from './harness/repo-root.js';
import { waitFor } from './harness/wait.js';
import { startControllerProcess, type ControllerProcess } from './fixtures/controller-process.js';
import {
  backendServiceObjects,
  kubeControllerArgs,
  showStackLogsOnFailure,
  startKubeE2eStack,
  startKubeEnvoy,
  stopKubeE2eStack,
  type KubeE2eStack,
} from './fixtures/kube-e2e-stack.js';
import { freePort } from './fixtures/standalone-stack.js';

interface World extends KubeE2eStack {
  backends: Record<'web' | 'api' | 'other', RemoteEcho>;
  ports: { xds: number; xdsB: number; http: number; https: number; httpB: number; httpsB: number };
  controller?: ControllerProcess;
  envoy?: EnvoyProcess;
}

let world: World | undefined;

function w(): World {
  if (!world) throw new Error('cluster not started');
  return world;
}

const ns = 'shop';
const publishedIp = '192.0.2.10';
const publishedIpB = '192.0.2.11';

function serviceYaml(name: string, backend: RemoteEcho): string {
  return backendServiceObjects(ns, name, backend).map((o) => stringify(o)).join('---\n');
}

function ingressYaml(name: string, host: string, paths: { path: string; service: string }[]): string {
  return stringify({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: ns },
    spec: {
      ingressClassName: 'envoy-ingress',
      rules: [{ host, http: { paths: paths.map((p) => ({ path: p.path, pathType: 'Prefix', backend: { service: { name: p.service, port: { name: 'http' } } } })) } }],
    },
  });
}

async function apply(yaml: string): Promise<void> {
  await w().cluster.kubectlOk(['apply', '-f', '-'], { input: yaml });
}

function startController(identity: string, xdsPort: number, ip: string): ControllerProcess {
  return startControllerProcess([
    ...kubeControllerArgs({ kubeconfig: w().saKubeconfig, xdsPort, publishAddress: ip, identity, httpPort: w().ports.http, httpsPort: w().ports.https }),
    '--log-level=debug',
  ]);
}

async function serviceAt(host: string, p: string, port = w().ports.http): Promise<string> {
  try {
    const res = await httpGet({ port, hostHeader: host, path: p, timeoutMs: 3000 });
    return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
  } catch (err: unknown) {
    return `error ${String(err)}`;
  }
}

async function addressOf(name: string): Promise<string> {
  return (await w().cluster.kubectlOk(['get', 'ingress', name, '-n', ns, '-o', 'jsonpath={.status.loadBalancer.ingress[*].ip}'])).trim();
}

test.before(async (t) => {
  // The install manifests that set up identity and permissions, exactly as shipped.
  const stack = await startKubeE2eStack(t, 'starting the cluster and the controller');
  const backends = {
    web: await stack.host.startEcho({ service: 'web' }),
    api: await stack.host.startEcho({ service: 'api' }),
    other: await stack.host.startEcho({ service: 'other' }),
  };
  const ports = { xds: await freePort(), xdsB: await freePort(), http: await freePort(), https: await freePort(), httpB: await freePort(), httpsB: await freePort() };
  world = { ...stack, backends, ports };
  await stack.cluster.kubectlOk(['create', 'namespace', ns]);
  await apply([serviceYaml('web', backends.web), serviceYaml('api', backends.api), serviceYaml('other', backends.other)].join('---\n'));
  world.controller = startController('controller-a', ports.xds, publishedIp);
  await world.controller.waitForLog('all informers synced');
  world.envoy = await startKubeEnvoy(ports.xds, 'envoy-a');
  await world.envoy.waitForLive(60_000);
});

test.after.always(async () => {
  if (world) await stopKubeE2eStack(world);
});

test.serial('kubectl apply routes traffic, publishes the address, and edits/deletes change routing', async (t) => {
  showStackLogsOnFailure(t, () => world);
  await apply(ingressYaml('shop', 'shop.example.test', [{ path: '/', service: 'web' }, { path: '/api', service: 'api' }]));
  await waitFor(async () => (await serviceAt('shop.example.test', '/api/x')) === 'api', { description: '/api routed', timeoutMs: 30_000 });
  t.is(await serviceAt('shop.example.test', '/'), 'web');
  // The address appears once Envoy has ACKed the routes: `kubectl get ingress` shows it.
  await waitFor(async () => (await addressOf('shop')) === publishedIp, { description: 'status address published', timeoutMs: 30_000 });
  const table = await w().cluster.kubectlOk(['get', 'ingress', 'shop', '-n', ns]);
  t.regex(table, new RegExp(`shop\\s+envoy-ingress\\s+shop\\.example\\.test\\s+${publishedIp.replace(/\./g, '\\.')}`));
  // Edit: /api moves to another Service.
  await apply(ingressYaml('shop', 'shop.example.test', [{ path: '/', service: 'web' }, { path: '/api', service: 'other' }]));
  await waitFor(async () => (await serviceAt('shop.example.test', '/api/x')) === 'other', { description: '/api moved', timeoutMs: 30_000 });
  // Delete: the host is gone.
  await w().cluster.kubectlOk(['delete', 'ingress', 'shop', '-n', ns]);
  await waitFor(async () => (await serviceAt('shop.example.test', '/')) === 'status 404', { description: 'host removed', timeoutMs: 30_000 });
});

test.serial('the legacy kubernetes.io/ingress.class annotation naming an IngressClass of ours is served and published; naming another controller\'s is not', async (t) => {
  showStackLogsOnFailure(t, () => world);
  const legacyIngress = (name: string, host: string, className: string): string =>
    stringify({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name, namespace: ns, annotations: { 'kubernetes.io/ingress.class': className } },
      spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }] },
    });
  // A class `nginx` of our controller, as created to take over Ingresses migrated from ingress-nginx, which
  // still carry `kubernetes.io/ingress.class: nginx`; and a class that stays with another controller.
  await apply(
    [
      stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec: { controller: 'envoy-ingress.io/ingress-controller' } }),
      stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'legacy-nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } }),
      legacyIngress('migrated', 'migrated.example.test', 'nginx'),
      legacyIngress('foreign', 'foreign.example.test', 'legacy-nginx'),
    ].join('---\n'),
  );
  await waitFor(async () => (await serviceAt('migrated.example.test', '/')) === 'web', { description: 'migrated Ingress routed', timeoutMs: 30_000 });
  await waitFor(async () => (await addressOf('migrated')) === publishedIp, { description: 'migrated Ingress status address published', timeoutMs: 30_000 });
  t.is(await serviceAt('foreign.example.test', '/'), 'status 404', 'another controller\'s class is not served');
  t.is(await addressOf('foreign'), '', 'no status written on another controller\'s Ingress');
  await w().cluster.kubectlOk(['delete', 'ingress', 'migrated', 'foreign', '-n', ns]);
  await w().cluster.kubectlOk(['delete', 'ingressclass', 'nginx', 'legacy-nginx']);
});

test.serial('a TLS Secret applied with kubectl serves HTTPS by SNI, verified against the test CA', async (t) => {
  showStackLogsOnFailure(t, () => world);
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['tls.example.test'] });
  await apply(
    stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls-cert', namespace: ns },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': Buffer.from(cert.certPem).toString('base64'), 'tls.key': Buffer.from(cert.keyPem).toString('base64') },
    }),
  );
  await apply(
    stringify({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'tls', namespace: ns },
      spec: {
        ingressClassName: 'envoy-ingress',
        tls: [{ hosts: ['tls.example.test'], secretName: 'tls-cert' }],
        rules: [{ host: 'tls.example.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'api', port: { name: 'http' } } } }] } }],
      },
    }),
  );
  const secure = await waitFor(
    async () => {
      try {
        const res = await httpsGet({ port: w().ports.https, hostHeader: 'tls.example.test', servername: 'tls.example.test', path: '/', ca: ca.certPem, timeoutMs: 3000 });
        return res.status === 200 ? res : undefined;
      } catch {
        return undefined;
      }
    },
    { description: 'HTTPS served with the Secret certificate', timeoutMs: 30_000 },
  );
  t.is(secure.json?.service, 'api');
  t.is(secure.peerCertificate?.serialNumber, cert.serialNumber);
  t.is((await httpGet({ port: w().ports.http, hostHeader: 'tls.example.test', path: '/' })).status, 301);
});

test.serial('a broken Ingress gets an Event visible in kubectl describe, and does not disturb others', async (t) => {
  showStackLogsOnFailure(t, () => world);
  await apply(ingressYaml('good', 'good.example.test', [{ path: '/', service: 'web' }]));
  await apply(ingressYaml('broken', 'broken.example.test', [{ path: '/', service: 'does-not-exist' }]));
  await waitFor(async () => (await serviceAt('good.example.test', '/')) === 'web', { description: 'good routed', timeoutMs: 30_000 });
  const described = await waitFor(
    async () => {
      const out = await w().cluster.kubectlOk(['describe', 'ingress', 'broken', '-n', ns]);
      return /ServiceNotFound/.test(out) ? out : undefined;
    },
    { description: 'ServiceNotFound Event on the broken Ingress', timeoutMs: 30_000 },
  );
  t.regex(described, /Warning\s+ServiceNotFound/);
  t.regex(described, /does-not-exist/);
  t.is(await serviceAt('broken.example.test', '/'), 'status 503');
});

test.serial('kube-apiserver down for 30 s: Envoy keeps serving with zero failures; changes after it returns are applied', async (t) => {
  t.timeout(180_000);
  showStackLogsOnFailure(t, () => world);
  await apply(ingressYaml('steady', 'steady.example.test', [{ path: '/', service: 'web' }]));
  await waitFor(async () => (await serviceAt('steady.example.test', '/')) === 'web', { description: 'steady routed', timeoutMs: 30_000 });
  const loop = startRequestLoop(() => httpGet({ port: w().ports.http, hostHeader: 'steady.example.test', path: '/' }), {
    concurrency: 2,
    intervalMs: 20,
    maxDurationMs: 120_000,
    maxRequests: 1_000_000,
    isSuccess: (s) => s === 200,
  });
  await waitFor(() => loop.snapshot().total > 20, { description: 'requests flowing' });
  await w().cluster.stopApiServer();
  const downSince = Date.now();
  await waitFor(() => Date.now() - downSince >= 30_000, { description: '30 s with the API server down', timeoutMs: 40_000, intervalMs: 500 });
  await w().cluster.startApiServer();
  // A change made after the API server is back reaches Envoy once the controller's watches reconnect.
  await apply(ingressYaml('steady', 'steady.example.test', [{ path: '/', service: 'web' }, { path: '/new', service: 'api' }]));
  await waitFor(async () => (await serviceAt('steady.example.test', '/new')) === 'api', { description: 'change after reconnect applied', timeoutMs: 60_000 });
  const result = await loop.stop();
  t.deepEqual(result.failures, [], JSON.stringify(result.byStatus));
  t.true(result.total > 100, `only ${result.total} requests`);
  t.is(w().controller!.entries().filter((e) => e['level'] === 60).length, 0, 'no fatal log lines');
  // The API server's watch cache restarts at the current revision, older than the informers' resourceVersions
  // (leases and Events moved it on): their watches get 410 Gone and they relist instead of crashing.
  const relists = w().controller!.entries().filter((e) => e['msg'] === 'relisted');
  t.log(`relists after the API server restart: ${relists.map((e) => String(e['kind'])).join(', ') || 'none'}`);
  t.true(relists.length > 0, 'at least one informer relisted after its resourceVersion expired');
  t.notThrows(() => process.kill(w().controller!.pid, 0), 'the controller process is still running');
});

test.serial('controller killed and restarted under load: zero failed requests; changes made meanwhile are applied', async (t) => {
  t.timeout(180_000);
  showStackLogsOnFailure(t, () => world);
  await apply(ingressYaml('restart', 'restart.example.test', [{ path: '/', service: 'web' }]));
  await waitFor(async () => (await serviceAt('restart.example.test', '/')) === 'web', { description: 'routed', timeoutMs: 30_000 });
  const loop = startRequestLoop(() => httpGet({ port: w().ports.http, hostHeader: 'restart.example.test', path: '/' }), {
    concurrency: 2,
    intervalMs: 10,
    maxDurationMs: 120_000,
    maxRequests: 1_000_000,
    isSuccess: (s) => s === 200,
  });
  await waitFor(() => loop.snapshot().total > 20, { description: 'requests flowing' });
  w().controller!.kill('SIGKILL');
  await w().controller!.exited;
  // While no controller runs, the Ingress changes.
  await apply(ingressYaml('restart', 'restart.example.test', [{ path: '/', service: 'web' }, { path: '/while-down', service: 'api' }]));
  const before = loop.snapshot().total;
  await waitFor(() => loop.snapshot().total > before + 50, { description: 'Envoy serving without a controller' });
  world!.controller = startController('controller-a', w().ports.xds, publishedIp);
  await waitFor(async () => (await serviceAt('restart.example.test', '/while-down')) === 'api', {
    description: 'change made while the controller was down applied',
    timeoutMs: 60_000,
  });
  const after = loop.snapshot().total;
  await waitFor(() => loop.snapshot().total > after + 50, { description: 'more requests after the restart' });
  const result = await loop.stop();
  t.deepEqual(result.failures, [], JSON.stringify(result.byStatus));
});

test.serial('leader election: two controllers, only the leader writes status; when it dies the other takes over', async (t) => {
  t.timeout(180_000);
  showStackLogsOnFailure(t, () => world);
  const b = startControllerProcess(
    kubeControllerArgs({ kubeconfig: w().saKubeconfig, xdsPort: w().ports.xdsB, publishAddress: publishedIpB, identity: 'controller-b', httpPort: w().ports.httpB, httpsPort: w().ports.httpsB }),
  );
  t.teardown(() => b.stop().then(() => undefined));
  const envoyB = await startKubeEnvoy(w().ports.xdsB, 'envoy-b');
  t.teardown(() => envoyB.stop().then(() => undefined));
  await b.waitForLog('all informers synced');
  await apply(ingressYaml('leader', 'leader.example.test', [{ path: '/', service: 'web' }]));
  // Both Envoys serve it; only controller-a (the leader) publishes its address.
  await waitFor(async () => (await serviceAt('leader.example.test', '/', w().ports.httpB)) === 'web', { description: 'B serves', timeoutMs: 30_000 });
  await waitFor(async () => (await addressOf('leader')) === publishedIp, { description: 'A publishes', timeoutMs: 30_000 });
  t.is(b.entries().filter((e) => e['msg'] === 'started leading: writing status and Events').length, 0, 'B is not leading');
  // Kill A without releasing the lease: B takes over after it expires and rewrites the status with its address.
  w().controller!.kill('SIGKILL');
  await w().controller!.exited;
  await b.waitForLog('started leading: writing status and Events', () => true, 60_000);
  await waitFor(async () => (await addressOf('leader')) === publishedIpB, { description: 'B publishes after taking over', timeoutMs: 60_000 });
  // Restore A for any later test (it is a follower now).
  world!.controller = startController('controller-a', w().ports.xds, publishedIp);
  await world!.controller.waitForLog('all informers synced');
});

test.serial('kubectl apply --dry-run=server accepts every manifest in deploy/', async (t) => {
  const dir = path.join(findRepoRoot(), 'deploy');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  t.true(files.length >= 6);
  const out = await w().cluster.kubectlOk(['apply', '--dry-run=server', '-f', dir]);
  for (const f of files) {
    const text = await readFile(path.join(dir, f), 'utf8');
    const kinds = [...text.matchAll(/^kind: (\w+)/gm)].map((m) => m[1]!.toLowerCase());
    for (const kind of kinds) t.regex(out, new RegExp(kind.replace('clusterrolebinding', 'clusterrolebinding'), 'i'), `${f}: ${kind}`);
  }
  t.notRegex(out, /error/i);
});

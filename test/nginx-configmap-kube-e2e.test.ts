// Kubernetes mode, the ingress-nginx ConfigMap (--nginx-configmap) end to end: a real API server, the real CLI
// running as deploy/'s ServiceAccount with deploy/'s RBAC plus deploy/optional/nginx-configmap/ (get/list/watch on
// that one ConfigMap only), a real Envoy and an echo backend on a test host. The ConfigMap is created, changed with
// kubectl and given a bad value while the controller runs: each change applies without a restart, and the bad
// value becomes an Event on the ConfigMap.
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { stringify } from 'yaml';
import { buildBootstrap } from '../envoy/bootstrap.js';
import { startControllerProcess, type ControllerProcess } from './fixtures/controller-process.js';
import { installControllerIdentity } from './fixtures/controller-identity.js';
import { freePort } from './fixtures/standalone-stack.js';
import { startEnvoy, type EnvoyProcess } from './harness/envoy-process.js';
import { httpGet } from './harness/http-client.js';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS } from './harness/kube-available.js';
import { startKubeCluster, type KubeCluster } from './harness/kube-cluster.js';
import { createTestHost, type TestHost } from './harness/netns-host.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir, type TempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';

interface World {
  cluster: KubeCluster;
  host: TestHost;
  tmp: TempDir;
  httpPort: number;
  controller: ControllerProcess;
  envoy: EnvoyProcess;
}

let world: World | undefined;
const ns = 'shop';
const hostName = 'shop.example.test';
const configMapNs = 'ingress-nginx';
const configMapName = 'ingress-nginx-controller';

function objects(backend: { address: string; port: number }): string {
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-1', namespace: ns, labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: backend.port, protocol: 'TCP' }],
      endpoints: [{ addresses: [backend.address], conditions: { ready: true } }],
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'shop', namespace: ns },
      spec: {
        ingressClassName: 'envoy-ingress',
        rules: [{ host: hostName, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }],
      },
    },
  ]
    .map((o) => stringify(o))
    .join('---\n');
}

function w(): World {
  if (!world) throw new Error('cluster not started');
  return world;
}

/** Status of a POST with a body of `bytes` bytes. */
async function postStatus(bytes: number): Promise<number | string> {
  try {
    const res = await httpGet({ port: w().httpPort, hostHeader: hostName, path: '/upload', method: 'POST', body: Buffer.alloc(bytes, 'a'), timeoutMs: 5000 });
    return res.status;
  } catch (err: unknown) {
    return `error ${String(err)}`;
  }
}

function showLogs(t: ExecutionContext): void {
  t.teardown(() => {
    if (t.passed || !world) return;
    t.log(`--- controller ---\n${world.controller.logs()}`.slice(-8000));
    t.log(`--- envoy ---\n${world.envoy.logs(60)}`);
  });
}

async function setConfigMap(data: Record<string, string>): Promise<void> {
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMapName, namespace: configMapNs }, data };
  await w().cluster.kubectlOk(['apply', '-f', '-'], { input: stringify(configMap) });
}

test.before(async (t) => {
  t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS, 'building or finding the kube binaries');
  await findKubeBinaries();
  t.timeout(240_000, 'starting the cluster, the controller and Envoy');
  const cluster = await startKubeCluster();
  const tmp = await createTempDir();
  const host = await createTestHost();
  const backend = await host.startEcho({ service: 'web' });
  const saKubeconfig = path.join(tmp.path, 'controller.kubeconfig');
  await installControllerIdentity(cluster, saKubeconfig);
  await cluster.kubectlOk(['create', 'namespace', configMapNs]);
  await cluster.kubectlOk(['apply', '-f', path.join(findRepoRoot(), 'deploy/optional/nginx-configmap/rbac.yaml')]);
  // A ConfigMap the Role does not name: the controller must never need it.
  await cluster.kubectlOk(['create', 'configmap', 'other', '-n', configMapNs, '--from-literal=proxy-body-size=1k']);
  await cluster.kubectlOk(['create', 'namespace', ns]);
  await cluster.kubectlOk(['apply', '-f', '-'], { input: objects(backend) });
  const [xdsPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
  const controller = startControllerProcess([
    `--kubeconfig=${saKubeconfig}`,
    `--xds-address=127.0.0.1:${xdsPort}`,
    '--publish-address=192.0.2.21',
    '--leader-election-namespace=envoy-ingress',
    '--identity=controller-configmap',
    '--listen-address=127.0.0.1',
    `--http-port=${httpPort}`,
    `--https-port=${httpsPort}`,
    '--nginx-annotations',
    `--nginx-configmap=${configMapNs}/${configMapName}`,
    '--log-level=debug',
  ]);
  world = { cluster, host, tmp, httpPort, controller } as World;
  await controller.waitForLog('all informers synced');
  world.envoy = await startEnvoy({
    bootstrap: buildBootstrap({ nodeId: 'envoy-configmap', nodeCluster: 'kube-e2e', xdsHost: '127.0.0.1', xdsPort, adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol: 'delta' }),
    logLevel: 'warn',
    drainTimeS: 2,
  });
  await world.envoy.waitForLive(60_000);
});

test.after.always(async () => {
  if (!world) return;
  await world.controller?.stop();
  await world.envoy?.stop();
  await world.host.destroy();
  await world.cluster.stop();
  await world.tmp.remove();
});

test.serial('before the ConfigMap exists ingress-nginx\'s defaults apply (1m body limit)', async (t) => {
  showLogs(t);
  await waitFor(async () => (await postStatus(2000)) === 200, { description: 'the Ingress is served', timeoutMs: 30_000 });
  t.is(await postStatus(1024 * 1024 + 1), 413, 'the default proxy-body-size 1m');
});

test.serial('creating the ConfigMap and changing it with kubectl applies each value without a restart', async (t) => {
  showLogs(t);
  await setConfigMap({ 'proxy-body-size': '1k' });
  await waitFor(async () => (await postStatus(2000)) === 413, { description: 'proxy-body-size 1k applies', timeoutMs: 30_000 });
  t.is(await postStatus(500), 200);
  await setConfigMap({ 'proxy-body-size': '4k' });
  await waitFor(async () => (await postStatus(2000)) === 200, { description: 'proxy-body-size 4k applies', timeoutMs: 30_000 });
  t.is(await postStatus(5000), 413);
});

test.serial('a bad value keeps the default and becomes an Event on the ConfigMap', async (t) => {
  showLogs(t);
  await setConfigMap({ 'proxy-body-size': 'lots' });
  await waitFor(async () => (await postStatus(5000)) === 200, { description: 'the default 1m is back', timeoutMs: 30_000 });
  let events = '';
  await waitFor(
    async () => {
      const res = await w().cluster.kubectl(['get', 'events', '-n', configMapNs, '--field-selector', `involvedObject.kind=ConfigMap,involvedObject.name=${configMapName}`, '-o', 'json']);
      events = res.stdout;
      return events.includes('InvalidNginxConfigMapValue');
    },
    { description: 'an InvalidNginxConfigMapValue Event on the ConfigMap', timeoutMs: 30_000 },
  );
  t.regex(events, /key proxy-body-size has invalid value \\"lots\\"/);
});

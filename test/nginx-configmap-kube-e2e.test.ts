// Kubernetes mode, the ingress-nginx ConfigMap (--nginx-configmap) end to end: a real API server, the real CLI
// running as deploy/'s ServiceAccount with deploy/'s RBAC plus deploy/optional/nginx-configmap/ (get/list/watch on
// that one ConfigMap only), a real Envoy and an echo backend on a test host. The ConfigMap is created, changed with
// kubectl and given a bad value while the controller runs: each change applies without a restart, and the bad
// value becomes an Event on the ConfigMap.
import path from 'node:path';
import test from 'ava';
import { stringify } from 'yaml';
import {
  backendServiceObjects,
  manifestYaml,
  oneHostIngress,
  showStackLogsOnFailure,
  startKubeControllerAndEnvoy,
  startKubeE2eStack,
  stopKubeE2eStack,
  type KubeE2eWorld,
} from './fixtures/kube-e2e-stack.js';
import { httpGet } from './harness/http-client.js';
import { findRepoRoot } from './harness/repo-root.js';
import { waitFor } from './harness/wait.js';

let world: KubeE2eWorld | undefined;
const ns = 'shop';
const hostName = 'shop.example.test';
const configMapNs = 'ingress-nginx';
const configMapName = 'ingress-nginx-controller';

function objects(backend: { address: string; port: number }): string {
  return manifestYaml([...backendServiceObjects(ns, 'web', backend), oneHostIngress({ namespace: ns, name: 'shop', host: hostName, service: 'web' })]);
}

function w(): KubeE2eWorld {
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

async function setConfigMap(data: Record<string, string>): Promise<void> {
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMapName, namespace: configMapNs }, data };
  await w().cluster.kubectlOk(['apply', '-f', '-'], { input: stringify(configMap) });
}

test.before(async (t) => {
  const stack = await startKubeE2eStack(t, 'starting the cluster, the controller and Envoy');
  const { cluster } = stack;
  const backend = await stack.host.startEcho({ service: 'web' });
  await cluster.kubectlOk(['create', 'namespace', configMapNs]);
  await cluster.kubectlOk(['apply', '-f', path.join(findRepoRoot(), 'deploy/optional/nginx-configmap/rbac.yaml')]);
  // A ConfigMap the Role does not name: the controller must never need it.
  await cluster.kubectlOk(['create', 'configmap', 'other', '-n', configMapNs, '--from-literal=proxy-body-size=1k']);
  await cluster.kubectlOk(['create', 'namespace', ns]);
  await cluster.kubectlOk(['apply', '-f', '-'], { input: objects(backend) });
  const extraArgs = ['--nginx-annotations', `--nginx-configmap=${configMapNs}/${configMapName}`, '--log-level=debug'];
  const options = { identity: 'controller-configmap', publishAddress: '192.0.2.21', envoyNodeId: 'envoy-configmap', extraArgs };
  await startKubeControllerAndEnvoy(stack, options, (started) => (world = started));
});

test.after.always(async () => {
  if (world) await stopKubeE2eStack(world);
});

test.serial('before the ConfigMap exists ingress-nginx\'s defaults apply (1m body limit)', async (t) => {
  showStackLogsOnFailure(t, () => world);
  await waitFor(async () => (await postStatus(2000)) === 200, { description: 'the Ingress is served', timeoutMs: 30_000 });
  t.is(await postStatus(1024 * 1024 + 1), 413, 'the default proxy-body-size 1m');
});

test.serial('creating the ConfigMap and changing it with kubectl applies each value without a restart', async (t) => {
  showStackLogsOnFailure(t, () => world);
  await setConfigMap({ 'proxy-body-size': '1k' });
  await waitFor(async () => (await postStatus(2000)) === 413, { description: 'proxy-body-size 1k applies', timeoutMs: 30_000 });
  t.is(await postStatus(500), 200);
  await setConfigMap({ 'proxy-body-size': '4k' });
  await waitFor(async () => (await postStatus(2000)) === 200, { description: 'proxy-body-size 4k applies', timeoutMs: 30_000 });
  t.is(await postStatus(5000), 413);
});

test.serial('a bad value keeps the default and becomes an Event on the ConfigMap', async (t) => {
  showStackLogsOnFailure(t, () => world);
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

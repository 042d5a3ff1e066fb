// The edge-nodes install publishes node addresses in Ingress status (--publish-nodes): a real API server with
// the edge-nodes overlay applied as shipped (its RBAC included), the real CLI running as the overlay's
// ServiceAccount with the DaemonSet's --publish-nodes flag, a real Envoy ACKing the config (status is written only
// for served Ingresses), and Nodes and pods made by the test (no kubelet here: the test sets pod readiness).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments, stringify } from 'yaml';
import { buildBootstrap } from '../envoy/bootstrap.js';
import { useEnvoy } from './harness/ava-fixtures.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { startControllerProcess } from './fixtures/controller-process.js';
import { freePort } from './fixtures/standalone-stack.js';
import { useFileKubeCluster } from './fixtures/file-kube-cluster.js';
import { writeControllerKubeconfig } from './fixtures/controller-identity.js';

const root = findRepoRoot();
const kube = useFileKubeCluster();

function node(name: string): string {
  return stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }) + '---\n';
}

async function setNodeAddresses(name: string, addresses: { type: string; address: string }[]): Promise<void> {
  await kube.cluster.kubectlOk(['patch', 'node', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { addresses } })]);
}

async function setPodReady(name: string, ready: boolean): Promise<void> {
  const conditions = [{ type: 'Ready', status: ready ? 'True' : 'False' }];
  await kube.cluster.kubectlOk(['patch', 'pod', name, '-n', 'envoy-ingress', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions } })]);
}

async function publishedIps(): Promise<string> {
  return (await kube.cluster.kubectlOk(['get', 'ingress', 'shop', '-n', 'shop', '-o', 'jsonpath={.status.loadBalancer.ingress[*].ip}'])).trim();
}

test('edge-nodes: Ingress status carries the addresses of the nodes whose envoy-ingress pod is ready', async (t) => {
  t.timeout(180_000);
  const k = kube.cluster;
  // The overlay as shipped: namespace, ServiceAccount, RBAC (with the --publish-nodes additions), DaemonSet...
  const { stdout: rendered } = await promisify(execFile)(kube.kubectl, ['kustomize', path.join(root, 'deploy-variants/edge-nodes')], { maxBuffer: 16 << 20 });
  await k.kubectlOk(['apply', '-f', '-'], { input: rendered });
  const daemonSet = parseAllDocuments(rendered).map((d) => d.toJS() as any).find((d) => d.kind === 'DaemonSet');
  const podTemplate = daemonSet.spec.template;
  const controllerArgs: string[] = podTemplate.spec.containers.find((c: any) => c.name === 'controller').args;
  const publishFlags = controllerArgs.filter((a) => a.startsWith('--publish-') || a.startsWith('--leader-election-namespace='));
  t.true(publishFlags.some((a) => a.startsWith('--publish-nodes=')), controllerArgs.join(' '));

  // Three nodes; the DaemonSet's pods (its template's labels) on two of them.
  await k.kubectlOk(['apply', '-f', '-'], { input: ['node-a', 'node-b', 'node-c'].map((n) => node(n)).join('') });
  await setNodeAddresses('node-a', [{ type: 'InternalIP', address: '10.0.0.10' }, { type: 'ExternalIP', address: '203.0.113.10' }]);
  await setNodeAddresses('node-b', [{ type: 'InternalIP', address: '10.0.0.11' }]);
  await setNodeAddresses('node-c', [{ type: 'ExternalIP', address: '203.0.113.12' }]);
  for (const n of ['a', 'b']) {
    await k.kubectlOk(['apply', '-f', '-'], {
      input: stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `envoy-ingress-${n}`, namespace: 'envoy-ingress', labels: podTemplate.metadata.labels },
        spec: {
          nodeName: `node-${n}`,
          serviceAccountName: 'envoy-ingress',
          automountServiceAccountToken: false,
          containers: [{ name: 'envoy', image: 'envoy-ingress/envoy:1.40.0' }],
        },
      }),
    });
    await setPodReady(`envoy-ingress-${n}`, true);
  }
  // A served Ingress (a Service with an endpoint; nothing needs to answer there).
  await k.kubectlOk(['create', 'namespace', 'shop']);
  await k.kubectlOk(['apply', '-f', '-'], {
    input: [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { ports: [{ name: 'http', port: 80 }] } },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'web-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
        addressType: 'IPv4',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        endpoints: [{ addresses: ['10.1.0.7'], conditions: { ready: true } }],
      },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'shop', namespace: 'shop' },
        spec: {
          ingressClassName: 'envoy-ingress',
          rules: [{ host: 'shop.example.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }],
        },
      },
    ]
      .map((o) => stringify(o))
      .join('---\n'),
  });

  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const kubeconfig = path.join(tmp.path, 'controller.kubeconfig');
  await writeControllerKubeconfig(k, kubeconfig);
  const xdsPort = await freePort();
  const controller = startControllerProcess([
    `--kubeconfig=${kubeconfig}`,
    `--xds-address=127.0.0.1:${xdsPort}`,
    ...publishFlags,
    '--identity=controller-a',
    '--listen-address=127.0.0.1',
    `--http-port=${await freePort()}`,
    `--https-port=${await freePort()}`,
    '--debug-address=off',
    '--log-level=debug',
  ]);
  t.teardown(() => controller.stop());
  t.teardown(() => {
    if (!t.passed) t.log(controller.logs().slice(-6000));
  });
  await controller.waitForLog('all informers synced');
  await useEnvoy(t, {
    bootstrap: buildBootstrap({ nodeId: 'edge', nodeCluster: 'edge', xdsHost: '127.0.0.1', xdsPort, adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol: 'delta' }),
    logLevel: 'warn',
  });

  // node-a's ExternalIP and node-b's InternalIP (it has no external one); node-c runs no pod.
  await waitFor(async () => (await publishedIps()) === '10.0.0.11 203.0.113.10', { description: 'node addresses published', timeoutMs: 60_000 });
  // A pod that stops being ready takes its node out.
  await setPodReady('envoy-ingress-b', false);
  await waitFor(async () => (await publishedIps()) === '203.0.113.10', { description: 'node-b removed', timeoutMs: 30_000 });
  // A node's address change is followed.
  await setNodeAddresses('node-a', [{ type: 'InternalIP', address: '10.0.0.10' }, { type: 'ExternalIP', address: '203.0.113.20' }]);
  await waitFor(async () => (await publishedIps()) === '203.0.113.20', { description: 'node-a address updated', timeoutMs: 30_000 });
  t.pass();
});

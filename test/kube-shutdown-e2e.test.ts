// SIGTERM in Kubernetes mode (the real CLI against a real API server, with deploy/'s RBAC, and a real sidecar
// Envoy reached through --envoy-admin-url): the controller releases the leader Lease at once, keeps serving xDS
// to its Envoy while that Envoy fails its readiness check and drains, and exits 0 only after the drain time.
import test from 'ava';
import { buildBootstrap } from '../envoy/bootstrap.js';
import { useEnvoy } from './harness/ava-fixtures.js';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS } from './harness/kube-available.js';
import { startKubeCluster } from './harness/kube-cluster.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { startControllerProcess } from './fixtures/controller-process.js';
import { freePort } from './fixtures/standalone-stack.js';
import { installControllerIdentity } from './fixtures/controller-identity.js';

test('SIGTERM: stop leading first, keep serving xDS while Envoy drains, exit after the drain', async (t) => {
  t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS, 'building or finding the kube binaries');
  await findKubeBinaries();
  t.timeout(240_000, 'the shutdown scenario');
  const cluster = await startKubeCluster();
  t.teardown(() => cluster.stop());
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const kubeconfig = tmp.file('controller.kubeconfig');
  await installControllerIdentity(cluster, kubeconfig);

  const [xdsPort, readyPort] = [await freePort(), await freePort()];
  const envoy = await useEnvoy(t, {
    bootstrap: buildBootstrap({
      nodeId: 'sidecar', nodeCluster: 'kube', xdsHost: '127.0.0.1', xdsPort,
      adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol: 'delta', readinessPort: readyPort,
    }),
    logLevel: 'warn',
    drainTimeS: 10,
  });
  const drainSeconds = 12;
  const controller = startControllerProcess([
    `--kubeconfig=${kubeconfig}`,
    `--xds-address=127.0.0.1:${xdsPort}`,
    '--leader-election-namespace=envoy-ingress',
    '--identity=pod-a',
    '--listen-address=127.0.0.1',
    `--http-port=${await freePort()}`,
    `--https-port=${await freePort()}`,
    `--envoy-admin-url=${envoy.adminUrl}`,
    `--drain-seconds=${drainSeconds}`,
  ]);
  t.teardown(() => controller.stop(15_000).then(() => undefined));
  t.teardown(() => {
    if (!t.passed) t.log(controller.logs().slice(-6000));
  });
  await controller.waitForLog('started leading: writing status and Events', undefined, 60_000);
  await envoy.waitForLive(60_000);
  const holder = async () =>
    (await cluster.kubectlOk(['get', 'lease', 'envoy-ingress-leader', '-n', 'envoy-ingress', '-o', 'jsonpath={.spec.holderIdentity}'])).trim();
  t.is(await holder(), 'pod-a');
  const connected = async () => (await envoy.stats('control_plane\\.connected_state$'))['control_plane.connected_state'];
  t.is(await connected(), 1);
  t.is((await fetch(`http://127.0.0.1:${readyPort}/ready`)).status, 200);

  let exited = false;
  void controller.exited.then(() => (exited = true));
  controller.kill('SIGTERM');
  // The Lease is released while the process is still draining its Envoy.
  // Well within the drain time: a release that waited for the drain would miss this.
  await waitFor(async () => (await holder()) !== 'pod-a', { timeoutMs: 6_000, description: 'lease released' });
  await controller.waitForLog('Envoy draining', undefined, 10_000);
  t.false(exited, 'the controller is still running during the drain');
  t.is((await fetch(`http://127.0.0.1:${readyPort}/ready`)).status, 503, 'Envoy fails readiness');
  t.is(await connected(), 1, 'Envoy is still connected to xDS');
  t.deepEqual(await envoy.warmingState(), { warmingClusters: [], warmingListeners: [] });

  const exit = await controller.exited;
  t.is(exit.code, 0);
  const order = controller.entries().map((e) => String(e['msg']));
  const stoppedLeading = order.indexOf('stopped leading; draining Envoy while xDS is still served');
  t.true(stoppedLeading >= 0 && stoppedLeading < order.indexOf('Envoy draining'), order.join(' | '));
  // Once the controller is gone, so is xDS.
  await waitFor(async () => (await connected()) === 0, { timeoutMs: 10_000, description: 'xDS closed after exit' });
});

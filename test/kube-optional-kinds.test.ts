// An optional kind (a CRD that may not be installed) against a real API server: not installed, it is not watched
// and the first sync does not wait for it; installed later, discovery finds it and its objects reach the store;
// uninstalled, it is no longer watched and its objects leave the store.
import { KubeConfig } from '@kubernetes/client-node';
import test from 'ava';
import { ClusterSource } from '../controller/sources/cluster-source.js';
import { sourceKinds, type SourceKind } from '../controller/sources/kinds.js';
import { ObjectStore } from '../controller/store.js';
import type { KubeKind } from '../controller/translate/shared/kube-objects.js';
import { useFileKubeCluster } from './fixtures/file-kube-cluster.js';
import { waitFor } from './harness/wait.js';

const kube = useFileKubeCluster();

const widgetKind: SourceKind = { kind: 'Widget', group: 'test.envoy-ingress.io', version: 'v1', plural: 'widgets', namespaced: true, optional: true };

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.test.envoy-ingress.io}
spec:
  group: test.envoy-ingress.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

const widget = `
apiVersion: test.envoy-ingress.io/v1
kind: Widget
metadata: {name: w1, namespace: default}
spec: {size: 3}
`;

const silent = { info: () => undefined, warn: () => undefined, debug: () => undefined };
// The store is typed by the kinds of the table; the test's kind is not one of them.
const widgets = (store: ObjectStore): string[] => store.list('Widget' as KubeKind).map((w) => w.metadata.name);

test('an optional kind is watched only while its CRD is installed, and never holds up the first sync', async (t) => {
  t.timeout(120_000);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kube.cluster.adminKubeconfigPath);
  const store = new ObjectStore();
  const said: string[] = [];
  const log = { ...silent, info: (_: object, msg: string) => void said.push(msg) };
  const source = new ClusterSource(kubeConfig, store, log, { kinds: [...sourceKinds, widgetKind], discoveryIntervalMs: 200 });
  t.teardown(() => source.stop());
  void source.start();
  await source.whenSynced();
  t.false(source.watching('Widget'));
  // Said once over several discovery rounds, naming the group's kinds.
  await new Promise((resolve) => setTimeout(resolve, 700));
  t.deepEqual(said.filter((m) => m.includes('test.envoy-ingress.io')), ['the API does not serve test.envoy-ingress.io: not watching Widget until their CRDs are installed']);
  t.is(said.filter((m) => m.startsWith('Gateway API is off')).length, 1);
  t.false(source.lists.has('Widget' as KubeKind));

  await kube.cluster.kubectlOk(['apply', '-f', '-'], { input: crd });
  await kube.cluster.kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', 'crd/widgets.test.envoy-ingress.io']);
  await kube.cluster.kubectlOk(['apply', '-f', '-'], { input: widget });
  await waitFor(() => widgets(store).includes('w1'), { description: 'the Widget reaches the store once its CRD is installed', timeoutMs: 30_000 });
  t.true(source.watching('Widget'));
  t.is(store.get('Widget' as KubeKind, 'default', 'w1')?.metadata.namespace, 'default');

  await kube.cluster.kubectlOk(['delete', 'crd', 'widgets.test.envoy-ingress.io', '--wait=true']);
  await waitFor(() => !source.watching('Widget') && widgets(store).length === 0, { description: 'the Widget leaves the store once its CRD is gone', timeoutMs: 30_000 });
  t.pass();
});

/**
 * The Service-annotation Ingress manager against a real API server, fed by the real ClusterSource and
 * ObjectStore, running as a ServiceAccount that has only the verbs the controller is meant to get (list/watch of
 * what the source reads, plus get/create/update/delete on Ingresses). Each test uses its own namespace.
 * There is no garbage collector here (no controller-manager): tests check the ownerReference it would use.
 */
import test, { type ExecutionContext } from 'ava';
import { CoreV1Api, NetworkingV1Api, type V1Ingress, type V1Service } from '@kubernetes/client-node';
import { createIngressApi } from '../controller/service-ingress/ingress-api.js';
import { ServiceIngressReason } from '../controller/service-ingress/plan.js';
import { ServiceIngressManager, type ReconcileOutcome } from '../controller/service-ingress/service-ingress-manager.js';
import { ClusterSource } from '../controller/sources/cluster-source.js';
import { ObjectStore } from '../controller/store.js';
import type { Diagnostic } from '../controller/translate/shared/diagnostics.js';
import { showLogsOnFailure } from './harness/ava-fixtures.js';
import { waitFor } from './harness/wait.js';
import { useFileKubeCluster } from './fixtures/file-kube-cluster.js';

let controllerToken = '';

const kube = useFileKubeCluster({
  prepare: async (cluster) => {
    await cluster.kubectlOk(['apply', '-f', '-'], {
      input: `
apiVersion: v1
kind: Namespace
metadata: {name: envoy-ingress}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: controller, namespace: envoy-ingress}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: service-ingress-manager-test}
rules:
  # What the cluster source reads.
  - apiGroups: [""]
    resources: [services, endpoints, secrets, namespaces]
    verbs: [list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [list, watch]
  - apiGroups: [networking.k8s.io]
    resources: [ingresses, ingressclasses]
    verbs: [list, watch]
  # What the Service Ingress manager writes (get: re-reading after a conflict).
  - apiGroups: [networking.k8s.io]
    resources: [ingresses]
    verbs: [get, create, update, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: service-ingress-manager-test}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: service-ingress-manager-test}
subjects:
  - {kind: ServiceAccount, name: controller, namespace: envoy-ingress}
`,
    });
    controllerToken = await cluster.serviceAccountToken('envoy-ingress', 'controller');
  },
});

interface Setup {
  namespace: string;
  core: CoreV1Api;
  networking: NetworkingV1Api;
  store: ObjectStore;
  manager: ServiceIngressManager;
  outcomes: { key: string; outcome: ReconcileOutcome }[];
  diagnostics: Diagnostic[];
}

/** A namespace of its own, the real source and store watching it, and the manager acting as leader. */
async function setup(t: ExecutionContext, namespace: string): Promise<Setup> {
  showLogsOnFailure(t, 'Kubernetes', kube.cluster);
  const admin = kube.kubeConfig(kube.cluster.adminToken);
  const core = admin.makeApiClient(CoreV1Api);
  const networking = admin.makeApiClient(NetworkingV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });

  const lines: string[] = [];
  const log = {
    info: (obj: object, msg: string) => lines.push(`info ${msg} ${JSON.stringify(obj)}`),
    warn: (obj: object, msg: string) => lines.push(`warn ${msg} ${JSON.stringify(obj)}`),
    debug: (obj: object, msg: string) => lines.push(`debug ${msg} ${JSON.stringify(obj)}`),
  };
  showLogsOnFailure(t, 'controller', { logs: () => lines.join('\n') });
  const controller = kube.kubeConfig(controllerToken);
  const store = new ObjectStore();
  const source = new ClusterSource(controller, store, log, { namespace, minBackoffMs: 200 });
  void source.start();
  await source.whenSynced();
  const manager = new ServiceIngressManager(store, createIngressApi(controller, { timeoutMs: 5000 }), {
    ingressClassName: 'envoy-ingress',
    hostTemplate: '{name}.{namespace}.example.com',
    isLeader: () => true,
    baseBackoffMs: 200,
    log,
  });
  const outcomes: Setup['outcomes'] = [];
  const diagnostics: Diagnostic[] = [];
  manager.on('reconciled', (o) => outcomes.push(o));
  manager.on('diagnostic', (d) => diagnostics.push(d));
  manager.start();
  t.teardown(async () => {
    await manager.stop();
    await source.stop();
  });
  return { namespace, core, networking, store, manager, outcomes, diagnostics };
}

function annotatedService(namespace: string, name: string, annotated: boolean): V1Service {
  return {
    metadata: { name, namespace, ...(annotated ? { annotations: { 'ingress/http': 'true' } } : {}) },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  };
}

async function readIngress(s: Setup, name: string): Promise<V1Ingress | undefined> {
  try {
    return await s.networking.readNamespacedIngress({ namespace: s.namespace, name });
  } catch (error) {
    if ((error as { code?: unknown }).code === 404) return undefined;
    throw error;
  }
}

/** Replaces the Service with `edit` applied, retrying on conflicts (the API server may have touched it). */
async function editService(s: Setup, name: string, edit: (svc: V1Service) => void): Promise<V1Service> {
  return waitFor(
    async () => {
      const svc = await s.core.readNamespacedService({ namespace: s.namespace, name });
      edit(svc);
      return s.core.replaceNamespacedService({ namespace: s.namespace, name, body: svc });
    },
    { description: `updating Service ${name}`, timeoutMs: 20_000 },
  );
}

const slow = { timeoutMs: 30_000 };

test('an annotated Service gets an owned Ingress that follows it, goes with the annotation and comes back', async (t) => {
  const s = await setup(t, 'lifecycle');
  const svc = await s.core.createNamespacedService({ namespace: s.namespace, body: annotatedService(s.namespace, 'web', true) });
  const uid = svc.metadata?.uid;
  t.truthy(uid);

  const created = await waitFor(() => readIngress(s, 'web'), { description: 'the Ingress to be created', ...slow });
  t.is(created.spec?.ingressClassName, 'envoy-ingress');
  t.deepEqual(JSON.parse(JSON.stringify(created.spec?.rules)), [
    {
      host: 'web.lifecycle.example.com',
      http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] },
    },
  ]);
  t.deepEqual(JSON.parse(JSON.stringify(created.metadata?.ownerReferences)), [
    { apiVersion: 'v1', kind: 'Service', name: 'web', uid, controller: true, blockOwnerDeletion: true },
  ]);

  // The Service's port changes: the Ingress follows.
  await editService(s, 'web', (x) => (x.spec!.ports = [{ port: 8081, targetPort: 8080 }]));
  const updated = await waitFor(
    async () => {
      const ing = await readIngress(s, 'web');
      return ing?.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.port?.number === 8081 ? ing : undefined;
    },
    { description: 'the Ingress to follow the new port', ...slow },
  );
  t.is(updated.metadata?.uid, created.metadata?.uid, 'updated in place');
  t.is(updated.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.port?.name, undefined);

  // The annotation goes: so does the Ingress.
  await editService(s, 'web', (x) => delete x.metadata!.annotations!['ingress/http']);
  await waitFor(async () => (await readIngress(s, 'web')) === undefined, { description: 'the Ingress to be deleted', ...slow });

  // It comes back: a new Ingress.
  await editService(s, 'web', (x) => (x.metadata!.annotations = { 'ingress/http': 'true' }));
  const recreated = await waitFor(() => readIngress(s, 'web'), { description: 'the Ingress to be recreated', ...slow });
  t.not(recreated.metadata?.uid, created.metadata?.uid);
  t.is(recreated.metadata?.ownerReferences?.[0]?.uid, uid);
  // The Ingress as stored by the API server compares equal to what the manager wants: no update loop.
  await s.manager.idle();
  t.is(s.outcomes.filter((o) => o.outcome === 'updated').length, 1);
});

test('deleting the Service leaves the Ingress to the garbage collector, which would find its ownerReference', async (t) => {
  const s = await setup(t, 'deletion');
  const svc = await s.core.createNamespacedService({ namespace: s.namespace, body: annotatedService(s.namespace, 'web', true) });
  await waitFor(() => readIngress(s, 'web'), { description: 'the Ingress to be created', ...slow });

  await s.core.deleteNamespacedService({ namespace: s.namespace, name: 'web' });
  await waitFor(() => s.outcomes.some((o) => o.key === 'deletion/web' && o.outcome === 'service-absent'), {
    description: 'the manager to see the Service gone',
    ...slow,
  });
  const orphan = await readIngress(s, 'web');
  t.truthy(orphan, 'the manager does not delete it: that is the garbage collector’s job');
  t.like(orphan?.metadata?.ownerReferences?.[0], { kind: 'Service', uid: svc.metadata?.uid, controller: true, blockOwnerDeletion: true });

  // The garbage collector's part, done by hand: the manager must not bring the Ingress back.
  await s.networking.deleteNamespacedIngress({ namespace: s.namespace, name: 'web' });
  await waitFor(() => s.store.get('Ingress', s.namespace, 'web') === undefined, { description: 'the store to see the Ingress gone', ...slow });
  s.manager.resync();
  await s.manager.idle();
  t.is(await readIngress(s, 'web'), undefined);
});

test('an Ingress of the same name that the Service does not own is never touched', async (t) => {
  const s = await setup(t, 'foreign');
  const theirs = await s.networking.createNamespacedIngress({
    namespace: s.namespace,
    body: {
      metadata: { name: 'api', namespace: s.namespace, labels: { owner: 'someone-else' } },
      spec: {
        ingressClassName: 'other',
        rules: [{ host: 'api.example.org', http: { paths: [{ path: '/v1', pathType: 'Exact', backend: { service: { name: 'legacy', port: { number: 9000 } } } }] } }],
      },
    },
  });
  await waitFor(() => s.store.get('Ingress', s.namespace, 'api'), { description: 'the store to see the existing Ingress', ...slow });
  const before = JSON.stringify(await readIngress(s, 'api'));

  await s.core.createNamespacedService({ namespace: s.namespace, body: annotatedService(s.namespace, 'api', true) });
  await waitFor(() => s.diagnostics.find((d) => d.object.name === 'api'), { description: 'a warning about the name', ...slow });
  t.like(s.diagnostics, [{ reason: ServiceIngressReason.IngressNameTaken, severity: 'Warning', object: { kind: 'Service', namespace: 'foreign', name: 'api' } }]);
  t.is(JSON.stringify(await readIngress(s, 'api')), before);

  // Without the annotation the manager would delete its own Ingress; this one is not its own.
  const from = s.outcomes.length;
  await editService(s, 'api', (x) => delete x.metadata!.annotations);
  await waitFor(() => s.outcomes.slice(from).some((o) => o.key === 'foreign/api' && o.outcome === 'not-requested'), {
    description: 'the manager to look at the edited Service',
    ...slow,
  });
  const after = await readIngress(s, 'api');
  t.is(after?.metadata?.resourceVersion, theirs.metadata?.resourceVersion);
  t.is(JSON.stringify(after), before);
});

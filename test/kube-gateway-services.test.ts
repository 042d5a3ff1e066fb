/**
 * The Gateway Service manager against a real API server with the Gateway API CRDs (v1.6.3, standard channel), fed
 * by the real ClusterSource and ObjectStore, acting as a ServiceAccount with only list/watch on what the source
 * reads and deploy/optional/gateway-services-rbac.yaml as shipped (create/update/delete on Services of the
 * controller's namespace). One Service per Gateway, Envoy ports of its own, followed, deleted with the Gateway; a restarted manager
 * finds the same ports recorded; the test-side load balancer's addresses (one asked for in spec.addresses, then
 * another) reach the Gateways' addresses through the store.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Service } from '@kubernetes/client-node';
import { GatewayServiceManager, type GatewayServiceOutcome } from '../controller/gateway-services/gateway-service-manager.js';
import { createServiceApi } from '../controller/gateway-services/service-api.js';
import { ClusterSource } from '../controller/sources/cluster-source.js';
import { ObjectStore } from '../controller/store.js';
import { gatewayServiceName, managedServicesByGateway, serviceAddresses } from '../controller/translate/gateway-api/gateway-service.js';
import type { Gateway, Service } from '../controller/translate/shared/kube-objects.js';
import { showLogsOnFailure } from './harness/ava-fixtures.js';
import { addressRange, startLoadBalancerAllocator } from './harness/load-balancer-allocator.js';
import { createTempDir } from './harness/temp-dir.js';
import { findRepoRoot } from './harness/repo-root.js';
import { waitFor } from './harness/wait.js';
import { useFileKubeCluster } from './fixtures/file-kube-cluster.js';

const run = promisify(execFile);
const controllerNamespace = 'envoy-ingress';
const controllerName = 'envoy-ingress.io/gateway-controller';
let controllerToken = '';

const kube = useFileKubeCluster({
  prepare: async (cluster) => {
    const paths = (await run('bash', [path.join(findRepoRoot(), 'scripts/kube/gateway-api-paths.sh')], { timeout: 5 * 60_000 })).stdout;
    const crds = /^crds=(.*)$/m.exec(paths)?.[1];
    if (!crds) throw new Error(`scripts/kube/gateway-api-paths.sh gave no crds: ${paths}`);
    await cluster.kubectlOk(['apply', '--server-side', '-f', crds]);
    await cluster.kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', 'crd/gateways.gateway.networking.k8s.io', 'crd/gatewayclasses.gateway.networking.k8s.io']);
    await cluster.kubectlOk(['apply', '-f', '-'], {
      input: `
apiVersion: v1
kind: Namespace
metadata: {name: ${controllerNamespace}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: envoy-ingress, namespace: ${controllerNamespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gateway-services-test}
rules:
  - apiGroups: [""]
    resources: [services, endpoints, secrets, namespaces]
    verbs: [list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [list, watch]
  - apiGroups: [networking.k8s.io]
    resources: [ingresses, ingressclasses]
    verbs: [list, watch]
  - apiGroups: [gateway.networking.k8s.io]
    resources: [gatewayclasses, gateways, httproutes, tlsroutes, tcproutes, referencegrants]
    verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: gateway-services-test}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gateway-services-test}
subjects:
  - {kind: ServiceAccount, name: envoy-ingress, namespace: ${controllerNamespace}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: envoy-ingress}
spec: {controllerName: ${controllerName}}
`,
    });
    // The writes: exactly the shipped optional RBAC (a Role on Services of the controller's namespace).
    await cluster.kubectlOk(['apply', '-f', path.join(findRepoRoot(), 'deploy/optional/gateway-services-rbac.yaml')]);
    controllerToken = await cluster.serviceAccountToken(controllerNamespace, 'envoy-ingress');
  },
});

interface Setup {
  store: ObjectStore;
  manager: GatewayServiceManager;
  outcomes: { key: string; outcome: GatewayServiceOutcome }[];
}

const settings = {
  controllerName,
  namespace: controllerNamespace,
  selector: { 'app.kubernetes.io/name': 'envoy-ingress' },
  portRange: { first: 20000, last: 20099 },
  reservedPorts: new Set([8080, 8443]),
};

async function startManager(t: ExecutionContext): Promise<Setup> {
  const lines: string[] = [];
  const log = {
    info: (obj: object, msg: string) => lines.push(`info ${msg} ${JSON.stringify(obj)}`),
    warn: (obj: object, msg: string) => lines.push(`warn ${msg} ${JSON.stringify(obj)}`),
    debug: (obj: object, msg: string) => lines.push(`debug ${msg} ${JSON.stringify(obj)}`),
  };
  showLogsOnFailure(t, 'controller', { logs: () => lines.join('\n') });
  const controller = kube.kubeConfig(controllerToken);
  const store = new ObjectStore();
  const source = new ClusterSource(controller, store, log, { minBackoffMs: 200, discoveryIntervalMs: 500 });
  void source.start();
  await source.whenSynced();
  const manager = new GatewayServiceManager(store, createServiceApi(controller, controllerNamespace, { timeoutMs: 5000 }), {
    ...settings,
    isLeader: () => true,
    storeComplete: () => source.kindSynced('Gateway') && source.kindSynced('GatewayClass'),
    baseBackoffMs: 200,
    log,
  });
  const outcomes: Setup['outcomes'] = [];
  manager.on('reconciled', (o) => outcomes.push(o));
  manager.start();
  t.teardown(async () => {
    await manager.stop();
    await source.stop();
  });
  return { store, manager, outcomes };
}

function gatewayBody(namespace: string, name: string, ports: number[], infrastructure?: NonNullable<Gateway['spec']>['infrastructure']): Gateway {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace },
    spec: {
      gatewayClassName: 'envoy-ingress',
      listeners: ports.map((port) => ({ name: `http-${port}`, port, protocol: 'HTTP' })),
      ...(infrastructure === undefined ? {} : { infrastructure }),
    },
  };
}

const slow = { timeoutMs: 30_000 };

function admin(): { core: CoreV1Api; custom: CustomObjectsApi } {
  const kc = kube.kubeConfig(kube.cluster.adminToken);
  return { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

async function readService(name: string): Promise<V1Service | undefined> {
  try {
    return await admin().core.readNamespacedService({ namespace: controllerNamespace, name });
  } catch (error) {
    if ((error as { code?: unknown }).code === 404) return undefined;
    throw error;
  }
}

const portsOfStored = (store: ObjectStore, key: string): unknown[] =>
  managedServicesByGateway(store.list('Service') as Service[], controllerNamespace).get(key)?.spec?.ports ?? [];

const portsOf = (svc: V1Service | undefined): [number, unknown][] => (svc?.spec?.ports ?? []).map((p) => [p.port, p.targetPort]);

test('each Gateway gets a Service of its own in the controller namespace, follows it, goes with it; a restarted manager keeps the ports', async (t) => {
  showLogsOnFailure(t, 'Kubernetes', kube.cluster);
  const { core, custom } = admin();
  await core.createNamespace({ body: { metadata: { name: 'apps' } } });
  const s = await startManager(t);
  const create = (g: Gateway): Promise<unknown> =>
    custom.createNamespacedCustomObject({ group: 'gateway.networking.k8s.io', version: 'v1', namespace: 'apps', plural: 'gateways', body: g });
  const a = gatewayBody('apps', 'a', [80], { labels: { team: 'alpha' }, annotations: { 'example.com/lb-pool': 'edge' } });
  const b = { ...gatewayBody('apps', 'b', [80, 8080]) };
  b.spec = { ...b.spec, addresses: [{ type: 'IPAddress', value: '10.251.0.230' }] };
  await create(a);
  const svcA = await waitFor(() => readService(gatewayServiceName(a)), { description: "Gateway a's Service", ...slow });
  await create(b);
  const svcB = await waitFor(() => readService(gatewayServiceName(b)), { description: "Gateway b's Service", ...slow });

  t.is(svcA.spec?.type, 'LoadBalancer');
  t.deepEqual(svcA.spec?.selector, settings.selector);
  // Envoy ports of the range (gateway-ports.ts: each listener port's own slot, or the next free one), one per
  // listener port, none shared: port 80 of b maps onto an Envoy port of its own.
  const inRange = (p: unknown): boolean => typeof p === 'number' && p >= settings.portRange.first && p <= settings.portRange.last;
  t.deepEqual(portsOf(svcA).map(([port]) => port), [80]);
  t.deepEqual(portsOf(svcB).map(([port]) => port), [80, 8080]);
  const given = [...portsOf(svcA), ...portsOf(svcB)].map(([, target]) => target);
  t.true(given.every(inRange), JSON.stringify(given));
  t.is(new Set(given).size, 3, 'port 80 of b maps onto an Envoy port of its own');
  t.like(svcA.metadata?.labels, { team: 'alpha', 'gateway.networking.k8s.io/gateway-name': 'a', 'envoy-ingress.io/gateway-namespace': 'apps', 'app.kubernetes.io/managed-by': 'envoy-ingress' });
  t.like(svcA.metadata?.annotations, { 'example.com/lb-pool': 'edge', 'envoy-ingress.io/gateway': 'apps/a' });

  // A load balancer (the test-side allocator the real node uses) assigns addresses: a's the first of its pool, b's
  // the one b asks for in spec.addresses (loadBalancerIP). They reach the store, from which the Gateways' addresses
  // are computed.
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  await kube.cluster.writeKubeconfig(dir.file('admin.kubeconfig'), { token: kube.cluster.adminToken });
  const lb = startLoadBalancerAllocator({ kubeconfigPath: dir.file('admin.kubeconfig'), pool: addressRange('10.251.0', 224, 239), log: (l) => t.log(l) });
  t.teardown(() => lb.stop());
  const addressOf = (key: string): string | undefined =>
    serviceAddresses(managedServicesByGateway(s.store.list('Service') as Service[], controllerNamespace).get(key)).find((x) => x.type === 'IPAddress')?.value;
  await waitFor(() => addressOf('apps/a') === '10.251.0.224' && addressOf('apps/b') === '10.251.0.230', { description: "the load balancer's addresses as the Gateways' addresses", ...slow });
  // b asks for another address: its Service asks the load balancer, which moves it there (as a cloud's would).
  await custom.patchNamespacedCustomObject(
    {
      group: 'gateway.networking.k8s.io',
      version: 'v1',
      namespace: 'apps',
      plural: 'gateways',
      name: 'b',
      body: [{ op: 'replace', path: '/spec/addresses', value: [{ type: 'IPAddress', value: '10.251.0.231' }] }],
    },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
  await waitFor(() => addressOf('apps/b') === '10.251.0.231', { description: "b's new address from the load balancer", ...slow });
  t.is(addressOf('apps/a'), '10.251.0.224');

  // Gateway a gains a listener port and becomes ClusterIP: its Service is updated in place; b's is untouched.
  await custom.patchNamespacedCustomObject(
    {
      group: 'gateway.networking.k8s.io',
      version: 'v1',
      namespace: 'apps',
      plural: 'gateways',
      name: 'a',
      body: [
        { op: 'add', path: '/spec/listeners/-', value: { name: 'http-81', port: 81, protocol: 'HTTP' } },
        { op: 'add', path: '/metadata/annotations', value: { 'envoy-ingress.io/service-type': 'ClusterIP' } },
      ],
    },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
  const updated = await waitFor(
    async () => {
      const svc = await readService(gatewayServiceName(a));
      return svc?.spec?.type === 'ClusterIP' && svc.spec.ports?.length === 2 ? svc : undefined;
    },
    { description: "Gateway a's Service to follow", ...slow },
  );
  t.is(updated.metadata?.uid, svcA.metadata?.uid, 'updated in place');
  // Port 80 keeps its Envoy port; 81 gets a free one of its own; b's are untouched.
  t.deepEqual(portsOf(updated)[0], portsOf(svcA)[0]);
  const for81 = portsOf(updated)[1];
  t.is(for81?.[0], 81);
  t.true(inRange(for81?.[1]) && !given.includes(for81?.[1]), JSON.stringify(for81));
  t.deepEqual(portsOf(await readService(gatewayServiceName(b))), portsOf(svcB));

  // A new manager (a restart, a new leader) with a fresh store finds every port recorded: nothing to write.
  // The first one stops first (one leader at a time); its store must have caught up with its own last write.
  await s.manager.idle();
  await waitFor(() => portsOfStored(s.store, 'apps/a').length === 2, { description: "the first store to see a's update", ...slow });
  await s.manager.stop();
  const again = await startManager(t);
  // Its store gets the Services before the Gateways (optional kinds start after discovery): it must not take the
  // Services for orphans meanwhile.
  await waitFor(() => again.outcomes.filter((o) => o.outcome === 'unchanged').length >= 2, { description: 'the second manager to look at both Gateways', ...slow });
  await again.manager.idle();
  t.deepEqual(again.outcomes.filter((o) => o.outcome !== 'unchanged' && o.outcome !== 'store-incomplete'), []);

  // Gateway a goes: its Service goes (no owner reference can cross namespaces), b's stays.
  await custom.deleteNamespacedCustomObject({ group: 'gateway.networking.k8s.io', version: 'v1', namespace: 'apps', plural: 'gateways', name: 'a' });
  await waitFor(async () => (await readService(gatewayServiceName(a))) === undefined, { description: "Gateway a's Service deleted", ...slow });
  t.truthy(await readService(gatewayServiceName(b)));
});

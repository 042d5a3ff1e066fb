/**
 * The Gateway Service manager against a real API server with the Gateway API CRDs (v1.6.3, standard channel), fed
 * by the real ClusterSource and ObjectStore, acting as a ServiceAccount with only list/watch on what the source
 * reads and deploy/optional/gateway-services-rbac.yaml as shipped (create/update/delete on Services and
 * EndpointSlices). One Service per Gateway in the Gateway's namespace, owned by it, without a selector, with Envoy
 * ports of its own, and its EndpointSlice of the ready Envoy pods (those of the controller namespace's envoy-ingress
 * Service; no node here, so that Service's EndpointSlice is written by the test as Kubernetes would); followed,
 * deleted with the Gateway; a restarted manager finds the same ports recorded; a Service the old code kept in the
 * controller namespace gives the new one its ports and goes; a tenant's Service under the name is left alone; the
 * test-side load balancer's addresses (one asked for in spec.addresses, then another) reach the Gateways' addresses
 * through the store. (No garbage collector runs here: the deletions seen are the manager's own.)
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api, PatchStrategy, setHeaderOptions, type V1EndpointSlice, type V1Service } from '@kubernetes/client-node';
import { GatewayServiceManager, type GatewayServiceOutcome } from '../controller/gateway-services/gateway-service-manager.js';
import { createServiceApi } from '../controller/gateway-services/service-api.js';
import { ClusterSource } from '../controller/sources/cluster-source.js';
import { ObjectStore } from '../controller/store.js';
import { gatewayPortRecordName, readGatewayPortRecord } from '../controller/translate/gateway-api/gateway-port-record.js';
import { gatewayServiceName, managedServicesByGateway, serviceAddresses } from '../controller/translate/gateway-api/gateway-service.js';
import type { ConfigMap, Gateway, Service } from '../controller/translate/shared/kube-objects.js';
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
    resources: [services, endpoints, secrets, namespaces, configmaps]
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
    // The writes: exactly the shipped optional RBAC (a ClusterRole on Services and EndpointSlices, a Role on the
    // ConfigMaps of the controller's namespace for the port record).
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
  const manager = new GatewayServiceManager(store, createServiceApi(controller, { timeoutMs: 5000 }), {
    ...settings,
    isLeader: () => true,
    storeComplete: () => source.kindSynced('Gateway') && source.kindSynced('GatewayClass') && source.gatewayConfigMapsSynced,
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

function admin(): { core: CoreV1Api; custom: CustomObjectsApi; discovery: DiscoveryV1Api } {
  const kc = kube.kubeConfig(kube.cluster.adminToken);
  return { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi), discovery: kc.makeApiClient(DiscoveryV1Api) };
}

async function orMissing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if ((error as { code?: unknown }).code === 404) return undefined;
    throw error;
  }
}

/** A Gateway's Service: in the Gateway's namespace (apps). */
function readService(name: string, namespace = 'apps'): Promise<V1Service | undefined> {
  return orMissing(() => admin().core.readNamespacedService({ namespace, name }));
}

function readSlice(name: string, namespace = 'apps'): Promise<V1EndpointSlice | undefined> {
  return orMissing(() => admin().discovery.readNamespacedEndpointSlice({ namespace, name }));
}

/** deploy/'s envoy-ingress Service and the EndpointSlice Kubernetes would keep for it (no node, no pods here). */
async function envoyPods(ips: string[]): Promise<void> {
  const { core, discovery } = admin();
  if ((await orMissing(() => core.readNamespacedService({ namespace: controllerNamespace, name: 'envoy-ingress' }))) === undefined) {
    await core.createNamespacedService({
      namespace: controllerNamespace,
      body: { metadata: { name: 'envoy-ingress' }, spec: { type: 'ClusterIP', selector: settings.selector, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
    });
  }
  const body: V1EndpointSlice = {
    metadata: { name: 'envoy-ingress-abcde', labels: { 'kubernetes.io/service-name': 'envoy-ingress', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
    addressType: 'IPv4',
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
  const existing = await orMissing(() => discovery.readNamespacedEndpointSlice({ namespace: controllerNamespace, name: 'envoy-ingress-abcde' }));
  if (existing === undefined) await discovery.createNamespacedEndpointSlice({ namespace: controllerNamespace, body });
  else await discovery.replaceNamespacedEndpointSlice({ namespace: controllerNamespace, name: 'envoy-ingress-abcde', body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion ?? '' } } });
}

const portsOfStored = (store: ObjectStore, key: string): unknown[] =>
  managedServicesByGateway(store.list('Service') as Service[], controllerNamespace).get(key)?.spec?.ports ?? [];

const portsOf = (svc: V1Service | undefined): [number, unknown][] => (svc?.spec?.ports ?? []).map((p) => [p.port, p.targetPort]);

/** What the port record (the ConfigMap of the controller's namespace) says of a Gateway key: [listener, Envoy port]s. */
async function recordedPorts(key: string): Promise<[number, number][]> {
  const record = await orMissing(() => admin().core.readNamespacedConfigMap({ namespace: controllerNamespace, name: gatewayPortRecordName(controllerName) }));
  const ports = readGatewayPortRecord(record === undefined ? undefined : ({ ...record, kind: 'ConfigMap' } as unknown as ConfigMap)).get(key)?.ports;
  return [...(ports ?? [])];
}

test("each Gateway gets a Service of its own in its namespace and that Service's EndpointSlice of the Envoy pods, follows it, goes with it; the old Service moves; a restarted manager keeps the ports", async (t) => {
  showLogsOnFailure(t, 'Kubernetes', kube.cluster);
  const { core, custom } = admin();
  await core.createNamespace({ body: { metadata: { name: 'apps' } } });
  await envoyPods(['10.244.0.7', '10.244.0.8']);
  // What the old code wrote for Gateway m: a Service in the controller's namespace selecting the Envoy pods, with
  // Envoy port 20050 for m's port 80.
  const m = gatewayBody('apps', 'm', [80]);
  await core.createNamespacedService({
    namespace: controllerNamespace,
    body: {
      metadata: {
        name: gatewayServiceName(m),
        labels: { 'app.kubernetes.io/managed-by': 'envoy-ingress', 'gateway.networking.k8s.io/gateway-name': 'm', 'envoy-ingress.io/gateway-namespace': 'apps' },
        annotations: { 'envoy-ingress.io/gateway': 'apps/m' },
      },
      spec: { type: 'ClusterIP', selector: settings.selector, ports: [{ name: 'port-80', protocol: 'TCP', port: 80, targetPort: 20050 }] },
    },
  });
  await custom.createNamespacedCustomObject({ group: 'gateway.networking.k8s.io', version: 'v1', namespace: 'apps', plural: 'gateways', body: m });
  // A tenant's own Service under the name Gateway t's Service would have.
  const tenantsGateway = gatewayBody('apps', 't', [80]);
  await core.createNamespacedService({ namespace: 'apps', body: { metadata: { name: gatewayServiceName(tenantsGateway), labels: { mine: 'yes' } }, spec: { selector: { app: 'mine' }, ports: [{ port: 80 }] } } });
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

  const gatewayA = (await custom.getNamespacedCustomObject({ group: 'gateway.networking.k8s.io', version: 'v1', namespace: 'apps', plural: 'gateways', name: 'a' })) as Gateway;
  t.is(svcA.spec?.type, 'LoadBalancer');
  t.is(svcA.spec?.selector, undefined);
  t.like(svcA.metadata?.ownerReferences?.[0], { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', name: 'a', uid: gatewayA.metadata.uid, controller: true });
  // Its EndpointSlice: the ready Envoy pods on the Envoy ports, port names as the Service's; not the EndpointSlice
  // controller's (managed-by), owned by the Gateway.
  const sliceA = await waitFor(() => readSlice(gatewayServiceName(a)), { description: "Gateway a's EndpointSlice", ...slow });
  t.like(sliceA.metadata?.labels, { 'kubernetes.io/service-name': gatewayServiceName(a), 'endpointslice.kubernetes.io/managed-by': 'gateway-services.envoy-ingress.io' });
  t.is(sliceA.metadata?.ownerReferences?.[0]?.uid, gatewayA.metadata.uid);
  t.deepEqual(sliceA.endpoints?.map((e) => e.addresses), [['10.244.0.7'], ['10.244.0.8']]);
  t.deepEqual(sliceA.ports?.map((p) => [p.name, p.port]), (svcA.spec?.ports ?? []).map((p) => [p.name, p.targetPort]));
  // An Envoy pod goes, another comes: the EndpointSlice follows.
  await envoyPods(['10.244.0.8', '10.244.0.9']);
  await waitFor(async () => JSON.stringify((await readSlice(gatewayServiceName(a)))?.endpoints?.map((e) => e.addresses[0])) === JSON.stringify(['10.244.0.8', '10.244.0.9']), {
    description: "Gateway a's EndpointSlice to follow the Envoy pods",
    ...slow,
  });

  // The move: m's Service in apps keeps Envoy port 20050 (recorded first); the old one goes once the new one exists.
  const svcM = await waitFor(() => readService(gatewayServiceName(m)), { description: "Gateway m's Service in its namespace", ...slow });
  t.deepEqual(portsOf(svcM), [[80, 20050]]);
  t.deepEqual(await recordedPorts('apps/m'), [[80, 20050]]);
  await waitFor(async () => (await readService(gatewayServiceName(m), controllerNamespace)) === undefined, { description: "m's old Service deleted", ...slow });
  t.deepEqual((await readSlice(gatewayServiceName(m)))?.ports?.map((p) => p.port), [20050]);

  // The tenant's Service is left alone; the manager says so.
  await create(tenantsGateway);
  await waitFor(() => s.outcomes.some((o) => o.key === 'apps/t' && o.outcome === 'collision'), { description: "the manager to find t's Service name taken", ...slow });
  const tenants = await readService(gatewayServiceName(tenantsGateway));
  t.deepEqual(tenants?.spec?.selector, { app: 'mine' });
  t.deepEqual(tenants?.metadata?.labels, { mine: 'yes' });
  t.is(await readSlice(gatewayServiceName(tenantsGateway)), undefined);
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

  // The port record, in the controller's namespace, says the Services' ports.
  t.deepEqual(await recordedPorts('apps/a'), portsOf(updated));
  t.deepEqual(await recordedPorts('apps/b'), portsOf(svcB));

  // A tenant (who may write Services in apps) rewrites the older Gateway a's Service to target b's Envoy port for
  // port 80: a Service is no record, so b keeps its port and a's Service is put back.
  const bsPort80 = portsOf(svcB)[0]?.[1] as number;
  const current = await readService(gatewayServiceName(a));
  if (current?.spec?.ports === undefined) return t.fail("a's Service is gone");
  await core.replaceNamespacedService({
    namespace: 'apps',
    name: gatewayServiceName(a),
    body: { ...current, spec: { ...current.spec, ports: current.spec.ports.map((p) => (p.port === 80 ? { ...p, targetPort: bsPort80 } : p)) } },
  });
  await waitFor(async () => JSON.stringify(portsOf(await readService(gatewayServiceName(a)))) === JSON.stringify(portsOf(updated)), {
    description: "the tenant's edit of a's Service put back",
    ...slow,
  });
  t.deepEqual(portsOf(await readService(gatewayServiceName(b))), portsOf(svcB));
  t.deepEqual((await readSlice(gatewayServiceName(b)))?.ports?.map((p) => p.port), portsOf(svcB).map(([, target]) => target));
  t.deepEqual(await recordedPorts('apps/b'), portsOf(svcB));
  t.deepEqual(await recordedPorts('apps/a'), portsOf(updated));

  // A new manager (a restart, a new leader) with a fresh store finds every port recorded: nothing to write.
  // The first one stops first (one leader at a time); its store must have caught up with its own last write.
  await s.manager.idle();
  await waitFor(() => portsOfStored(s.store, 'apps/a').length === 2, { description: "the first store to see a's update", ...slow });
  await s.manager.stop();
  const again = await startManager(t);
  // Its store gets the Services before the Gateways (optional kinds start after discovery): it must not take the
  // Services for orphans meanwhile.
  await waitFor(() => again.outcomes.filter((o) => o.outcome === 'unchanged').length >= 3, { description: 'the second manager to look at the Gateways', ...slow });
  await again.manager.idle();
  t.deepEqual(again.outcomes.filter((o) => o.outcome !== 'unchanged' && o.outcome !== 'store-incomplete' && o.outcome !== 'collision'), []);

  // Gateway a goes: its Service and EndpointSlice go (here by the manager; in a cluster the garbage collector too), b's stay.
  await custom.deleteNamespacedCustomObject({ group: 'gateway.networking.k8s.io', version: 'v1', namespace: 'apps', plural: 'gateways', name: 'a' });
  await waitFor(async () => (await readService(gatewayServiceName(a))) === undefined && (await readSlice(gatewayServiceName(a))) === undefined, {
    description: "Gateway a's Service and EndpointSlice deleted",
    ...slow,
  });
  t.truthy(await readService(gatewayServiceName(b)));
  t.truthy(await readSlice(gatewayServiceName(b)));
  // The tenant's Service is still theirs.
  t.deepEqual((await readService(gatewayServiceName(tenantsGateway)))?.metadata?.labels, { mine: 'yes' });
});

// Gateway API status against a real kube-apiserver: the shipped CRDs (standard channel, server-side apply), the
// controller (the real CLI) as deploy/'s ServiceAccount with deploy/'s RBAC, and a real Envoy. GatewayClass
// Accepted with supportedFeatures; Gateway and listener conditions, Programmed only once Envoy ACKed; HTTPRoute
// status.parents per parentRef at the route's generation, another controller's entry kept, ours removed when the
// route leaves our Gateway; a ListenerSet's status and listener; a BackendTLSPolicy's status.ancestors (configmaps
// and backendtlspolicies RBAC); a Gateway's CA ConfigMap (spec.tls.frontend) is watched. Counts in
// test/rbac-proof.test.ts.
import path from 'node:path';
import test from 'ava';
import type { EnvoyProcess } from './harness/envoy-process.js';
import { httpGet } from './harness/http-client.js';
import type { RemoteEcho } from './harness/netns-host.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { startControllerProcess, type ControllerProcess } from './fixtures/controller-process.js';
import {
  backendServiceObjects,
  kubeControllerArgs,
  manifestYaml,
  showStackLogsOnFailure,
  startKubeE2eStack,
  startKubeEnvoy,
  stopKubeE2eStack,
  type KubeE2eStack,
} from './fixtures/kube-e2e-stack.js';
import { freePort } from './fixtures/standalone-stack.js';

interface World extends KubeE2eStack {
  web: RemoteEcho;
  xdsPort: number;
  gatewayPort: number;
  controller?: ControllerProcess;
  envoy?: EnvoyProcess;
}

let world: World | undefined;
function w(): World {
  if (!world) throw new Error('cluster not started');
  return world;
}

const ns = 'gw';
const controllerName = 'envoy-ingress.io/gateway-controller';
const otherController = 'example.com/other-controller';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}
interface Obj {
  metadata: { generation: number };
  status?: {
    conditions?: Condition[];
    supportedFeatures?: { name: string }[];
    listeners?: { name: string; attachedRoutes: number; supportedKinds: { group: string; kind: string }[]; conditions: Condition[] }[];
    parents?: { parentRef: Record<string, unknown>; controllerName: string; conditions: Condition[] }[];
  };
}

async function get(kind: string, name: string, namespace?: string): Promise<Obj> {
  const out = await w().cluster.kubectlOk(['get', kind, name, ...(namespace === undefined ? [] : ['-n', namespace]), '-o', 'json']);
  return JSON.parse(out) as Obj;
}

function conditionOf(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

async function apply(objects: readonly object[]): Promise<void> {
  await w().cluster.kubectlOk(['apply', '-f', '-'], { input: manifestYaml(objects) });
}

async function serviceAt(host: string): Promise<string> {
  try {
    const res = await httpGet({ port: w().gatewayPort, hostHeader: host, path: '/', timeoutMs: 3000 });
    return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
  } catch (err: unknown) {
    return `error ${String(err)}`;
  }
}

function gateway(listeners: object[]): object {
  return { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'edge', namespace: ns }, spec: { gatewayClassName: 'envoy', listeners } };
}

function route(parentRefs: object[], backends: object[]): object {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'shop', namespace: ns },
    spec: { parentRefs, hostnames: ['shop.example.test'], rules: [{ backendRefs: backends }] },
  };
}

const ourParent = { name: 'edge', sectionName: 'http' };
const foreignParent = { name: 'elsewhere' };
const webBackend = { name: 'web', port: 80 };

test.before(async (t) => {
  const stack = await startKubeE2eStack(t, 'starting the cluster, installing the Gateway API CRDs');
  const web = await stack.host.startEcho({ service: 'web' });
  world = { ...stack, web, xdsPort: await freePort(), gatewayPort: await freePort() };
  // As the install guide says: server-side (the HTTPRoute CRD is too large for client-side apply's annotation).
  await stack.cluster.kubectlOk(['apply', '--server-side', '-f', path.join(findRepoRoot(), 'deploy/gateway-api/')]);
  // envoy-ingress's own RoutePolicy CRD (optional, as the install guide says).
  await stack.cluster.kubectlOk(['apply', '--server-side', '-f', path.join(findRepoRoot(), 'deploy/crds/')]);
  await stack.cluster.kubectlOk([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/gatewayclasses.gateway.networking.k8s.io',
    'crd/gateways.gateway.networking.k8s.io',
    'crd/httproutes.gateway.networking.k8s.io',
    'crd/routepolicies.gateway.envoy-ingress.io',
  ]);
  await stack.cluster.kubectlOk(['create', 'namespace', ns]);
  await apply(backendServiceObjects(ns, 'web', web));
  world.controller = startControllerProcess([
    ...kubeControllerArgs({ kubeconfig: stack.saKubeconfig, xdsPort: world.xdsPort, publishAddress: '192.0.2.20', identity: 'gw-status', httpPort: await freePort(), httpsPort: await freePort() }),
    '--log-level=debug',
  ]);
  await world.controller.waitForLog('all informers synced');
});

test.after.always(async () => {
  if (world) await stopKubeE2eStack(world);
});

test.serial('GatewayClass Accepted, Gateway Programmed only after Envoy ACKed, route parents per parentRef beside another controller\'s', async (t) => {
  t.timeout(180_000);
  showStackLogsOnFailure(t, () => world);
  await apply([
    { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName } },
    // Another controller's class: not ours to report on.
    { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'other' }, spec: { controllerName: otherController } },
    gateway([{ name: 'http', port: w().gatewayPort, protocol: 'HTTP' }]),
    route([ourParent, foreignParent], [webBackend]),
  ]);

  await waitFor(async () => conditionOf((await get('gatewayclass', 'envoy')).status?.conditions, 'Accepted')?.status === 'True', { description: 'GatewayClass Accepted', timeoutMs: 30_000 });
  const gatewayClass = await get('gatewayclass', 'envoy');
  t.is(conditionOf(gatewayClass.status?.conditions, 'Accepted')?.observedGeneration, gatewayClass.metadata.generation);
  t.true(gatewayClass.status?.supportedFeatures?.some((f) => f.name === 'HTTPRoute'));
  // The other class keeps the API server's default (Unknown, Pending).
  t.is(conditionOf((await get('gatewayclass', 'other')).status?.conditions, 'Accepted')?.status, 'Unknown');

  // No Envoy yet: the Gateway is Accepted, not Programmed.
  await waitFor(async () => conditionOf((await get('gateway', 'edge', ns)).status?.conditions, 'Accepted')?.status === 'True', { description: 'Gateway Accepted', timeoutMs: 30_000 });
  const pending = await get('gateway', 'edge', ns);
  t.like(conditionOf(pending.status?.conditions, 'Programmed'), { status: 'False', reason: 'Pending' });
  t.like(conditionOf(pending.status?.listeners?.[0]?.conditions, 'Programmed'), { status: 'False', reason: 'Pending' });

  // Envoy ACKs the configuration: Programmed, and the route serves.
  w().envoy = await startKubeEnvoy(w().xdsPort, 'gw-status-envoy');
  await w().envoy!.waitForLive(60_000);
  await waitFor(async () => conditionOf((await get('gateway', 'edge', ns)).status?.conditions, 'Programmed')?.status === 'True', { description: 'Gateway Programmed', timeoutMs: 30_000 });
  t.is(await serviceAt('shop.example.test'), 'web');
  const programmed = await get('gateway', 'edge', ns);
  // No address of its own (no --gateway-port-range): reached where Ingress is, the published address.
  t.deepEqual((programmed.status as { addresses?: unknown } | undefined)?.addresses, [{ type: 'IPAddress', value: '192.0.2.20' }]);
  for (const c of programmed.status?.conditions ?? []) t.is(c.observedGeneration, programmed.metadata.generation, c.type);
  t.deepEqual(
    programmed.status?.listeners?.map((l) => ({ name: l.name, attachedRoutes: l.attachedRoutes, supportedKinds: l.supportedKinds, conditions: l.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`) })),
    [
      {
        name: 'http',
        attachedRoutes: 1,
        supportedKinds: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }, { group: 'gateway.networking.k8s.io', kind: 'GRPCRoute' }],
        conditions: ['Accepted=True/Accepted', 'Programmed=True/Programmed', 'ResolvedRefs=True/ResolvedRefs', 'Conflicted=False/NoConflicts'],
      },
    ],
  );

  // Another controller writes its entry for the other parentRef; ours stays beside it, and its stays.
  const foreignEntry = {
    parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'elsewhere' },
    controllerName: otherController,
    conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: 'theirs', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }],
  };
  const current = await get('httproute', 'shop', ns);
  await w().cluster.kubectlOk([
    'patch', 'httproute', 'shop', '-n', ns, '--subresource=status', '--type=merge',
    '-p', JSON.stringify({ status: { parents: [...(current.status?.parents ?? []).filter((p) => p.controllerName !== otherController), foreignEntry] } }),
  ]);
  const parentsOf = async (): Promise<NonNullable<NonNullable<Obj['status']>['parents']>> => (await get('httproute', 'shop', ns)).status?.parents ?? [];
  await waitFor(async () => (await parentsOf()).length === 2, { description: 'both parent entries', timeoutMs: 30_000 });
  const parents = await parentsOf();
  t.deepEqual(parents.find((p) => p.controllerName === otherController), foreignEntry);
  const ours = parents.find((p) => p.controllerName === controllerName);
  t.deepEqual(ours?.parentRef, { group: 'gateway.networking.k8s.io', kind: 'Gateway', ...ourParent });
  t.deepEqual(ours?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`), ['Accepted=True/Accepted@1', 'ResolvedRefs=True/ResolvedRefs@1']);
  const acceptedSince = conditionOf(ours?.conditions, 'Accepted')?.lastTransitionTime;

  // A new generation with a backendRef to a missing Service: ResolvedRefs=False BackendNotFound at generation 2;
  // Accepted did not change, so its lastTransitionTime stays.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await apply([route([ourParent, foreignParent], [webBackend, { name: 'missing', port: 80 }])]);
  await waitFor(async () => conditionOf((await parentsOf()).find((p) => p.controllerName === controllerName)?.conditions, 'ResolvedRefs')?.observedGeneration === 2, { description: 'generation 2 reported', timeoutMs: 30_000 });
  const ours2 = (await parentsOf()).find((p) => p.controllerName === controllerName);
  t.like(conditionOf(ours2?.conditions, 'ResolvedRefs'), { status: 'False', reason: 'BackendNotFound', observedGeneration: 2 });
  t.like(conditionOf(ours2?.conditions, 'Accepted'), { status: 'True', observedGeneration: 2, lastTransitionTime: acceptedSince });

  // The route leaves our Gateway: our entry goes, the other controller's stays; the listener counts no route.
  await apply([route([foreignParent], [webBackend])]);
  await waitFor(async () => (await parentsOf()).every((p) => p.controllerName !== controllerName), { description: 'our parent entry removed', timeoutMs: 30_000 });
  t.deepEqual(await parentsOf(), [foreignEntry]);
  await waitFor(async () => (await get('gateway', 'edge', ns)).status?.listeners?.[0]?.attachedRoutes === 0, { description: 'attachedRoutes 0', timeoutMs: 30_000 });
});

test.serial('allowedRoutes Selector follows the route Namespace\'s labels as they change', async (t) => {
  t.timeout(120_000);
  showStackLogsOnFailure(t, () => world);
  const tenant = 'tenant-a';
  await w().cluster.kubectlOk(['create', 'namespace', tenant]);
  await w().cluster.kubectlOk(['label', 'namespace', tenant, 'shared-gateway=enabled']);
  await apply([
    ...backendServiceObjects(tenant, 'web', w().web),
    gateway([
      { name: 'http', port: w().gatewayPort, protocol: 'HTTP', hostname: 'shop.example.test' },
      { name: 'shared', port: w().gatewayPort, protocol: 'HTTP', hostname: 'tenant.example.test', allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { 'shared-gateway': 'enabled' } } } } },
    ]),
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'tenant', namespace: tenant },
      spec: { parentRefs: [{ name: 'edge', namespace: ns, sectionName: 'shared' }], rules: [{ backendRefs: [webBackend] }] },
    },
  ]);
  const accepted = async (): Promise<string | undefined> => {
    const entry = (await get('httproute', 'tenant', tenant)).status?.parents?.find((p) => p.controllerName === controllerName);
    const c = conditionOf(entry?.conditions, 'Accepted');
    return c === undefined ? undefined : `${c.status}/${c.reason}`;
  };
  await waitFor(async () => (await accepted()) === 'True/Accepted', { description: 'route admitted by the label', timeoutMs: 30_000 });
  await waitFor(async () => (await serviceAt('tenant.example.test')) === 'web', { description: 'tenant host served', timeoutMs: 30_000 });
  // The label goes: the route is refused and its host no longer served.
  await w().cluster.kubectlOk(['label', 'namespace', tenant, 'shared-gateway-']);
  await waitFor(async () => (await accepted()) === 'False/NotAllowedByListeners', { description: 'route refused without the label', timeoutMs: 30_000 });
  await waitFor(async () => (await serviceAt('tenant.example.test')) === 'status 404', { description: 'tenant host gone', timeoutMs: 30_000 });
  t.pass();
});

test.serial('TCPRoute, TLSRoute and GRPCRoute parents: Accepted on our TCP, TLS and HTTP listeners, the TCP port proxies the connection', async (t) => {
  t.timeout(120_000);
  showStackLogsOnFailure(t, () => world);
  const [tcpPort, tlsPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
  await apply([
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'l4', namespace: ns },
      spec: {
        gatewayClassName: 'envoy',
        listeners: [
          { name: 'tcp', port: tcpPort, protocol: 'TCP' },
          { name: 'tls', port: tlsPort, protocol: 'TLS', hostname: '*.example.test', tls: { mode: 'Passthrough' } },
          { name: 'grpc', port: grpcPort, protocol: 'HTTP', hostname: 'grpc.example.test' },
        ],
      },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GRPCRoute',
      metadata: { name: 'echo', namespace: ns },
      spec: { parentRefs: [{ name: 'l4', sectionName: 'grpc' }], rules: [{ matches: [{ method: { service: 'echo.Echo' } }], backendRefs: [webBackend] }] },
    },
    { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'TCPRoute', metadata: { name: 'raw', namespace: ns }, spec: { parentRefs: [{ name: 'l4', sectionName: 'tcp' }], rules: [{ backendRefs: [webBackend] }] } },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'TLSRoute',
      metadata: { name: 'sni', namespace: ns },
      spec: { parentRefs: [{ name: 'l4', sectionName: 'tls' }], hostnames: ['db.example.test'], rules: [{ backendRefs: [{ name: 'missing', port: 443 }] }] },
    },
  ]);
  const ourConditions = async (kind: string, name: string): Promise<string[] | undefined> =>
    (await get(kind, name, ns)).status?.parents?.find((p) => p.controllerName === controllerName)?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`);
  await waitFor(async () => (await ourConditions('tcproute', 'raw'))?.[0] === 'Accepted=True/Accepted@1', { description: 'TCPRoute accepted', timeoutMs: 30_000 });
  t.deepEqual(await ourConditions('tcproute', 'raw'), ['Accepted=True/Accepted@1', 'ResolvedRefs=True/ResolvedRefs@1']);
  await waitFor(async () => (await ourConditions('tlsroute', 'sni')) !== undefined, { description: 'TLSRoute status written', timeoutMs: 30_000 });
  t.deepEqual(await ourConditions('tlsroute', 'sni'), ['Accepted=True/Accepted@1', 'ResolvedRefs=False/BackendNotFound@1']);
  await waitFor(async () => (await ourConditions('grpcroute', 'echo')) !== undefined, { description: 'GRPCRoute status written', timeoutMs: 30_000 });
  t.deepEqual(await ourConditions('grpcroute', 'echo'), ['Accepted=True/Accepted@1', 'ResolvedRefs=True/ResolvedRefs@1']);
  // HTTP through the TCP listener reaches the echo unchanged.
  await waitFor(async () => {
    try {
      const res = await httpGet({ port: tcpPort, hostHeader: 'any.example.test', path: '/', timeoutMs: 3000 });
      return res.status === 200 && res.json?.service === 'web';
    } catch {
      return false;
    }
  }, { description: 'TCP listener proxies to web', timeoutMs: 30_000 });
  const l4 = await get('gateway', 'l4', ns);
  t.deepEqual(l4.status?.listeners?.map((l) => [l.name, l.attachedRoutes, l.supportedKinds.map((k) => k.kind)]), [
    ['tcp', 1, ['TCPRoute']],
    ['tls', 1, ['TLSRoute']],
    ['grpc', 1, ['HTTPRoute', 'GRPCRoute']],
  ]);
});

test.serial('ListenerSet: taken by a Gateway whose allowedListeners admit its namespace, its status written (Programmed once Envoy ACKed), its listener serves a route attached to it; another namespace\'s set NotAllowed', async (t) => {
  t.timeout(120_000);
  showStackLogsOnFailure(t, () => world);
  const setPort = await freePort();
  const outsider = 'gw-outsider';
  await w().cluster.kubectlOk(['create', 'namespace', outsider]);
  const listenerSet = (name: string, namespace: string, hostname: string): object => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ListenerSet',
    metadata: { name, namespace },
    spec: { parentRef: { name: 'sets', namespace: ns }, listeners: [{ name: 'extra', port: setPort, protocol: 'HTTP', hostname }] },
  });
  await apply([
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'sets', namespace: ns },
      spec: { gatewayClassName: 'envoy', allowedListeners: { namespaces: { from: 'Same' } }, listeners: [{ name: 'own', port: w().gatewayPort, protocol: 'HTTP', hostname: 'own.example.test' }] },
    },
    listenerSet('team', ns, 'set.example.test'),
    listenerSet('outsider', outsider, 'outsider.example.test'),
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'via-set', namespace: ns },
      spec: { parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'team' }], rules: [{ backendRefs: [webBackend] }] },
    },
  ]);
  const conditions = async (name: string, namespace: string): Promise<string[]> =>
    ((await get('listenerset', name, namespace)).status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`);
  await waitFor(async () => (await conditions('team', ns)).includes('Programmed=True/Programmed@1'), { description: 'ListenerSet Programmed', timeoutMs: 30_000 });
  t.deepEqual(await conditions('team', ns), ['Accepted=True/Accepted@1', 'Programmed=True/Programmed@1']);
  const team = await get('listenerset', 'team', ns);
  t.deepEqual(team.status?.listeners?.map((l) => [l.name, l.attachedRoutes, l.conditions.map((c) => `${c.type}=${c.status}`)]), [
    ['extra', 1, ['Accepted=True', 'Programmed=True', 'ResolvedRefs=True', 'Conflicted=False']],
  ]);
  await waitFor(async () => (await conditions('outsider', outsider)).length > 0, { description: 'outsider status written', timeoutMs: 30_000 });
  t.deepEqual(await conditions('outsider', outsider), ['Accepted=False/NotAllowed@1', 'Programmed=False/NotAllowed@1']);
  t.is(((await get('gateway', 'sets', ns)).status as { attachedListenerSets?: number } | undefined)?.attachedListenerSets, 1);
  const parent = (await get('httproute', 'via-set', ns)).status?.parents?.find((p) => p.controllerName === controllerName);
  t.like(parent?.parentRef, { kind: 'ListenerSet', name: 'team' });
  t.is(conditionOf(parent?.conditions, 'Accepted')?.status, 'True');
  const at = async (host: string): Promise<string> => {
    try {
      const res = await httpGet({ port: setPort, hostHeader: host, path: '/', timeoutMs: 3000 });
      return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
    } catch (err: unknown) {
      return `error ${String(err)}`;
    }
  };
  await waitFor(async () => (await at('set.example.test')) === 'web', { description: 'the set listener serves its route', timeoutMs: 30_000 });
  t.is(await at('outsider.example.test'), 'status 404');
});

test.serial('BackendTLSPolicy status.ancestors: the Gateway of the routes that use the targeted Service, with the CA ConfigMap read', async (t) => {
  t.timeout(120_000);
  showStackLogsOnFailure(t, () => world);
  await apply([
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-ca-here', namespace: ns }, data: { 'other.txt': 'x' } },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'tls-backend', namespace: ns },
      spec: { parentRefs: [ourParent], hostnames: ['shop.example.test'], rules: [{ backendRefs: [webBackend] }] },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'BackendTLSPolicy',
      metadata: { name: 'web-tls', namespace: ns },
      spec: { targetRefs: [{ group: '', kind: 'Service', name: 'web' }], validation: { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'no-ca-here' }], hostname: 'web.example.test' } },
    },
  ]);
  const policyConditions = async (): Promise<string[] | undefined> => {
    const policy = JSON.parse(await w().cluster.kubectlOk(['get', 'backendtlspolicy', 'web-tls', '-n', ns, '-o', 'json'])) as {
      status?: { ancestors?: { ancestorRef: { name: string }; controllerName: string; conditions: Condition[] }[] };
    };
    const ours = policy.status?.ancestors?.find((a) => a.controllerName === controllerName && a.ancestorRef.name === 'edge');
    return ours?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`);
  };
  await waitFor(async () => (await policyConditions()) !== undefined, { description: 'BackendTLSPolicy status written', timeoutMs: 30_000 });
  // The ConfigMap exists (watched) but has no ca.crt.
  t.deepEqual(await policyConditions(), ['Accepted=False/NoValidCACertificate@1', 'ResolvedRefs=False/InvalidCACertificateRef@1']);
});

test.serial('RoutePolicy status.ancestors: the Gateway its HTTPRoute attaches to, Accepted; a second policy on the route is Conflicted', async (t) => {
  t.timeout(120_000);
  showStackLogsOnFailure(t, () => world);
  const policy = (name: string): object => ({
    apiVersion: 'gateway.envoy-ingress.io/v1alpha1',
    kind: 'RoutePolicy',
    metadata: { name, namespace: ns },
    spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'policy-target' }], sourceRanges: { allow: ['0.0.0.0/0', '::/0'] } },
  });
  await apply([
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'policy-target', namespace: ns },
      spec: { parentRefs: [ourParent], hostnames: ['policy.example.test'], rules: [{ backendRefs: [webBackend] }] },
    },
    policy('first'),
  ]);
  // Created later: newer by creationTimestamp (whole seconds), so Conflicted.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await apply([policy('second')]);
  const policyConditions = async (name: string): Promise<string[] | undefined> => {
    const found = JSON.parse(await w().cluster.kubectlOk(['get', 'routepolicy', name, '-n', ns, '-o', 'json'])) as {
      status?: { ancestors?: { ancestorRef: { name: string; kind: string }; controllerName: string; conditions: Condition[] }[] };
    };
    const ours = found.status?.ancestors?.find((a) => a.controllerName === controllerName && a.ancestorRef.kind === 'Gateway' && a.ancestorRef.name === 'edge');
    return ours?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`);
  };
  await waitFor(async () => (await policyConditions('first')) !== undefined && (await policyConditions('second')) !== undefined, { description: 'RoutePolicy status written', timeoutMs: 30_000 });
  t.deepEqual(await policyConditions('first'), ['Accepted=True/Accepted@1']);
  t.deepEqual(await policyConditions('second'), ['Accepted=False/Conflicted@1']);
});

test.serial('RoutePolicy on a GRPCRoute: the CRD takes kind GRPCRoute, status.ancestors is the Gateway it attaches to; another namespace\'s policy naming it is TargetNotFound', async (t) => {
  t.timeout(120_000);
  showStackLogsOnFailure(t, () => world);
  const policy = (name: string, namespace: string): object => ({
    apiVersion: 'gateway.envoy-ingress.io/v1alpha1',
    kind: 'RoutePolicy',
    metadata: { name, namespace },
    spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'GRPCRoute', name: 'policy-grpc' }], sourceRanges: { deny: ['0.0.0.0/0', '::/0'] } },
  });
  await apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gw-other-tenant' } },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GRPCRoute',
      metadata: { name: 'policy-grpc', namespace: ns },
      spec: { parentRefs: [ourParent], hostnames: ['policy-grpc.example.test'], rules: [{ matches: [{ method: { service: 'echo.Echo' } }], backendRefs: [webBackend] }] },
    },
    policy('grpc-policy', ns),
    policy('intruder', 'gw-other-tenant'),
  ]);
  const ancestors = async (name: string, namespace: string): Promise<string[]> => {
    const found = JSON.parse(await w().cluster.kubectlOk(['get', 'routepolicy', name, '-n', namespace, '-o', 'json'])) as {
      status?: { ancestors?: { ancestorRef: { name: string; kind: string; namespace?: string }; controllerName: string; conditions: Condition[] }[] };
    };
    return (found.status?.ancestors ?? [])
      .filter((a) => a.controllerName === controllerName)
      .map((a) => `${a.ancestorRef.kind} ${a.ancestorRef.namespace}/${a.ancestorRef.name}: ${a.conditions.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`).join(', ')}`);
  };
  await waitFor(async () => (await ancestors('grpc-policy', ns)).length > 0 && (await ancestors('intruder', 'gw-other-tenant')).length > 0, { description: 'RoutePolicy status written', timeoutMs: 30_000 });
  t.deepEqual(await ancestors('grpc-policy', ns), [`Gateway ${ns}/edge: Accepted=True/Accepted@1`]);
  t.deepEqual(await ancestors('intruder', 'gw-other-tenant'), ['GRPCRoute gw-other-tenant/policy-grpc: Accepted=False/TargetNotFound@1']);
});

test.serial('client-certificate validation: the CA ConfigMap a Gateway names is watched; the listener is served once it exists', async (t) => {
  t.timeout(120_000);
  showStackLogsOnFailure(t, () => world);
  const ca = await createTestCA({ commonName: 'clients' });
  const server = await ca.issue({ dnsNames: ['mtls.example.test'] });
  const port = await freePort();
  const tlsSecret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'mtls-server', namespace: ns },
    type: 'kubernetes.io/tls',
    stringData: { 'tls.crt': server.certPem, 'tls.key': server.keyPem },
  };
  const mtlsGateway = (mode: string): object => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'mtls', namespace: ns },
    spec: {
      gatewayClassName: 'envoy',
      tls: { frontend: { default: { validation: { mode, caCertificateRefs: [{ kind: 'ConfigMap', group: '', name: 'clients-ca' }] } } } },
      listeners: [{ name: 'https', port, protocol: 'HTTPS', tls: { certificateRefs: [{ name: 'mtls-server' }] } }],
    },
  });
  await apply([tlsSecret, mtlsGateway('AllowValidOnly')]);
  const listener = async (type: string): Promise<string | undefined> => {
    const c = conditionOf((await get('gateway', 'mtls', ns)).status?.listeners?.[0]?.conditions, type);
    return c === undefined ? undefined : `${c.status}/${c.reason}`;
  };
  await waitFor(async () => (await listener('Accepted')) === 'False/NoValidCACertificate', { description: 'no CA yet: not served', timeoutMs: 30_000 });
  t.is(await listener('ResolvedRefs'), 'False/InvalidCACertificateRef');
  await apply([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'clients-ca', namespace: ns }, data: { 'ca.crt': ca.certPem } }]);
  await waitFor(async () => (await listener('Accepted')) === 'True/Accepted', { description: 'the ConfigMap is seen: served', timeoutMs: 30_000 });
  t.is(await listener('ResolvedRefs'), 'True/ResolvedRefs');
  const insecure = async (): Promise<string | undefined> => {
    const c = conditionOf((await get('gateway', 'mtls', ns)).status?.conditions, 'InsecureFrontendValidationMode');
    return c === undefined ? undefined : `${c.status}/${c.reason}`;
  };
  t.is(await insecure(), undefined);
  await apply([mtlsGateway('AllowInsecureFallback')]);
  await waitFor(async () => (await insecure()) === 'True/ConfigurationChanged', { description: 'InsecureFrontendValidationMode', timeoutMs: 30_000 });
  await apply([mtlsGateway('AllowValidOnly')]);
  await waitFor(async () => (await insecure()) === undefined, { description: 'InsecureFrontendValidationMode removed', timeoutMs: 30_000 });
});

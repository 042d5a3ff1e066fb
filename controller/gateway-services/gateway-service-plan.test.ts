// The Gateway Service plan, pure: which Service (in the Gateway's namespace) and EndpointSlice each Gateway gets,
// when they are created, updated or deleted, and the move from the controller's namespace.
// (Against a real API server: test/kube-gateway-services.test.ts.)
import test from 'ava';
import type { ClusterState, ConfigMap, EndpointSlice, Gateway, GatewayClass, ListenerSet, Service } from '../translate/shared/kube-objects.js';
import { allocateGatewayPorts, recordedGatewayPorts } from '../translate/gateway-api/gateway-ports.js';
import { gatewayPortRecordName } from '../translate/gateway-api/gateway-port-record.js';
import { gatewayServiceCollision, gatewayServiceName } from '../translate/gateway-api/gateway-service.js';
import { gatewayServiceView, planGatewayService, planPortRecord, storedPortRecord, viewKeys, type GatewayServicePlan, type GatewayServiceSettings, type GatewayServiceStep } from './gateway-service-plan.js';

const settings: GatewayServiceSettings = {
  controllerName: 'envoy-ingress.io/gateway-controller',
  namespace: 'envoy-ingress',
  selector: { 'app.kubernetes.io/name': 'envoy-ingress' },
  portRange: { first: 20000, last: 20099 },
  reservedPorts: new Set([8080, 8443]),
};

const ours: GatewayClass = { kind: 'GatewayClass', metadata: { name: 'ours' }, spec: { controllerName: settings.controllerName } };
const theirs: GatewayClass = { kind: 'GatewayClass', metadata: { name: 'theirs' }, spec: { controllerName: 'example.com/other' } };

function gateway(name: string, extra: Partial<NonNullable<Gateway['spec']>> = {}, className = 'ours', annotations?: Record<string, string>, namespace = 'apps'): Gateway {
  return {
    kind: 'Gateway',
    metadata: { name, namespace, uid: `uid-${name}`, creationTimestamp: '2024-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) },
    spec: { gatewayClassName: className, listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }, { name: 'alt', port: 8080, protocol: 'HTTP' }], ...extra },
  };
}

/** deploy/'s envoy-ingress Service (selecting the Envoy pods); Kubernetes keeps its EndpointSlices. */
const envoyService: Service = {
  kind: 'Service',
  metadata: { name: 'envoy-ingress', namespace: 'envoy-ingress', uid: 'e1', resourceVersion: '1' },
  spec: { type: 'LoadBalancer', selector: { 'app.kubernetes.io/name': 'envoy-ingress' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
};

function envoySlice(endpoints: { ip: string; ready?: boolean; node?: string }[], name = 'envoy-ingress-x1', service = 'envoy-ingress', namespace = 'envoy-ingress'): EndpointSlice {
  return {
    kind: 'EndpointSlice',
    metadata: { name, namespace, labels: { 'kubernetes.io/service-name': service, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
    addressType: 'IPv4',
    endpoints: endpoints.map((e) => ({ addresses: [e.ip], conditions: { ready: e.ready ?? true }, ...(e.node ? { nodeName: e.node } : {}) })),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
}

const twoPods = envoySlice([{ ip: '10.0.0.2', node: 'n1' }, { ip: '10.0.0.1', node: 'n1' }, { ip: '10.0.0.9', ready: false }]);

function state(gateways: Gateway[], services: Service[] = [], endpointSlices: EndpointSlice[] = [twoPods]): ClusterState {
  return { ingresses: [], ingressClasses: [], services: [envoyService, ...services], endpointSlices, endpoints: [], secrets: [], gatewayClasses: [ours, theirs], gateways } as ClusterState;
}

/** The Envoy port the translator gives `gateway`'s listener `port` (gateway-ports.ts), with `services` as the record. */
function envoyPort(gateway: Gateway, port: number, services: Service[] = []): number {
  return allocateGatewayPorts([gateway], recordedGatewayPorts(undefined, services, settings.namespace), settings, settings.reservedPorts).ports.get('apps/web')?.get(port) ?? -1;
}

function plan(key: string, s: ClusterState, options: GatewayServiceSettings = settings): GatewayServicePlan {
  return planGatewayService(key, gatewayServiceView(s, options), options);
}

type Kinds = { Service: Service; EndpointSlice: EndpointSlice };

/** What the plan creates (or updates) of `kind` (one at most). */
function written<K extends keyof Kinds>(p: GatewayServicePlan, action: 'create' | 'update', kind: K): Kinds[K] | undefined {
  const step = p.steps.find((s) => s.action === action && s.object.kind === kind);
  return step !== undefined && step.action !== 'delete' ? (step.object as Kinds[K]) : undefined;
}

const summary = (p: GatewayServicePlan): string[] => p.steps.map((x) => `${x.action} ${x.action === 'delete' ? `${x.kind} ${x.namespace}` : `${x.object.kind} ${x.object.metadata.namespace}`}`);

let version = 100;
/** `object` as the API server stores it: a uid and resourceVersion added (a Service gets a ClusterIP). */
function stored<T extends Service | EndpointSlice | ConfigMap>(object: T): T {
  version++;
  const metadata = { ...object.metadata, uid: object.metadata.uid ?? `u-${object.metadata.name}`, resourceVersion: String(version) };
  return object.kind === 'Service' ? ({ ...object, metadata, spec: { clusterIP: '10.96.0.20', ...object.spec } } as T) : ({ ...object, metadata } as T);
}

/** The API server carrying out `steps` on `s`: the state after them. */
function apply(s: ClusterState, steps: readonly GatewayServiceStep[]): ClusterState {
  let services = [...s.services];
  let slices = [...s.endpointSlices];
  const at = (namespace: string | undefined, name: string) => (o: Service | EndpointSlice): boolean => !(o.metadata.namespace === namespace && o.metadata.name === name);
  for (const step of steps) {
    if (step.action === 'delete') {
      if (step.kind === 'Service') services = services.filter(at(step.namespace, step.name));
      else slices = slices.filter(at(step.namespace, step.name));
      continue;
    }
    const o = stored(step.object);
    if (o.kind === 'Service') services = [...services.filter(at(o.metadata.namespace, o.metadata.name)), o];
    else slices = [...slices.filter(at(o.metadata.namespace, o.metadata.name)), o];
  }
  return { ...s, services, endpointSlices: slices };
}

/** The manager's first write: the port record made to say the view's ports (as the API server stores it). */
function recorded(s: ClusterState, options: GatewayServiceSettings = settings): ClusterState {
  const step = planPortRecord(gatewayServiceView(s, options), options);
  if (step === undefined) return s;
  const others = (s.configMaps ?? []).filter((c) => c.metadata.name !== step.object.metadata.name);
  return { ...s, configMaps: [...others, stored(step.object)] };
}

/** One pass of the manager for `key`: the record, then the Service steps. */
function pass(key: string, s: ClusterState, options: GatewayServiceSettings = settings): ClusterState {
  const withRecord = recorded(s, options);
  return apply(withRecord, plan(key, withRecord, options).steps);
}

test('a Gateway of our class gets a Service in its own namespace, owned by it, without a selector, and an EndpointSlice of the ready Envoy pods', (t) => {
  const web = gateway('web', { infrastructure: { labels: { team: 'a' }, annotations: { 'example.com/lb': 'internal' } } });
  const p = plan('apps/web', state([web]));
  t.deepEqual(summary(p), ['create Service apps', 'create EndpointSlice apps']);
  const service = written(p, 'create', 'Service');
  if (service === undefined) return t.fail(JSON.stringify(p));
  t.regex(service.metadata.name, /^gw-apps-web-[0-9a-f]{8}$/);
  t.deepEqual(service.metadata.labels, {
    team: 'a',
    'app.kubernetes.io/managed-by': 'envoy-ingress',
    'gateway.networking.k8s.io/gateway-name': 'web',
    'envoy-ingress.io/gateway-namespace': 'apps',
  });
  t.deepEqual(service.metadata.annotations, { 'example.com/lb': 'internal', 'envoy-ingress.io/gateway': 'apps/web', 'envoy-ingress.io/gateway-controller': settings.controllerName });
  t.deepEqual(service.metadata.ownerReferences, [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', name: 'web', uid: 'uid-web', controller: true }]);
  t.deepEqual(service.spec, {
    type: 'LoadBalancer',
    ports: [
      { name: 'port-80', protocol: 'TCP', port: 80, targetPort: envoyPort(web, 80) },
      { name: 'port-8080', protocol: 'TCP', port: 8080, targetPort: envoyPort(web, 8080) },
    ],
  });
  // The ports the translator serves the Gateway on: in the range, two distinct ones.
  const targets = (service.spec?.ports ?? []).map((port) => port.targetPort as number);
  t.is(new Set(targets).size, 2);
  t.true(targets.every((port) => port >= 20000 && port <= 20099));

  t.deepEqual(written(p, 'create', 'EndpointSlice'), {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: service.metadata.name,
      namespace: 'apps',
      labels: {
        'kubernetes.io/service-name': service.metadata.name,
        'endpointslice.kubernetes.io/managed-by': 'gateway-services.envoy-ingress.io',
        'app.kubernetes.io/managed-by': 'envoy-ingress',
        'gateway.networking.k8s.io/gateway-name': 'web',
      },
      annotations: { 'envoy-ingress.io/gateway': 'apps/web', 'envoy-ingress.io/gateway-controller': settings.controllerName },
      ownerReferences: service.metadata.ownerReferences,
    },
    addressType: 'IPv4',
    // Ready ones only, one per address, sorted: the not-ready 10.0.0.9 is left out.
    endpoints: [
      { addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'n1' },
      { addresses: ['10.0.0.2'], conditions: { ready: true }, nodeName: 'n1' },
    ],
    // Named as the Service's ports (kube-proxy pairs them by name), on the Envoy ports.
    ports: [
      { name: 'port-80', protocol: 'TCP', port: envoyPort(web, 80) },
      { name: 'port-8080', protocol: 'TCP', port: envoyPort(web, 8080) },
    ],
  });
});

test('the Envoy pods are those of the Services of the controller namespace with exactly the configured selector', (t) => {
  const web = gateway('web');
  const endpointsOf = (s: ClusterState): string[] => (written(plan('apps/web', s), 'create', 'EndpointSlice')?.endpoints ?? []).map((e) => e.addresses[0] ?? '');
  // The split variant's xDS Service selects the controller pod: a wider selector is not the Envoy pods'; nor is a
  // Service of another namespace.
  const xds: Service = { kind: 'Service', metadata: { name: 'xds', namespace: 'envoy-ingress' }, spec: { selector: { 'app.kubernetes.io/name': 'envoy-ingress', 'app.kubernetes.io/component': 'controller' } } };
  const elsewhere: Service = { ...envoyService, metadata: { ...envoyService.metadata, namespace: 'apps' } };
  const s = state([web], [xds, elsewhere], [twoPods, envoySlice([{ ip: '10.0.0.50' }], 'xds-1', 'xds'), envoySlice([{ ip: '10.0.0.60' }], 'e-apps', 'envoy-ingress', 'apps')]);
  t.deepEqual(endpointsOf(s), ['10.0.0.1', '10.0.0.2']);
  // Two slices of the Envoy Service: each pod once.
  t.deepEqual(endpointsOf(state([web], [], [twoPods, envoySlice([{ ip: '10.0.0.3' }, { ip: '10.0.0.1' }], 'envoy-ingress-x2')])), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  // No Envoy pod ready: no endpoints (the Service refuses traffic rather than sending it elsewhere).
  t.deepEqual(endpointsOf(state([web], [], [])), []);
});

test('Gateways of another controller get nothing', (t) => {
  const s = state([gateway('web', {}, 'theirs')]);
  t.deepEqual(viewKeys(gatewayServiceView(s, settings)), []);
  t.deepEqual(plan('apps/web', s), { steps: [] });
});

test('as created, all is up to date; a changed listener, type or Envoy pod updates the Service or the EndpointSlice in place', (t) => {
  const web = gateway('web');
  const first = state([web]);
  const done = apply(first, plan('apps/web', first).steps);
  t.deepEqual(plan('apps/web', done), { steps: [] });
  const service = done.services.find((x) => x.metadata.namespace === 'apps') as Service;
  // Labels and node ports others added are kept, and need no write.
  const touched: Service = {
    ...service,
    metadata: { ...service.metadata, labels: { ...service.metadata.labels, 'added-by': 'someone' } },
    spec: { ...service.spec, ports: (service.spec?.ports ?? []).map((p, i) => ({ ...p, nodePort: 30000 + i })) },
  };
  const s = { ...done, services: done.services.map((x) => (x === service ? touched : x)) };
  t.deepEqual(plan('apps/web', s), { steps: [] });

  const wider = gateway('web', { listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }, { name: 'x', port: 81, protocol: 'HTTP' }] });
  const moreListeners = plan('apps/web', { ...s, gateways: [wider] });
  t.deepEqual(summary(moreListeners), ['update Service apps', 'update EndpointSlice apps']);
  const svc = written(moreListeners, 'update', 'Service');
  t.is(svc?.metadata.resourceVersion, touched.metadata.resourceVersion);
  t.is(svc?.metadata.labels?.['added-by'], 'someone');
  // Port 80 keeps its Envoy port and node port; 81 takes a free Envoy port of its own; the EndpointSlice follows.
  t.deepEqual(svc?.spec?.ports, [
    { name: 'port-80', protocol: 'TCP', port: 80, targetPort: envoyPort(web, 80), nodePort: 30000 },
    { name: 'port-81', protocol: 'TCP', port: 81, targetPort: envoyPort(wider, 81, [touched]) },
  ]);
  t.deepEqual(written(moreListeners, 'update', 'EndpointSlice')?.ports, [
    { name: 'port-80', protocol: 'TCP', port: envoyPort(web, 80) },
    { name: 'port-81', protocol: 'TCP', port: envoyPort(wider, 81, [touched]) },
  ]);

  const clusterIp = written(plan('apps/web', { ...s, gateways: [gateway('web', {}, 'ours', { 'envoy-ingress.io/service-type': 'ClusterIP' })] }), 'update', 'Service');
  t.is(clusterIp?.spec?.type, 'ClusterIP');
  t.false((clusterIp?.spec?.ports ?? []).some((p) => 'nodePort' in p));
  t.is(clusterIp?.spec?.clusterIP, '10.96.0.20');

  // An Envoy pod comes, one goes: only the EndpointSlice changes.
  const ourSlice = s.endpointSlices.find((e) => e.metadata.namespace === 'apps') as EndpointSlice;
  const moved = plan('apps/web', { ...s, endpointSlices: [ourSlice, envoySlice([{ ip: '10.0.0.2' }, { ip: '10.0.0.7' }])] });
  t.deepEqual(summary(moved), ['update EndpointSlice apps']);
  t.deepEqual(written(moved, 'update', 'EndpointSlice')?.endpoints?.map((e) => e.addresses[0]), ['10.0.0.2', '10.0.0.7']);
  // Someone edited the EndpointSlice: put back.
  const edited = plan('apps/web', { ...s, endpointSlices: s.endpointSlices.map((e) => (e === ourSlice ? { ...e, endpoints: [{ addresses: ['192.0.2.1'] }] } : e)) });
  t.deepEqual(written(edited, 'update', 'EndpointSlice')?.endpoints, ourSlice.endpoints);
});

test('the move: a Service kept in the controller namespace before gives the new one its Envoy ports, and goes once the new one exists', (t) => {
  const web = gateway('web');
  // What the old code wrote: the controller's namespace, a selector, Envoy ports of its own.
  const old = stored<Service>({
    kind: 'Service',
    metadata: {
      name: gatewayServiceName(web),
      namespace: 'envoy-ingress',
      labels: { 'app.kubernetes.io/managed-by': 'envoy-ingress', 'gateway.networking.k8s.io/gateway-name': 'web', 'envoy-ingress.io/gateway-namespace': 'apps' },
      annotations: { 'envoy-ingress.io/gateway': 'apps/web' },
    },
    spec: { type: 'LoadBalancer', selector: settings.selector, ports: [{ name: 'port-80', protocol: 'TCP', port: 80, targetPort: 20090 }, { name: 'port-8080', protocol: 'TCP', port: 8080, targetPort: 20091 }] },
  });
  const before = state([web], [old]);
  const first = plan('apps/web', before);
  // The old one stays while the new one is created (its load balancer serves until then).
  t.deepEqual(summary(first), ['create Service apps', 'create EndpointSlice apps']);
  t.deepEqual(written(first, 'create', 'Service')?.spec?.ports?.map((p) => p.targetPort), [20090, 20091]);
  t.deepEqual(written(first, 'create', 'EndpointSlice')?.ports?.map((p) => p.port), [20090, 20091]);
  const afterCreate = apply(recorded(before), first.steps);
  // The record says the old Service's ports before the new Service is written.
  t.deepEqual([...(gatewayServiceView({ ...before, services: [envoyService], configMaps: afterCreate.configMaps } as ClusterState, settings).allocation.ports.get('apps/web') ?? [])], [[80, 20090], [8080, 20091]]);
  const second = plan('apps/web', afterCreate);
  t.deepEqual(second.steps, [{ action: 'delete', kind: 'Service', namespace: 'envoy-ingress', name: old.metadata.name, uid: old.metadata.uid ?? '', resourceVersion: old.metadata.resourceVersion ?? '' }]);
  const moved = apply(afterCreate, second.steps);
  t.deepEqual(plan('apps/web', moved), { steps: [] });
  // The Envoy ports never changed on the way.
  for (const s of [before, afterCreate, moved]) {
    t.deepEqual([...(gatewayServiceView(s, settings).allocation.ports.get('apps/web') ?? [])], [[80, 20090], [8080, 20091]]);
  }
  t.deepEqual(moved.services.filter((x) => x.metadata.namespace === 'envoy-ingress').map((x) => x.metadata.name), ['envoy-ingress']);
});

test("a Gateway in the controller's namespace: its old Service (same place and name) loses its selector and gains its owner", (t) => {
  const web = gateway('web', {}, 'ours', undefined, 'envoy-ingress');
  const fresh = written(plan('envoy-ingress/web', state([web])), 'create', 'Service') as Service;
  const { ownerReferences: _owners, ...oldMetadata } = fresh.metadata;
  const old = stored<Service>({ ...fresh, metadata: oldMetadata, spec: { ...fresh.spec, selector: settings.selector } });
  const p = plan('envoy-ingress/web', state([web], [old]));
  t.deepEqual(summary(p), ['update Service envoy-ingress', 'create EndpointSlice envoy-ingress']);
  const svc = written(p, 'update', 'Service');
  t.is(svc?.spec?.selector, undefined);
  t.is(svc?.metadata.ownerReferences?.[0]?.uid, 'uid-web');
});

test("a name taken by someone else's Service or EndpointSlice: left alone, said so (in the Gateway's status too), and the old Service kept", (t) => {
  const web = gateway('web');
  const name = gatewayServiceName(web);
  const tenants: Service = { kind: 'Service', metadata: { name, namespace: 'apps', uid: 't1', resourceVersion: '3' }, spec: { selector: { app: 'mine' }, ports: [{ port: 80 }] } };
  const old: Service = {
    kind: 'Service',
    metadata: { name, namespace: 'envoy-ingress', uid: 'o1', resourceVersion: '2', labels: { 'app.kubernetes.io/managed-by': 'envoy-ingress' }, annotations: { 'envoy-ingress.io/gateway': 'apps/web' } },
    spec: { selector: settings.selector, ports: [{ port: 80, targetPort: 20001 }] },
  };
  const p = plan('apps/web', state([web], [tenants, old]));
  t.deepEqual(p.steps, []);
  t.regex(p.collision ?? '', /the Service apps\/gw-apps-web-\w+ exists and is not managed by envoy-ingress/);
  t.regex(gatewayServiceCollision(web, [tenants], [], settings.namespace) ?? '', /is left alone, so the Gateway has no Service/);
  // A Service marked as ours for another Gateway under this name (a crafted annotation) is not this Gateway's either.
  const crafted: Service = { ...tenants, metadata: { ...tenants.metadata, labels: { 'app.kubernetes.io/managed-by': 'envoy-ingress' }, annotations: { 'envoy-ingress.io/gateway': 'apps/other' } } };
  t.deepEqual(plan('apps/web', state([web], [crafted])).steps, []);

  const theirSlice: EndpointSlice = { kind: 'EndpointSlice', metadata: { name, namespace: 'apps', labels: { 'kubernetes.io/service-name': 'theirs' } }, addressType: 'IPv4', endpoints: [] };
  const q = plan('apps/web', state([web], [], [twoPods, theirSlice]));
  t.deepEqual(summary(q), ['create Service apps']);
  t.regex(q.collision ?? '', /the EndpointSlice apps\/gw-apps-web-\w+ exists/);
  t.regex(gatewayServiceCollision(web, [], [theirSlice], settings.namespace) ?? '', /EndpointSlice/);
  t.is(gatewayServiceCollision(web, [], [], settings.namespace), undefined);
});

test('the type comes from the Gateway infrastructure, the Gateway, then the class; a bad value means LoadBalancer', (t) => {
  const classed: GatewayClass = { ...ours, metadata: { name: 'ours', annotations: { 'envoy-ingress.io/service-type': 'NodePort' } } };
  const typeOf = (g: Gateway): string | undefined => written(plan('apps/web', { ...state([g]), gatewayClasses: [classed] } as ClusterState), 'create', 'Service')?.spec?.type;
  t.is(typeOf(gateway('web')), 'NodePort');
  t.is(typeOf(gateway('web', {}, 'ours', { 'envoy-ingress.io/service-type': 'ClusterIP' })), 'ClusterIP');
  t.is(typeOf(gateway('web', { infrastructure: { annotations: { 'envoy-ingress.io/service-type': 'LoadBalancer' } } }, 'ours', { 'envoy-ingress.io/service-type': 'ClusterIP' })), 'LoadBalancer');
  t.is(typeOf(gateway('web', {}, 'ours', { 'envoy-ingress.io/service-type': 'Bogus' })), 'LoadBalancer');
});

test('spec.addresses IPAddress is asked of the load balancer', (t) => {
  const p = plan('apps/web', state([gateway('web', { addresses: [{ type: 'IPAddress', value: '10.250.9.7' }] })]));
  t.is(written(p, 'create', 'Service')?.spec?.loadBalancerIP, '10.250.9.7');
});

test("with the load balancer's addresses known, only a usable one is asked for; an empty value asks for none", (t) => {
  const known = { ...settings, loadBalancerAddresses: ['10.251.0.198', '10.251.0.199'] };
  const asked = (addresses: { type?: string; value?: string }[]): string | undefined => {
    const service = written(plan('apps/web', state([gateway('web', { addresses })]), known), 'create', 'Service');
    return service === undefined ? 'no create' : service.spec?.loadBalancerIP;
  };
  t.is(asked([{ value: '10.252.0.1' }, { type: 'IPAddress', value: '10.251.0.199' }]), '10.251.0.199');
  t.is(asked([{ value: '10.252.0.1' }]), undefined);
  t.is(asked([{ type: 'IPAddress' }]), undefined);
  // Unknown addresses (no list): the first IP is asked for, as before.
  t.is(written(plan('apps/web', state([gateway('web', { addresses: [{ value: '10.252.0.1' }] })])), 'create', 'Service')?.spec?.loadBalancerIP, '10.252.0.1');
});

test('a Gateway with a parametersRef (InvalidParameters: no parameters kind is read) gets no Service', (t) => {
  const refused = gateway('web', { infrastructure: { parametersRef: { group: 'invalid.io', kind: 'InvalidParameters', name: 'invalid' } } });
  t.deepEqual(plan('apps/web', state([refused])), { steps: [] });
  t.deepEqual(summary(plan('apps/web', state([gateway('web', { infrastructure: { labels: { key2: 'value2' } } })]))), ['create Service apps', 'create EndpointSlice apps']);
});

test("a Gateway that goes (or leaves our class) has its Service and EndpointSlice deleted, with their uids as preconditions", (t) => {
  const first = state([gateway('web')]);
  const done = apply(first, plan('apps/web', first).steps);
  const service = done.services.find((x) => x.metadata.namespace === 'apps') as Service;
  const slice = done.endpointSlices.find((x) => x.metadata.namespace === 'apps') as EndpointSlice;
  const gone = { ...done, gateways: [] };
  t.deepEqual(plan('apps/web', gone).steps, [
    { action: 'delete', kind: 'Service', namespace: 'apps', name: service.metadata.name, uid: service.metadata.uid ?? '', resourceVersion: service.metadata.resourceVersion ?? '' },
    { action: 'delete', kind: 'EndpointSlice', namespace: 'apps', name: slice.metadata.name, uid: slice.metadata.uid ?? '', resourceVersion: slice.metadata.resourceVersion ?? '' },
  ]);
  t.deepEqual(summary(plan('apps/web', { ...done, gateways: [gateway('web', {}, 'theirs')] })), ['delete Service apps', 'delete EndpointSlice apps']);
  // Objects that are not managed (no label) are never touched, nor one of ours in a namespace that is not the Gateway's.
  const foreign: Service = { ...service, metadata: { ...service.metadata, labels: {} } };
  const elsewhere: Service = { ...service, metadata: { ...service.metadata, namespace: 'tenant' } };
  t.deepEqual(viewKeys(gatewayServiceView(state([], [foreign, elsewhere], []), settings)), []);
});

test("another install's Service and EndpointSlice (another controllerName) are never deleted, though the key has no Gateway of ours", (t) => {
  const first = state([gateway('web')]);
  const done = apply(first, plan('apps/web', first).steps);
  const other = { ...settings, controllerName: 'example.com/second-install' };
  const gone = { ...done, gateways: [] };
  t.deepEqual(plan('apps/web', gone, other), { steps: [] });
  t.deepEqual(summary(plan('apps/web', gone)), ['delete Service apps', 'delete EndpointSlice apps']);
  // The Gateway now of the second install's class: its Service is adopted (an update marks it), not recreated.
  const moved = { ...done, gatewayClasses: [{ ...ours, spec: { controllerName: other.controllerName } }] } as ClusterState;
  const adopted = plan('apps/web', moved, other);
  t.deepEqual(summary(adopted), ['update Service apps', 'update EndpointSlice apps']);
  t.is(written(adopted, 'update', 'Service')?.metadata.annotations?.['envoy-ingress.io/gateway-controller'], other.controllerName);
  // An unmarked one of ours in the Gateway's namespace (an object only this controller writes marked) is not deleted
  // either; one kept in the controller's namespace before the mark is.
  const service = done.services.find((x) => x.metadata.namespace === 'apps') as Service;
  const { ['envoy-ingress.io/gateway-controller']: _mark, ...unmarked } = service.metadata.annotations ?? {};
  const legacy: Service = { ...service, metadata: { ...service.metadata, name: 'old', namespace: 'envoy-ingress', annotations: unmarked } };
  const unmarkedHere: Service = { ...service, metadata: { ...service.metadata, annotations: unmarked } };
  t.deepEqual(summary(plan('apps/web', { ...gone, services: [envoyService, unmarkedHere, legacy], endpointSlices: [] })), ['delete Service envoy-ingress']);
});

test("a ListenerSet the Gateway takes adds its listener ports to the Gateway's Service; one it does not take adds none", (t) => {
  const web = gateway('web', { allowedListeners: { namespaces: { from: 'Same' } } });
  const set = (name: string, namespace: string, port: number): ListenerSet => ({
    kind: 'ListenerSet',
    metadata: { name, namespace },
    spec: { parentRef: { name: 'web', namespace: 'apps' }, listeners: [{ name: 'extra', port, protocol: 'HTTP' }] },
  });
  const s = { ...state([web]), listenerSets: [set('taken', 'apps', 81), set('refused', 'other', 82)] } as ClusterState;
  t.deepEqual(written(plan('apps/web', s), 'create', 'Service')?.spec?.ports?.map((port) => port.port), [80, 81, 8080]);
});

test('the port record in the controller namespace says every Gateway of ours and its Envoy ports; written once, then up to date; an update starts from what was read', (t) => {
  const web = gateway('web');
  const other = gateway('other', {}, 'ours', undefined, 'shop');
  const s = state([web, other, gateway('theirs', {}, 'theirs')]);
  const first = planPortRecord(gatewayServiceView(s, settings), settings);
  if (first?.action !== 'create') return t.fail(JSON.stringify(first));
  t.like(first.object.metadata, { name: gatewayPortRecordName(settings.controllerName), namespace: 'envoy-ingress', labels: { 'app.kubernetes.io/managed-by': 'envoy-ingress' }, annotations: { 'envoy-ingress.io/gateway-controller': settings.controllerName } });
  const entries = JSON.parse(first.object.data?.['gateways.json'] ?? '') as Record<string, { uid: string; ports: Record<string, number> }>;
  t.deepEqual(Object.keys(entries), ['apps/web', 'shop/other']);
  t.deepEqual(entries['apps/web'], { uid: 'uid-web', ports: { '80': envoyPort(web, 80), '8080': envoyPort(web, 8080) } });
  const done = recorded(s);
  t.is(planPortRecord(gatewayServiceView(done, settings), settings), undefined);
  // A Gateway goes: its entry goes, in an update of what was read.
  const gone = { ...done, gateways: [web] };
  const update = planPortRecord(gatewayServiceView(gone, settings), settings);
  const read = storedPortRecord(done, settings);
  t.is(update?.action, 'update');
  t.is(update?.object.metadata.resourceVersion, read?.metadata.resourceVersion);
  t.deepEqual(Object.keys(JSON.parse(update?.object.data?.['gateways.json'] ?? '{}') as object), ['apps/web']);
  // Another controllerName's record is another ConfigMap, never read here.
  const second = { ...settings, controllerName: 'example.com/second-install' };
  t.is(storedPortRecord(done, second), undefined);
});

test("a tenant who rewrites its Gateway's Service (targetPort to another Gateway's Envoy port) gets it put back; the other Gateway keeps its port", (t) => {
  const mine = gateway('mine', { listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] }, 'ours', undefined, 'tenant-a');
  const victim = { ...gateway('victim', { listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] }, 'ours', undefined, 'tenant-b') };
  victim.metadata = { ...victim.metadata, creationTimestamp: '2024-01-02T00:00:00Z' };
  let s = state([mine, victim]);
  s = pass('tenant-a/mine', s);
  s = pass('tenant-b/victim', s);
  t.deepEqual(plan('tenant-a/mine', s), { steps: [] });
  const portOf = (st: ClusterState, namespace: string): number | undefined => st.services.find((x) => x.metadata.namespace === namespace)?.spec?.ports?.[0]?.targetPort as number | undefined;
  const victimsPort = portOf(s, 'tenant-b');
  const minePort = portOf(s, 'tenant-a');
  t.not(victimsPort, minePort);
  // The attack: the older Gateway's Service in the tenant's own namespace now targets the younger one's Envoy port.
  const attacked = {
    ...s,
    services: s.services.map((x) => (x.metadata.namespace === 'tenant-a' ? { ...x, spec: { ...x.spec, ports: (x.spec?.ports ?? []).map((p) => ({ ...p, targetPort: victimsPort ?? -1 })) } } : x)),
  };
  const view = gatewayServiceView(attacked, settings);
  t.is(view.allocation.ports.get('tenant-b/victim')?.get(80), victimsPort);
  t.is(planPortRecord(view, settings), undefined, 'the record does not move');
  t.deepEqual(plan('tenant-b/victim', attacked), { steps: [] });
  const putBack = written(plan('tenant-a/mine', attacked), 'update', 'Service');
  t.is(putBack?.spec?.ports?.[0]?.targetPort, minePort);
  // Deleting it gets it back with the same ports.
  const deleted = { ...s, services: s.services.filter((x) => x.metadata.namespace !== 'tenant-a') };
  t.is(written(plan('tenant-a/mine', deleted), 'create', 'Service')?.spec?.ports?.[0]?.targetPort, minePort);
});

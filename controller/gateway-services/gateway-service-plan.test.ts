// The Gateway Service plan, pure: which Service each Gateway gets and when it is created, updated or deleted.
// (Against a real API server: test/kube-gateway-services.test.ts.)
import test from 'ava';
import type { ClusterState, Gateway, GatewayClass, ListenerSet, Service } from '../translate/shared/kube-objects.js';
import { allocateGatewayPorts } from '../translate/gateway-api/gateway-ports.js';
import { gatewayServiceView, planGatewayService, viewKeys, type GatewayServiceSettings } from './gateway-service-plan.js';

const settings: GatewayServiceSettings = {
  controllerName: 'envoy-ingress.io/gateway-controller',
  namespace: 'envoy-ingress',
  selector: { 'app.kubernetes.io/name': 'envoy-ingress' },
  portRange: { first: 20000, last: 20099 },
  reservedPorts: new Set([8080, 8443]),
};

const ours: GatewayClass = { kind: 'GatewayClass', metadata: { name: 'ours' }, spec: { controllerName: settings.controllerName } };
const theirs: GatewayClass = { kind: 'GatewayClass', metadata: { name: 'theirs' }, spec: { controllerName: 'example.com/other' } };

function gateway(name: string, extra: Partial<NonNullable<Gateway['spec']>> = {}, className = 'ours', annotations?: Record<string, string>): Gateway {
  return {
    kind: 'Gateway',
    metadata: { name, namespace: 'apps', creationTimestamp: '2024-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) },
    spec: { gatewayClassName: className, listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }, { name: 'alt', port: 8080, protocol: 'HTTP' }], ...extra },
  };
}

function state(gateways: Gateway[], services: Service[] = []): ClusterState {
  return { ingresses: [], ingressClasses: [], services, endpointSlices: [], endpoints: [], secrets: [], gatewayClasses: [ours, theirs], gateways } as ClusterState;
}

/** The Envoy port the translator gives `gateway`'s listener `port` (gateway-ports.ts), with `services` as the record. */
function envoyPort(gateway: Gateway, port: number, services: Service[] = []): number {
  return allocateGatewayPorts([gateway], services, settings, settings.reservedPorts).ports.get('apps/web')?.get(port) ?? -1;
}

function plan(key: string, s: ClusterState): ReturnType<typeof planGatewayService> {
  return planGatewayService(key, gatewayServiceView(s, settings), settings);
}

test('a Gateway of our class gets a LoadBalancer Service mapping its listener ports onto Envoy ports of its own', (t) => {
  const web = gateway('web', { infrastructure: { labels: { team: 'a' }, annotations: { 'example.com/lb': 'internal' } } });
  const p = plan('apps/web', state([web]));
  if (p.action !== 'create') return t.fail(p.action);
  t.regex(p.service.metadata.name, /^gw-apps-web-[0-9a-f]{8}$/);
  t.is(p.service.metadata.namespace, 'envoy-ingress');
  t.deepEqual(p.service.metadata.labels, {
    team: 'a',
    'app.kubernetes.io/managed-by': 'envoy-ingress',
    'gateway.networking.k8s.io/gateway-name': 'web',
    'envoy-ingress.io/gateway-namespace': 'apps',
  });
  t.deepEqual(p.service.metadata.annotations, { 'example.com/lb': 'internal', 'envoy-ingress.io/gateway': 'apps/web' });
  t.deepEqual(p.service.spec, {
    type: 'LoadBalancer',
    selector: { 'app.kubernetes.io/name': 'envoy-ingress' },
    ports: [
      { name: 'port-80', protocol: 'TCP', port: 80, targetPort: envoyPort(web, 80) },
      { name: 'port-8080', protocol: 'TCP', port: 8080, targetPort: envoyPort(web, 8080) },
    ],
  });
  // The ports the translator serves the Gateway on: in the range, two distinct ones.
  const targets = (p.service.spec?.ports ?? []).map((port) => port.targetPort as number);
  t.is(new Set(targets).size, 2);
  t.true(targets.every((port) => port >= 20000 && port <= 20099));
});

test('Gateways of another controller get nothing', (t) => {
  const s = state([gateway('web', {}, 'theirs')]);
  t.deepEqual(viewKeys(gatewayServiceView(s, settings)), []);
  t.deepEqual(plan('apps/web', s), { action: 'none' });
});

test('the Service as created is up to date; a changed listener, type or infrastructure label updates it in place', (t) => {
  const web = gateway('web');
  const created = plan('apps/web', state([web]));
  if (created.action !== 'create') return t.fail();
  // As the API server stores it: uid, resourceVersion, clusterIP and node ports added.
  const stored: Service = {
    ...created.service,
    metadata: { ...created.service.metadata, uid: 'u1', resourceVersion: '5', labels: { ...created.service.metadata.labels, 'added-by': 'someone' } },
    spec: { ...created.service.spec, clusterIP: '10.96.0.20', ports: (created.service.spec?.ports ?? []).map((p, i) => ({ ...p, nodePort: 30000 + i })) },
  };
  t.deepEqual(plan('apps/web', state([web], [stored])), { action: 'none' });

  const wider = gateway('web', { listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }, { name: 'x', port: 81, protocol: 'HTTP' }] });
  const moreListeners = plan('apps/web', state([wider], [stored]));
  if (moreListeners.action !== 'update') return t.fail(moreListeners.action);
  t.is(moreListeners.service.metadata.resourceVersion, '5');
  t.is(moreListeners.service.metadata.labels?.['added-by'], 'someone');
  // Port 80 keeps its Envoy port and node port; 81 takes a free Envoy port of its own.
  t.deepEqual(moreListeners.service.spec?.ports, [
    { name: 'port-80', protocol: 'TCP', port: 80, targetPort: envoyPort(web, 80), nodePort: 30000 },
    { name: 'port-81', protocol: 'TCP', port: 81, targetPort: envoyPort(wider, 81, [stored]) },
  ]);

  const clusterIp = plan('apps/web', state([gateway('web', {}, 'ours', { 'envoy-ingress.io/service-type': 'ClusterIP' })], [stored]));
  if (clusterIp.action !== 'update') return t.fail(clusterIp.action);
  t.is(clusterIp.service.spec?.type, 'ClusterIP');
  t.false((clusterIp.service.spec?.ports ?? []).some((p) => 'nodePort' in p));
  t.is(clusterIp.service.spec?.clusterIP, '10.96.0.20');
});

test('the type comes from the Gateway infrastructure, the Gateway, then the class; a bad value means LoadBalancer', (t) => {
  const classed: GatewayClass = { ...ours, metadata: { name: 'ours', annotations: { 'envoy-ingress.io/service-type': 'NodePort' } } };
  const typeOf = (g: Gateway): string | undefined => {
    const s = { ...state([g]), gatewayClasses: [classed] } as ClusterState;
    const p = plan('apps/web', s);
    return p.action === 'create' ? p.service.spec?.type : undefined;
  };
  t.is(typeOf(gateway('web')), 'NodePort');
  t.is(typeOf(gateway('web', {}, 'ours', { 'envoy-ingress.io/service-type': 'ClusterIP' })), 'ClusterIP');
  t.is(typeOf(gateway('web', { infrastructure: { annotations: { 'envoy-ingress.io/service-type': 'LoadBalancer' } } }, 'ours', { 'envoy-ingress.io/service-type': 'ClusterIP' })), 'LoadBalancer');
  t.is(typeOf(gateway('web', {}, 'ours', { 'envoy-ingress.io/service-type': 'Bogus' })), 'LoadBalancer');
});

test('spec.addresses IPAddress is asked of the load balancer', (t) => {
  const p = plan('apps/web', state([gateway('web', { addresses: [{ type: 'IPAddress', value: '10.250.9.7' }] })]));
  t.is(p.action === 'create' ? p.service.spec?.loadBalancerIP : undefined, '10.250.9.7');
});

test("with the load balancer's addresses known, only a usable one is asked for; an empty value asks for none", (t) => {
  const known = { ...settings, loadBalancerAddresses: ['10.251.0.198', '10.251.0.199'] };
  const asked = (addresses: { type?: string; value?: string }[]): string | undefined => {
    const p = planGatewayService('apps/web', gatewayServiceView(state([gateway('web', { addresses })]), known), known);
    return p.action === 'create' ? p.service.spec?.loadBalancerIP : 'no create';
  };
  t.is(asked([{ value: '10.252.0.1' }, { type: 'IPAddress', value: '10.251.0.199' }]), '10.251.0.199');
  t.is(asked([{ value: '10.252.0.1' }]), undefined);
  t.is(asked([{ type: 'IPAddress' }]), undefined);
  // Unknown addresses (no list): the first IP is asked for, as before.
  const unknown = plan('apps/web', state([gateway('web', { addresses: [{ value: '10.252.0.1' }] })]));
  t.is(unknown.action === 'create' ? unknown.service.spec?.loadBalancerIP : 'no create', '10.252.0.1');
});

test('a Gateway with a parametersRef (InvalidParameters: no parameters kind is read) gets no Service', (t) => {
  const refused = gateway('web', { infrastructure: { parametersRef: { group: 'invalid.io', kind: 'InvalidParameters', name: 'invalid' } } });
  t.is(plan('apps/web', state([refused])).action, 'none');
  t.is(plan('apps/web', state([gateway('web', { infrastructure: { labels: { key2: 'value2' } } })])).action, 'create');
});

test("a Gateway that goes (or leaves our class) has its Service deleted, with the Service's uid as precondition", (t) => {
  const created = plan('apps/web', state([gateway('web')]));
  if (created.action !== 'create') return t.fail();
  const stored: Service = { ...created.service, metadata: { ...created.service.metadata, uid: 'u1', resourceVersion: '9' } };
  t.deepEqual(plan('apps/web', state([], [stored])), { action: 'delete', name: stored.metadata.name, uid: 'u1', resourceVersion: '9' });
  t.deepEqual(plan('apps/web', state([gateway('web', {}, 'theirs')], [stored])).action, 'delete');
  // A Service that is not managed (no label) is never touched.
  const foreign: Service = { ...stored, metadata: { ...stored.metadata, labels: {} } };
  t.deepEqual(viewKeys(gatewayServiceView(state([], [foreign]), settings)), []);
});

test('a ListenerSet the Gateway takes adds its listener ports to the Gateway\'s Service; one it does not take adds none', (t) => {
  const web = gateway('web', { allowedListeners: { namespaces: { from: 'Same' } } });
  const set = (name: string, namespace: string, port: number): ListenerSet => ({
    kind: 'ListenerSet',
    metadata: { name, namespace },
    spec: { parentRef: { name: 'web', namespace: 'apps' }, listeners: [{ name: 'extra', port, protocol: 'HTTP' }] },
  });
  const s = { ...state([web]), listenerSets: [set('taken', 'apps', 81), set('refused', 'other', 82)] } as ClusterState;
  const p = plan('apps/web', s);
  if (p.action !== 'create') return t.fail(p.action);
  t.deepEqual(p.service.spec?.ports?.map((port) => port.port), [80, 81, 8080]);
});

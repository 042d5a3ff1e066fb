import test from 'ava';
import { syntheticCluster, syntheticIngress, seededRandom, syntheticSecret } from '../../bench/synthetic-cluster.js';
import { benchReconcileOptions } from '../../bench/translation-scale.js';
import { createTestCA } from '../../test/harness/test-certs.js';
import type { SnapshotUpdate } from '../../xds/snapshot-cache.js';
import { buildConfig, fullUpdate } from './build-config.js';
import type { ClusterState, Ingress, Secret } from '../translate/shared/kube-objects.js';
import { ConfigBuilder, type IncrementalBuild } from './config-builder.js';

const ca = await createTestCA({ commonName: 'build-config test CA' });
const certA = await ca.issue({ dnsNames: ['*.bench.test'] });
const certB = await ca.issue({ dnsNames: ['*.bench.test'] });
const otherNames = await ca.issue({ dnsNames: ['elsewhere.test'] });
const pem = (c: { certPem: string; keyPem: string }) => ({ certPem: c.certPem, keyPem: c.keyPem });

/** 30 Ingresses, every 10th with a TLS host: Secrets tls-0, tls-10, tls-20. */
function baseState(): ClusterState {
  return syntheticCluster({ ingresses: 30, tls: pem(certA), endpointsPerService: 2 });
}

function withSecrets(state: ClusterState, secrets: readonly Secret[]): ClusterState {
  return { ...state, secrets };
}

function replaceSecret(state: ClusterState, secret: Secret): ClusterState {
  return withSecrets(state, state.secrets.map((s) => (s.metadata.name === secret.metadata.name ? secret : s)));
}

function builder(): { builder: ConfigBuilder; updates: SnapshotUpdate[] } {
  const updates: SnapshotUpdate[] = [];
  return { builder: new ConfigBuilder(benchReconcileOptions), updates };
}

test('a certificate-only Secret change rebuilds only SDS, and matches what a full build gives', (t) => {
  const { builder: b, updates } = builder();
  const state = baseState();
  const first = b.build(state, (u) => updates.push(u));
  t.is(first.built.kind, 'full');
  t.deepEqual(Object.keys(first.built.update).sort(), ['cluster', 'clusterLoadAssignment', 'extensionConfig', 'listener', 'routeConfiguration', 'secret', 'virtualHost']);

  const changed = replaceSecret(state, syntheticSecret(10, pem(certB)));
  const { built } = b.build(changed, (u) => updates.push(u));
  t.is(built.kind, 'secrets');
  t.deepEqual(Object.keys(built.update), ['secret']);

  const full = buildConfig(changed, benchReconcileOptions);
  t.deepEqual(built.update.secret, full.resources.secrets);
  t.deepEqual(built.translation.ir, full.translation.ir);
  t.deepEqual(built.translation.diagnostics, full.translation.diagnostics);
  t.deepEqual([...built.endpoints], [...full.endpoints]);
  const sds = built.update.secret!.find((s) => s.name === 'bench/tls-10')!;
  t.true(JSON.stringify(sds.resource).includes(JSON.stringify(certB.certPem).slice(1, 60)));
  // Unchanged Secrets are handed back as the same JSON objects, so the cache does not encode them again.
  const before = first.built.update.secret!.find((s) => s.name === 'bench/tls-20')!;
  t.is(built.update.secret!.find((s) => s.name === 'bench/tls-20')!.resource, before.resource);
});

/** What the cache holds after these updates: each type as the last update that carried it left it. */
function published(updates: readonly SnapshotUpdate[]): SnapshotUpdate {
  return Object.assign({}, ...updates) as SnapshotUpdate;
}

/** The names and JSON of every type, sorted by name. */
function sortedResources(update: SnapshotUpdate): string {
  const out: Record<string, unknown> = {};
  for (const [kind, list] of Object.entries(withoutEncoders(update)).sort(([a], [b]) => (a < b ? -1 : 1))) out[kind] = [...list].sort((a, b) => (a.name < b.name ? -1 : 1));
  return JSON.stringify(out);
}

test('a Secret change that can change a TLS outcome is a routes build: the Ingresses naming it are translated again, and the resources equal a full build', (t) => {
  const cases: [string, (s: ClusterState) => ClusterState, boolean][] = [
    ['becomes invalid', (s) => replaceSecret(s, { ...syntheticSecret(10, pem(certA)), type: 'Opaque' }), true],
    ['names other hosts', (s) => replaceSecret(s, syntheticSecret(10, pem(otherNames))), true],
    ['is deleted', (s) => withSecrets(s, s.secrets.filter((x) => x.metadata.name !== 'tls-10')), true],
    // Nothing names tls-11: nothing to translate, and SDS stays as it was.
    ['is created, named by nobody', (s) => withSecrets(s, [...s.secrets, syntheticSecret(11, pem(certA))]), false],
  ];
  for (const [label, change, sdsChanged] of cases) {
    const { builder: b, updates } = builder();
    const state = baseState();
    b.build(state, (u) => updates.push(u));
    const next = change(state);
    const { built } = b.build(next, (u) => updates.push(u));
    t.is(built.kind, 'routes', label);
    t.is('secret' in built.update, sdsChanged, label);
    const full = buildConfig(next, benchReconcileOptions);
    t.deepEqual(built.translation.diagnostics, full.translation.diagnostics, label);
    t.is(sortedResources(published(updates)), sortedResources(fullUpdate(full.resources)), label);
  }
});

test('a TLS Ingress created with its Secret, then its Secret rotated and deleted, are routes builds equal to full builds', (t) => {
  const { builder: b, updates } = builder();
  let state = baseState();
  b.build(state, (u) => updates.push(u));
  const steps: [string, (s: ClusterState) => ClusterState, IncrementalBuild['kind']][] = [
    // The Secret first (nobody names it yet), then the Ingress naming it: a new TLS chain, its SDS and redirect.
    ['Secret created', (s) => withSecrets(s, [...s.secrets, syntheticSecret(30, pem(certA))]), 'routes'],
    ['TLS Ingress created', (s) => ({ ...s, ingresses: [...s.ingresses, syntheticIngress(30, seededRandom(30), true)] }), 'routes'],
    // Same names, other bytes: only SDS.
    ['Secret rotated', (s) => replaceSecret(s, syntheticSecret(30, pem(certB))), 'secrets'],
    ['Secret named by other hosts', (s) => replaceSecret(s, syntheticSecret(30, pem(otherNames))), 'routes'],
    ['Secret deleted', (s) => withSecrets(s, s.secrets.filter((x) => x.metadata.name !== 'tls-30')), 'routes'],
    ['Secret created again, with an Ingress change', (s) => ({ ...withSecrets(s, [...s.secrets, syntheticSecret(30, pem(certA))]), ingresses: s.ingresses.map((ing, i) => (i === 3 ? syntheticIngress(3, seededRandom(7), false, '-x') : ing)) }), 'routes'],
    ['TLS Ingress deleted', (s) => ({ ...s, ingresses: s.ingresses.filter((ing) => ing.metadata.name !== syntheticIngress(30, seededRandom(30), true).metadata.name) }), 'routes'],
  ];
  for (const [label, change, kind] of steps) {
    state = change(state);
    const { built } = b.build(state, (u) => updates.push(u));
    t.is(built.kind, kind, label);
    const full = buildConfig(state, benchReconcileOptions);
    t.deepEqual(built.translation.ir, full.translation.ir, label);
    t.deepEqual(built.translation.diagnostics, full.translation.diagnostics, label);
    t.is(sortedResources(published(updates)), sortedResources(fullUpdate(full.resources)), label);
  }
  const listeners = (u: SnapshotUpdate): string[] => (u.listener ?? []).map((l) => JSON.stringify(l.resource));
  // The TLS Ingress's creation rebuilt the https listener (a new chain) and sent its certificate.
  const created = updates[2]!;
  t.true(listeners(created).some((l) => l.includes('https/') && l.includes(syntheticIngress(30, seededRandom(30), true).spec!.tls![0]!.hosts![0]!)));
  t.true((created.secret ?? []).some((s) => s.name === 'bench/tls-30'));
});

test('a Secret an ingress-nginx annotation may name, or the default certificate (a TLS entry without hosts), is not spliced', (t) => {
  const options = { ...benchReconcileOptions, translate: { ...benchReconcileOptions.translate, nginxAnnotations: true } };
  const withIngress = (s: ClusterState, at: number, edit: (ingress: Ingress) => void): ClusterState => {
    const ingress = structuredClone(s.ingresses[at]!);
    edit(ingress);
    return { ...s, ingresses: s.ingresses.map((x, i) => (i === at ? ingress : x)) };
  };
  const cases: [string, (s: ClusterState) => ClusterState][] = [
    ['auth-secret', (s) => withIngress(s, 4, (ing) => (ing.metadata.annotations = { 'nginx.ingress.kubernetes.io/auth-type': 'basic', 'nginx.ingress.kubernetes.io/auth-secret': 'tls-10' }))],
    ['default certificate', (s) => withIngress(s, 4, (ing) => (ing.spec!.tls = [{ secretName: 'tls-10' }]))],
  ];
  for (const [label, setUp] of cases) {
    const b = new ConfigBuilder(options);
    const state = setUp(baseState());
    b.build(state, () => undefined);
    const next = replaceSecret(state, { ...syntheticSecret(10, pem(certA)), type: 'Opaque' });
    const { built } = b.build(next, () => undefined);
    t.is(built.kind, 'full', label);
    t.deepEqual(built.translation.diagnostics, buildConfig(next, options).translation.diagnostics, label);
  }
});

test('a build the cache refused is not the base of the next one', (t) => {
  const { builder: b } = builder();
  const state = baseState();
  b.build(state, () => undefined);
  const refused = { ...state, ingresses: state.ingresses.slice(1) };
  t.throws(() =>
    b.build(refused, () => {
      throw new Error('refused');
    }),
  );
  // Relative to the refused state only a Secret changed, but the last published build had all Ingresses.
  const next = replaceSecret(refused, syntheticSecret(10, pem(certB)));
  const { built } = b.build(next, () => undefined);
  t.is(built.kind, 'full');
  t.deepEqual(withoutEncoders(built.update), withoutEncoders(fullUpdate(buildConfig(next, benchReconcileOptions).resources)));
});

/** The names and JSON of an update (the encoders virtual hosts carry are closures, equal only to themselves). */
function withoutEncoders(update: SnapshotUpdate): Record<string, { name: string; resource: unknown }[]> {
  return Object.fromEntries(Object.entries(update).map(([kind, list]) => [kind, list.map(({ name, resource }) => ({ name, resource }))]));
}

test('a certificate-only Secret change together with an object of a kind a secrets build does not know is a full build', (t) => {
  const { builder: b, updates } = builder();
  // A kind in the store that the kind table (and so the secrets build) does not have yet.
  const withWidget = (state: ClusterState, version: string): ClusterState =>
    ({ ...state, widgets: [{ kind: 'Widget', metadata: { name: 'w', namespace: 'bench', resourceVersion: version } }] }) as ClusterState;
  const state = withWidget(baseState(), '1');
  b.build(state, (u) => updates.push(u));
  const changed = withWidget(replaceSecret(state, syntheticSecret(10, pem(certB))), '2');
  t.is(b.build(changed, (u) => updates.push(u)).built.kind, 'full');
  // The certificate change alone is still a secrets build.
  t.is(b.build(replaceSecret(changed, syntheticSecret(10, pem(certA))), (u) => updates.push(u)).built.kind, 'secrets');
});

test('an Ingress change and a backend Service change are routes builds equal to a full build, with or without a GatewayClass of ours', (t) => {
  const ours = { kind: 'GatewayClass' as const, metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } };
  const theirs = { kind: 'GatewayClass' as const, metadata: { name: 'other' }, spec: { controllerName: 'example.com/other-controller' } };
  const theirGateway = { kind: 'Gateway' as const, metadata: { name: 'edge', namespace: 'bench' }, spec: { gatewayClassName: 'other', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } };
  // Another controller's route, on a host and a Service of the Ingresses (svc-0).
  const theirRoute = {
    kind: 'HTTPRoute' as const,
    metadata: { name: 'shop', namespace: 'bench' },
    spec: { parentRefs: [{ name: 'edge' }], hostnames: ['app-0-0.bench.test'], rules: [{ backendRefs: [{ name: 'svc-0', port: 80 }] }] },
  };
  const change = (s: ClusterState): ClusterState => ({ ...s, ingresses: s.ingresses.map((x, i) => (i === 0 ? syntheticIngress(0, seededRandom(7), false, '-changed') : x)) });
  const changeService = (s: ClusterState): ClusterState => ({ ...s, services: s.services.map((x, i) => (i === 0 ? { ...x, spec: { ports: [{ name: 'http', port: 80, targetPort: 8081, protocol: 'TCP' }] } } : x)) });
  // With a GatewayClass of ours, a backend Service's change is a routes build too: the Gateway API translation
  // remakes the routes naming it (route-work.ts servicesChanged; a managed Gateway Service's change is full).
  for (const [label, extra, kinds] of [
    ['no Gateway API objects', {}, ['routes', 'routes']],
    ['another controller\'s GatewayClass, Gateway and HTTPRoute', { gatewayClasses: [theirs], gateways: [theirGateway], httpRoutes: [theirRoute] }, ['routes', 'routes']],
    ['a GatewayClass of ours', { gatewayClasses: [ours] }, ['routes', 'routes']],
    ['a GatewayClass of ours beside another controller\'s objects', { gatewayClasses: [theirs, ours], gateways: [theirGateway], httpRoutes: [theirRoute] }, ['routes', 'routes']],
  ] as const) {
    for (const [what, edit, kind] of [['Ingress', change, kinds[0]], ['Service', changeService, kinds[1]]] as const) {
      const { builder: b, updates } = builder();
      const state: ClusterState = { ...baseState(), ...extra };
      b.build(state, (u) => updates.push(u));
      const next = edit(state);
      const { built } = b.build(next, (u) => updates.push(u));
      t.is(built.kind, kind, `${label}, ${what} changed`);
      const full = buildConfig(next, benchReconcileOptions);
      t.deepEqual(built.translation.diagnostics, full.translation.diagnostics, `${label}, ${what} changed`);
      t.is(sortedResources(published(updates)), sortedResources(fullUpdate(full.resources)), `${label}, ${what} changed`);
    }
  }
  // Another controller's HTTPRoute going with an Ingress change: a routes build (HTTPRoutes are), equal to a full
  // build; its Gateway going is a full build (the splices do not know Gateways).
  const { builder: b, updates } = builder();
  const state: ClusterState = { ...baseState(), gatewayClasses: [theirs], gateways: [theirGateway], httpRoutes: [theirRoute] };
  b.build(state, (u) => updates.push(u));
  const next = change({ ...state, httpRoutes: [] });
  t.is(b.build(next, (u) => updates.push(u)).built.kind, 'routes');
  t.is(sortedResources(published(updates)), sortedResources(fullUpdate(buildConfig(next, benchReconcileOptions).resources)));
  t.is(b.build(change({ ...next, gateways: [] }), (u) => updates.push(u)).built.kind, 'full');
});

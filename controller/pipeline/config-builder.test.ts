import test from 'ava';
import { syntheticCluster, syntheticIngress, seededRandom, syntheticSecret } from '../../bench/synthetic-cluster.js';
import { benchReconcileOptions } from '../../bench/translation-scale.js';
import { createTestCA } from '../../test/harness/test-certs.js';
import type { SnapshotUpdate } from '../../xds/snapshot-cache.js';
import { buildConfig, fullUpdate } from './build-config.js';
import type { ClusterState, Secret } from '../translate/kube-objects.js';
import { ConfigBuilder } from './config-builder.js';

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
  t.deepEqual(Object.keys(first.built.update).sort(), ['cluster', 'clusterLoadAssignment', 'listener', 'routeConfiguration', 'secret', 'virtualHost']);

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

test('a Secret change that can change a TLS outcome is a full build', (t) => {
  const cases: [string, (s: ClusterState) => ClusterState][] = [
    ['becomes invalid', (s) => replaceSecret(s, { ...syntheticSecret(10, pem(certA)), type: 'Opaque' })],
    ['names other hosts', (s) => replaceSecret(s, syntheticSecret(10, pem(otherNames)))],
    ['is deleted', (s) => withSecrets(s, s.secrets.filter((x) => x.metadata.name !== 'tls-10'))],
    ['is created', (s) => withSecrets(s, [...s.secrets, syntheticSecret(11, pem(certA))])],
  ];
  for (const [label, change] of cases) {
    const { builder: b } = builder();
    const state = baseState();
    b.build(state, () => undefined);
    const next = change(state);
    const { built } = b.build(next, () => undefined);
    t.is(built.kind, 'full', label);
    t.deepEqual(built.translation.diagnostics, buildConfig(next, benchReconcileOptions).translation.diagnostics, label);
  }
});

test('an Ingress change next to a Secret change is a full build', (t) => {
  const { builder: b } = builder();
  const state = baseState();
  b.build(state, () => undefined);
  const next = replaceSecret({ ...state, ingresses: state.ingresses.map((ing, i) => (i === 3 ? syntheticIngress(3, seededRandom(7), false, '-x') : ing)) }, syntheticSecret(10, pem(certB)));
  t.is(b.build(next, () => undefined).built.kind, 'full');
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

import test from 'ava';
import { buildTakes, keyNamespaceOf, kindNames, kindTable, namespaceOf, stateFieldsTakenBy } from './kinds.js';
import type { ClusterState } from './kube-objects.js';
import { objectsOf } from './kube-objects.js';
import { unchangedBeyond } from './unchanged-inputs.js';

const empty: ClusterState = { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], endpoints: [], secrets: [] };

test('each build takes the changes the cheaper builds take, and a full build takes every kind', (t) => {
  t.deepEqual(kindNames.filter((kind) => buildTakes('endpoints', kind)), ['EndpointSlice', 'Endpoints']);
  t.deepEqual(kindNames.filter((kind) => buildTakes('secrets', kind)), ['EndpointSlice', 'Endpoints', 'Secret']);
  t.deepEqual(kindNames.filter((kind) => buildTakes('routes', kind)), ['Ingress', 'Service', 'EndpointSlice', 'Endpoints', 'Secret', 'HTTPRoute']);
  t.deepEqual(kindNames.filter((kind) => buildTakes('full', kind)), kindNames);
  t.deepEqual([...stateFieldsTakenBy('secrets')], ['endpointSlices', 'endpoints', 'secrets']);
});

test('every kind has its own state field, and ClusterState lists exactly those', (t) => {
  const fields = kindNames.map((kind) => kindTable[kind].state);
  t.is(new Set(fields).size, fields.length);
  // The required kinds are the fields of a minimal state; the optional ones may be absent.
  t.deepEqual(kindNames.filter((kind) => !kindTable[kind].optional).map((kind) => kindTable[kind].state), Object.keys(empty));
});

test('an object without a namespace is in "default"; the store keys a cluster-scoped kind by ""', (t) => {
  t.is(namespaceOf({}), 'default');
  t.is(namespaceOf({ namespace: 'shop' }), 'shop');
  t.is(keyNamespaceOf('Service', {}), 'default');
  t.is(keyNamespaceOf('IngressClass', { namespace: 'ignored' }), '');
});

test('objectsOf reads a kind\'s list, and an absent optional list as none', (t) => {
  t.deepEqual(objectsOf(empty, 'ConfigMap'), []);
  const configMap = { kind: 'ConfigMap' as const, metadata: { name: 'c', namespace: 'x' } };
  t.deepEqual(objectsOf({ ...empty, configMaps: [configMap] }, 'ConfigMap'), [configMap]);
});

test('unchangedBeyond: changes a build takes are allowed, any other (a global kind, a list no kind names) is not; absent equals empty', (t) => {
  const secret = { kind: 'Secret' as const, metadata: { name: 's', namespace: 'x' } };
  const ingressClass = { kind: 'IngressClass' as const, metadata: { name: 'c' } };
  t.true(unchangedBeyond('secrets', empty, { ...empty, secrets: [secret] }));
  t.false(unchangedBeyond('secrets', empty, { ...empty, services: [{ kind: 'Service', metadata: { name: 'a', namespace: 'x' } }] }));
  t.true(unchangedBeyond('routes', empty, { ...empty, services: [{ kind: 'Service', metadata: { name: 'a', namespace: 'x' } }] }));
  t.false(unchangedBeyond('routes', empty, { ...empty, ingressClasses: [ingressClass] }));
  t.true(unchangedBeyond('routes', empty, { ...empty, configMaps: [] }));
  t.false(unchangedBeyond('routes', empty, { ...empty, widgets: [{ kind: 'Widget' }] } as ClusterState));
  t.true(unchangedBeyond('routes', { ...empty, widgets: [] } as ClusterState, empty));
});

import test from 'ava';
import { ObjectStore, type StoreChange } from './store.js';
import type { ClusterState, IngressClass, KubeObject, Service } from './translate/shared/kube-objects.js';

function service(name: string, port = 80, extra: Partial<Service['metadata']> = {}): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', ...extra }, spec: { ports: [{ name: 'http', port }] } };
}

const ingressClass: IngressClass = { kind: 'IngressClass', metadata: { name: 'envoy' }, spec: { controller: 'x' } };

/** Records every change batch the store emits. */
function record(store: ObjectStore): StoreChange[][] {
  const batches: StoreChange[][] = [];
  store.on('change', (changes) => batches.push(changes));
  return batches;
}

const summary = (batches: StoreChange[][]): string[][] =>
  batches.map((b) => b.map((c) => `${c.type} ${c.kind} ${c.namespace}/${c.name}`));

test('upsert of a new object emits one "added" change', (t) => {
  const store = new ObjectStore();
  const batches = record(store);
  store.upsert(service('web'));
  t.deepEqual(summary(batches), [['added Service default/web']]);
  t.is(batches[0]?.[0]?.previous, undefined);
  t.is(store.get('Service', 'default', 'web')?.metadata.name, 'web');
});

test('upsert of changed content emits "modified" with the previous version', (t) => {
  const store = new ObjectStore();
  const first = service('web', 80);
  store.upsert(first);
  const batches = record(store);
  const second = service('web', 8080);
  store.upsert(second);
  t.deepEqual(summary(batches), [['modified Service default/web']]);
  t.is(batches[0]?.[0]?.previous, first);
  t.is(batches[0]?.[0]?.object, second);
});

test('upsert that changes only resourceVersion (or managedFields) emits nothing, but stores the newer object', (t) => {
  const store = new ObjectStore();
  store.upsert(service('web', 80, { resourceVersion: '1' }));
  const batches = record(store);
  const newer = service('web', 80, { resourceVersion: '2' });
  store.upsert(newer);
  t.deepEqual(batches, []);
  t.is(store.get('Service', 'default', 'web'), newer);
});

test('delete emits "deleted" with the last version; deleting what is not there emits nothing', (t) => {
  const store = new ObjectStore();
  const web = service('web');
  store.upsert(web);
  const batches = record(store);
  store.delete('Service', 'default', 'nope');
  store.delete('Service', 'other', 'web');
  t.deepEqual(batches, []);
  store.delete('Service', 'default', 'web');
  t.deepEqual(summary(batches), [['deleted Service default/web']]);
  t.is(batches[0]?.[0]?.object, web);
  t.is(batches[0]?.[0]?.previous, web);
  t.is(store.count('Service'), 0);
});

test('cluster-scoped objects are keyed with an empty namespace', (t) => {
  const store = new ObjectStore();
  const batches = record(store);
  store.upsert(ingressClass);
  t.is(store.get('IngressClass', '', 'envoy'), ingressClass);
  store.delete('IngressClass', '', 'envoy');
  t.deepEqual(summary(batches), [['added IngressClass /envoy'], ['deleted IngressClass /envoy']]);
});

test('replace emits one batch with what was added, modified and deleted, and returns it', (t) => {
  const store = new ObjectStore();
  store.replace(['Service'], [service('keep'), service('change', 80), service('drop')]);
  const batches = record(store);
  const changes = store.replace(['Service'], [service('keep'), service('change', 81), service('new')]);
  t.deepEqual(summary(batches), [['modified Service default/change', 'added Service default/new', 'deleted Service default/drop']]);
  t.is(batches[0], changes);
  t.deepEqual(store.list('Service').map((s) => s.metadata.name).sort(), ['change', 'keep', 'new']);
});

test('replace with the same content emits nothing and returns no changes', (t) => {
  const store = new ObjectStore();
  store.replace(['Service', 'IngressClass'], [service('a'), ingressClass]);
  const batches = record(store);
  t.deepEqual(store.replace(['Service', 'IngressClass'], [service('a', 80, { resourceVersion: '9' }), { ...ingressClass }]), []);
  t.deepEqual(batches, []);
});

test('replace leaves kinds it was not asked to replace alone, and skips objects of those kinds', (t) => {
  const store = new ObjectStore();
  store.upsert(ingressClass);
  store.upsert(service('web'));
  const batches = record(store);
  store.replace(['Service'], [{ ...ingressClass, spec: { controller: 'other' } } as KubeObject]);
  t.deepEqual(summary(batches), [['deleted Service default/web']]);
  t.is(store.count('IngressClass'), 1);
  t.deepEqual((store.get('IngressClass', '', 'envoy') as IngressClass).spec, { controller: 'x' }, 'IngressClass untouched');
});

test('state() lists every kind, as a snapshot of the lists', (t) => {
  const store = new ObjectStore();
  store.upsert(service('web'));
  store.upsert(ingressClass);
  const state = store.state();
  t.is(state.services.length, 1);
  t.is(state.ingressClasses.length, 1);
  t.deepEqual([state.ingresses, state.endpointSlices, state.endpoints, state.secrets], [[], [], [], []]);
  store.delete('Service', 'default', 'web');
  t.is(state.services.length, 1, 'a state taken earlier does not change under the reader');
});

test('a kind with no write since the last view is the same array; any write to it (a new object, even of the same content) gives a new one', (t) => {
  const store = new ObjectStore();
  store.upsert(service('web'));
  store.upsert(ingressClass);
  const first = store.state();
  t.is(store.state().services, first.services);
  // Writing the very same object again changes nothing.
  store.upsert(store.get('Service', 'default', 'web')!);
  t.is(store.state().services, first.services);
  // The same content in a new object (a newer resourceVersion): the list holds the new object.
  const newer = service('web', 80, { resourceVersion: '2' });
  store.upsert(newer);
  const second = store.state();
  t.not(second.services, first.services);
  t.is(second.services[0], newer);
  t.is(second.ingressClasses, first.ingressClasses, 'other kinds keep their arrays');
  store.upsert(service('api'));
  t.deepEqual(store.state().services.map((s) => s.metadata.name), ['web', 'api']);
  store.delete('Service', 'default', 'api');
  t.deepEqual(store.state().services.map((s) => s.metadata.name), ['web']);
  store.replace(['Service'], []);
  t.deepEqual(store.state().services, []);
  t.is(store.state().ingressClasses, first.ingressClasses);
});

test('update upserts and deletes as one change batch, leaving other objects untouched', (t) => {
  const store = new ObjectStore();
  const svc = (name: string, port: number) => ({ kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ port }] } }) as KubeObject;
  store.replace(['Service'], [svc('keep', 80), svc('edit', 80), svc('drop', 80)]);
  const batches: StoreChange[][] = [];
  store.on('change', (c: StoreChange[]) => batches.push(c));
  store.update([svc('edit', 81), svc('add', 80)], [svc('drop', 80)]);
  t.deepEqual(batches.map((b) => b.map((c) => `${c.type} ${c.name}`)), [['deleted drop', 'modified edit', 'added add']]);
  t.deepEqual(store.list('Service').map((s) => s.metadata.name).sort(), ['add', 'edit', 'keep']);
});

test('a namespaced object written without a namespace is in "default", as the translator reads it', (t) => {
  const store = new ObjectStore();
  const batches = record(store);
  const { namespace: _none, ...metadata } = service('web').metadata;
  store.upsert({ ...service('web'), metadata });
  t.deepEqual(summary(batches), [['added Service default/web']]);
  t.is(store.get('Service', 'default', 'web')?.metadata.name, 'web');
  store.delete('Service', 'default', 'web');
  t.is(store.count('Service'), 0);
});

const routesOf = (state: ClusterState): readonly KubeObject[] => state.httpRoutes ?? [];

test('buildState keeps the copy builds saw of a Gateway API object whose status alone changed, while state/get/list have the newest', (t) => {
  const store = new ObjectStore();
  const route = (status: object, hostnames: string[], resourceVersion: string) =>
    ({ kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'default', generation: 1, resourceVersion }, spec: { parentRefs: [{ name: 'gw' }], hostnames }, status }) as unknown as KubeObject;
  const first = route({}, ['a.test'], '1');
  store.upsert(first);
  store.upsert(service('web'));
  const built = store.buildState();
  // Our status write coming back (twice), and a resourceVersion-only bump.
  for (const [i, status] of [{ parents: [{ controllerName: 'x' }] }, { parents: [] }, { parents: [] }].entries()) store.upsert(route(status, ['a.test'], String(i + 2)));
  const newest = store.get('HTTPRoute', 'default', 'r');
  t.is(newest?.metadata.resourceVersion, '4');
  t.is(routesOf(store.state())[0], newest);
  t.is(store.list('HTTPRoute')[0], newest);
  t.is(routesOf(store.buildState()), routesOf(built), 'the same list for builds');
  t.is(routesOf(store.buildState())[0], first);
  // Other kinds are not held back (builds may read a Service's status): a resourceVersion bump gives builds the new one.
  const newer = service('web', 80, { resourceVersion: '9' });
  store.upsert(newer);
  t.is(store.buildState().services[0], newer);
  // A spec change reaches builds, and so does the status write after it (as the copy before it).
  const moved = route({ parents: [] }, ['b.test'], '5');
  store.upsert(moved);
  t.is(routesOf(store.buildState())[0], moved);
  store.upsert(route({ parents: [{ controllerName: 'y' }] }, ['b.test'], '6'));
  t.is(routesOf(store.buildState())[0], moved);
  // Deleted and created again: the new object.
  store.delete('HTTPRoute', 'default', 'r');
  t.deepEqual(routesOf(store.buildState()), []);
  const again = route({}, ['b.test'], '7');
  store.upsert(again);
  t.is(routesOf(store.buildState())[0], again);
  // A relist with a status-only difference keeps it too; one without the object drops it.
  store.replace(['HTTPRoute'], [route({ parents: [] }, ['b.test'], '8')]);
  t.is(routesOf(store.buildState())[0], again);
  store.replace(['HTTPRoute'], []);
  t.deepEqual(routesOf(store.buildState()), []);
});

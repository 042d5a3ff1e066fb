import test from 'ava';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { isSupportedKind, normalizeObject } from './normalize.js';

test('a client-node object (class instances, Date timestamps) becomes plain data with RFC 3339 strings', (t) => {
  // What @kubernetes/client-node hands a watcher: model classes, creationTimestamp parsed into a Date.
  const fromClient: unknown = ObjectSerializer.deserialize(
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: {
        name: 'web',
        namespace: 'shop',
        creationTimestamp: '2024-05-06T07:08:09Z',
        managedFields: [{ manager: 'kubectl', operation: 'Apply', time: '2024-05-06T07:08:09Z' }],
      },
      spec: { rules: [{ host: 'a.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
    },
    'V1Ingress',
    '',
  );
  t.true((fromClient as { metadata: { creationTimestamp: unknown } }).metadata.creationTimestamp instanceof Date, 'precondition: a Date');
  const result = normalizeObject(fromClient);
  if (!result.ok) return t.fail(JSON.stringify(result));
  t.is(result.object.metadata.creationTimestamp, '2024-05-06T07:08:09Z', 'the string the API server sent');
  t.false('managedFields' in result.object.metadata);
  // Plain data all the way down: comparable with what a manifest gives, and safe to JSON-compare in the store.
  t.is(Object.getPrototypeOf(result.object), Object.prototype);
  t.is(Object.getPrototypeOf(result.object.metadata), Object.prototype);
  t.deepEqual(JSON.parse(JSON.stringify(result.object)), result.object);
});

test('a Date with milliseconds keeps them', (t) => {
  const result = normalizeObject({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', creationTimestamp: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)) } });
  if (!result.ok) return t.fail();
  t.is(result.object.metadata.creationTimestamp, '2024-01-02T03:04:05.678Z');
});

test('the input is not mutated', (t) => {
  const raw = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { a: 'b' } };
  const copy = structuredClone(raw);
  normalizeObject(raw);
  t.deepEqual(raw, copy);
});

test('missing apiVersion is accepted for kinds we read', (t) => {
  t.true(normalizeObject({ kind: 'Service', metadata: { name: 's' } }).ok);
});

test('isSupportedKind knows exactly the kinds the translator reads', (t) => {
  for (const k of ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Endpoints', 'Secret']) t.true(isSupportedKind(k), k);
  for (const k of ['Deployment', 'List', 'toString', '__proto__', 42]) t.false(isSupportedKind(k), String(k));
});

test('a Namespace keeps its name and labels only: its phase or annotations changing is no change', (t) => {
  const result = normalizeObject({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'shop', resourceVersion: '7', labels: { tenant: 'shop' }, annotations: { note: 'x' }, managedFields: [{}] },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  t.deepEqual(result, { ok: true, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', resourceVersion: '7', labels: { tenant: 'shop' } } } });
});

import test from 'ava';
import fc from 'fast-check';
import type { KubeObject } from '../translate/shared/kube-objects.js';
import { ManifestMerge, objectId, type ManifestFileObjects, type MergeOutcome } from './manifest-merge.js';

function service(name: string, version = 0): KubeObject {
  return { kind: 'Service', metadata: { name, namespace: 'default', resourceVersion: String(version) } } as KubeObject;
}

function fileOf(file: string, objects: KubeObject[]): ManifestFileObjects {
  return { file, objects, documents: objects.map((_, i) => i) };
}

/** What a store holds after the outcome (id -> object), as replace or update would leave it. */
function applyTo(store: Map<string, KubeObject>, outcome: MergeOutcome): void {
  if (outcome.kind === 'all') {
    store.clear();
    for (const obj of outcome.objects) store.set(objectId(obj), obj);
    return;
  }
  for (const obj of outcome.deletes) store.delete(objectId(obj));
  for (const obj of outcome.upserts) store.set(objectId(obj), obj);
}

test('an edit of one file among many hands over only that file\'s objects', (t) => {
  const merge = new ManifestMerge();
  const big = fileOf('a.yaml', Array.from({ length: 1000 }, (_, i) => service(`s${i}`)));
  const edited = fileOf('b.yaml', [service('new'), service('other')]);
  t.is(merge.merge([big, fileOf('b.yaml', [service('new'), service('gone')])]).kind, 'all');
  const outcome = merge.merge([big, edited]);
  t.deepEqual(outcome.kind === 'changed' ? { upserts: outcome.upserts.map(objectId), deletes: outcome.deletes.map(objectId) } : outcome, {
    upserts: ['Service default/new', 'Service default/other'],
    deletes: ['Service default/gone'],
  });
});

test('an object defined in two files, or moved between files, is merged over the whole directory (first file wins)', (t) => {
  const merge = new ManifestMerge();
  const a = fileOf('a.yaml', [service('x')]);
  merge.merge([a, fileOf('b.yaml', [])]);
  const twice = merge.merge([a, fileOf('b.yaml', [service('x', 1)])]);
  t.is(twice.kind, 'all');
  t.deepEqual(twice.kind === 'all' ? twice.duplicates.map((p) => p.message) : [], ['Service default/x is also defined in a.yaml; that definition is used']);
  t.is(merge.merge([fileOf('a.yaml', []), fileOf('b.yaml', [service('x', 1)])]).kind, 'all');
});

test('any sequence of edits leaves the store as a whole merge of the directory would (property)', (t) => {
  const names = ['p', 'q', 'r', 's'];
  const edit = fc.record({ file: fc.integer({ min: 0, max: 3 }), objects: fc.uniqueArray(fc.constantFrom(...names), { maxLength: 3 }), version: fc.nat(3) });
  fc.assert(
    fc.property(fc.array(edit, { minLength: 1, maxLength: 12 }), (edits) => {
      const merge = new ManifestMerge();
      const files: (ManifestFileObjects | undefined)[] = [undefined, undefined, undefined, undefined];
      const store = new Map<string, KubeObject>();
      for (const e of edits) {
        // An empty edit removes the file; the others replace its objects (new objects, as a re-parse makes).
        files[e.file] = e.objects.length === 0 ? undefined : fileOf(`f${e.file}.yaml`, e.objects.map((n) => service(n, e.version)));
        const present = files.filter((f): f is ManifestFileObjects => f !== undefined);
        applyTo(store, merge.merge(present));
        const whole = new ManifestMerge().merge(present);
        const expected = new Map((whole.kind === 'all' ? whole.objects : []).map((obj) => [objectId(obj), obj]));
        if (store.size !== expected.size || [...expected].some(([id, obj]) => store.get(id) !== obj)) return false;
      }
      return true;
    }),
    { numRuns: 500 },
  );
  t.pass();
});

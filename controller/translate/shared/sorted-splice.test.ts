import test from 'ava';
import fc from 'fast-check';
import { compareStrings } from '../../../ir/index.js';
import { spliceSorted, type SortedOrder } from './sorted-splice.js';

interface Entry {
  key: string;
  id: number;
}
const order: SortedOrder<Entry, string> = { keyOf: (e) => e.key, compare: compareStrings };

/** What the splice replaces: filter every entry, then a stable sort (entries of the list before added ones). */
function byFilterAndSort(list: readonly Entry[], removed: ReadonlySet<string>, added: readonly Entry[]): Entry[] {
  const kept = list.filter((e) => !removed.has(e.key));
  return [...kept, ...added].sort((a, b) => compareStrings(a.key, b.key));
}

const keyArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');

test('spliceSorted gives what filtering the whole list and merging gives, and reports what it took out', (t) => {
  fc.assert(
    fc.property(fc.array(keyArb, { maxLength: 30 }), fc.uniqueArray(keyArb), fc.array(keyArb, { maxLength: 6 }), (listKeys, removedKeys, addedKeys) => {
      const list = [...listKeys].sort(compareStrings).map((key, id) => ({ key, id }));
      const added = addedKeys.map((key, i) => ({ key, id: 1000 + i }));
      const removed = new Set(removedKeys);
      const out: Entry[] = [];
      const result = spliceSorted(list, order, removed, added, out);
      t.deepEqual(result, byFilterAndSort(list, removed, added));
      t.deepEqual(out, list.filter((e) => removed.has(e.key)));
    }),
  );
});

test('spliceSorted compares O(changes x log n) keys, not one per entry', (t) => {
  const list = Array.from({ length: 100_000 }, (_, i) => ({ key: `host-${String(i).padStart(6, '0')}`, id: i }));
  let keyReads = 0;
  const counting: SortedOrder<Entry, string> = { keyOf: (e) => (keyReads++, e.key), compare: compareStrings };
  const result = spliceSorted(list, counting, ['host-050000'], [{ key: 'host-050000x', id: -1 }]);
  t.is(result.length, 100_000);
  t.is(result[50_000]!.key, 'host-050000x');
  t.true(keyReads < 200, `${keyReads} key reads`);
});

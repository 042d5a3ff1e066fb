// Splicing a few entries into a long sorted list by binary search: a routes build changes a handful of hosts or
// Ingresses among tens of thousands, so it finds where they go in O(changes x log n) comparisons and copies the
// runs in between, instead of comparing (and building a key for) every entry.

/** Index of the first entry of `list` whose key is not below `key`. */
function lowerBound<T, K>(list: readonly T[], key: K, keyOf: (item: T) => K, compare: (a: K, b: K) => number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(keyOf(list[mid]!), key) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Index of the first entry of `list` whose key is above `key`. */
function upperBound<T, K>(list: readonly T[], key: K, keyOf: (item: T) => K, compare: (a: K, b: K) => number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(keyOf(list[mid]!), key) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

export interface SortedOrder<T, K> {
  keyOf: (item: T) => K;
  compare: (a: K, b: K) => number;
}

/**
 * `list` (sorted by key) without the entries whose key is in `removedKeys` and with `added` merged in, as a stable
 * merge would place them (after entries of an equal key). `added` need not be sorted. The entries taken out are
 * pushed onto `removedOut` when given, in list order.
 */
export function spliceSorted<T, K>(list: readonly T[], order: SortedOrder<T, K>, removedKeys: Iterable<K>, added: readonly T[], removedOut?: T[]): T[] {
  const { keyOf, compare } = order;
  // Runs to drop, as [from, to) index pairs, in list order.
  const drops: [number, number][] = [];
  for (const key of removedKeys) {
    const from = lowerBound(list, key, keyOf, compare);
    const to = upperBound(list, key, keyOf, compare);
    if (to > from) drops.push([from, to]);
  }
  drops.sort((a, b) => a[0] - b[0]);
  const inserts = added.map((item) => ({ item, at: upperBound(list, keyOf(item), keyOf, compare) }));
  inserts.sort((a, b) => a.at - b.at || compare(keyOf(a.item), keyOf(b.item)));
  if (drops.length === 0 && inserts.length === 0) return [...list];
  const out: T[] = [];
  let next = 0;
  let d = 0;
  const copyUpTo = (end: number): void => {
    // Copies list[next, end), skipping dropped runs.
    while (next < end) {
      const drop = drops[d];
      if (drop !== undefined && drop[0] <= next) {
        for (let i = next; i < drop[1]; i++) removedOut?.push(list[i]!);
        next = Math.max(next, drop[1]);
        d += 1;
        continue;
      }
      const stop = Math.min(end, drop?.[0] ?? end);
      for (let i = next; i < stop; i++) out.push(list[i]!);
      next = stop;
    }
  };
  for (const { item, at } of inserts) {
    copyUpTo(at);
    out.push(item);
  }
  copyUpTo(list.length);
  return out;
}

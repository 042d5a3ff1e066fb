// Merging lists that are already sorted, without sorting them again: what splicing a partial result into a large
// one needs (re-sorting with a comparator that builds keys per comparison cost more than the rest of a splice).
import { compareStrings } from '../../../ir/index.js';

/**
 * Two lists sorted by `keyOf`, merged (stable: on equal keys `a` first). Re-sorting the whole list with a
 * comparator that builds key strings per comparison cost more than the rest of a splice at 10,000 Ingresses.
 */
export function mergeByKey<T>(a: readonly T[], b: readonly T[], keyOf: (item: T) => string): T[] {
  if (b.length === 0) return [...a];
  const out: T[] = [];
  let i = 0;
  let j = 0;
  let bKey = keyOf(b[0]!);
  while (i < a.length && j < b.length) {
    if (compareStrings(keyOf(a[i]!), bKey) <= 0) out.push(a[i++]!);
    else {
      out.push(b[j++]!);
      if (j < b.length) bKey = keyOf(b[j]!);
    }
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** `a` and `b` (both sorted) merged without duplicates; `a` itself when `b` adds nothing (the usual case). */
export function mergeSorted(a: string[], b: readonly string[]): string[] {
  const missing = b.filter((name) => !sortedIncludes(a, name));
  if (missing.length === 0) return a;
  return [...new Set([...a, ...missing])].sort(compareStrings);
}

export function sortedIncludes(list: readonly string[], name: string): boolean {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareStrings(list[mid]!, name) < 0) low = mid + 1;
    else high = mid;
  }
  return low < list.length && list[low] === name;
}

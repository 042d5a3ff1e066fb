// Identity comparison of object lists: the store hands out the same object for an unchanged Kubernetes object,
// so "nothing changed" is a walk of references, never a comparison of contents.
export function sameObjects<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

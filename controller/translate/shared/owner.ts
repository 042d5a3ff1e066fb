// Wording for conflict messages that name the object that won.
import type { ObjectRef } from './kube-objects.js';

/** "this Ingress" when the winner is the reporting object itself, else "Ingress ns/name, which is older". */
export function describeOwner(winner: ObjectRef, reporter: ObjectRef): string {
  if (winner.kind === reporter.kind && winner.namespace === reporter.namespace && winner.name === reporter.name) {
    return `this ${winner.kind} (earlier entry)`;
  }
  return `${winner.kind} ${winner.namespace}/${winner.name}, which is older`;
}

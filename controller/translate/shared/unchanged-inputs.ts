// Whether a cheaper-than-full build may be tried: every input it does not understand must be unchanged. Inputs are
// the state's lists; a list no kind of the table names (a kind added to the state, not yet to the table) is not
// understood by any build, so a change of it always needs a full build.
import { type Build, kindNames, kindTable, stateFieldsTakenBy } from './kinds.js';
import type { ClusterState } from './kube-objects.js';
import { sameObjects } from './same-objects.js';

const taken = new Map<Build, ReadonlySet<string>>();

/**
 * True when every list of `after` that a `build` build cannot take a change of holds the same objects as in
 * `before` (an absent list is an empty one).
 */
export function unchangedBeyond(build: Build, before: ClusterState, after: ClusterState): boolean {
  let understood = taken.get(build);
  if (understood === undefined) {
    understood = stateFieldsTakenBy(build);
    taken.set(build, understood);
  }
  return unchangedBesides(understood, before, after);
}

/**
 * True when every list of `after` but those of `fields` holds the same objects as in `before` (an absent list is an
 * empty one; a list no kind of the table names counts too).
 */
export function unchangedBesides(fields: ReadonlySet<string>, before: ClusterState, after: ClusterState): boolean {
  const a = before as Readonly<Record<string, unknown>>;
  const b = after as Readonly<Record<string, unknown>>;
  const all = new Set([...kindNames.map((kind) => kindTable[kind].state), ...Object.keys(a), ...Object.keys(b)]);
  for (const field of all) {
    if (fields.has(field)) continue;
    if (!sameObjects(listAt(a, field), listAt(b, field))) return false;
  }
  return true;
}

const none: readonly unknown[] = [];

function listAt(state: Readonly<Record<string, unknown>>, field: string): readonly unknown[] {
  const value = state[field];
  // Anything but a list is not an input the table describes: compared as itself.
  return value === undefined ? none : Array.isArray(value) ? value : [value];
}

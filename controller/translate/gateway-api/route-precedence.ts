// The order of HTTPRoute matches within one host name: the Gateway API spec's precedence across every route
// attached there (HTTPRouteRule docs), so the first Envoy route that matches is the one the spec picks.
import { compareStrings } from '../../../ir/index.js';
import type { ObjectMeta } from '../shared/kube-objects.js';
import { compareByAge } from '../shared/ordering.js';

/** What the precedence reads of one match of one rule of one route. */
export interface RankedMatch {
  path: { type: 'Exact' | 'PathPrefix' | 'RegularExpression'; value: string };
  method: boolean;
  headers: number;
  queryParams: number;
  route: { metadata: ObjectMeta };
  rule: number;
  match: number;
}

/**
 * Path kinds, first first. The spec ranks Exact over PathPrefix and leaves RegularExpression to implementations: a
 * regex comes between them (as Envoy Gateway orders it), so a prefix `/` never hides every regex.
 */
const pathRank = { Exact: 0, RegularExpression: 1, PathPrefix: 2 } as const;

/**
 * The spec's order: an exact path; the longest path (prefix: its characters); a method match; most header matches;
 * most query parameter matches; then the oldest route, then namespace/name; then rule order, then match order.
 */
export function compareMatches(a: RankedMatch, b: RankedMatch): number {
  return (
    pathRank[a.path.type] - pathRank[b.path.type] ||
    b.path.value.length - a.path.value.length ||
    Number(b.method) - Number(a.method) ||
    b.headers - a.headers ||
    b.queryParams - a.queryParams ||
    compareByAge(a.route, b.route) ||
    a.rule - b.rule ||
    a.match - b.match ||
    // Equal lengths of different paths never match the same request; ordered by text only to be deterministic.
    compareStrings(a.path.value, b.path.value)
  );
}

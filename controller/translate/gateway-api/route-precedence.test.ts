import test from 'ava';
import { type RankedMatch, compareMatches } from './route-precedence.js';

const older = { metadata: { name: 'b', namespace: 'x', creationTimestamp: '2024-01-01T00:00:00Z' } };
const newer = { metadata: { name: 'a', namespace: 'x', creationTimestamp: '2024-02-01T00:00:00Z' } };
const sameAgeOtherName = { metadata: { name: 'c', namespace: 'x', creationTimestamp: '2024-01-01T00:00:00Z' } };

function m(fields: Partial<RankedMatch>): RankedMatch {
  return { path: { type: 'PathPrefix', value: '/' }, method: false, headers: 0, queryParams: 0, route: older, rule: 0, match: 0, ...fields };
}

// [what wins, winner, loser]: each a tie on every earlier criterion, so a test fails if its criterion is dropped.
const cases: [string, RankedMatch, RankedMatch][] = [
  ['an exact path over a longer prefix', m({ path: { type: 'Exact', value: '/a' } }), m({ path: { type: 'PathPrefix', value: '/a/b/c' }, route: older })],
  ['an exact path over a regex', m({ path: { type: 'Exact', value: '/a' } }), m({ path: { type: 'RegularExpression', value: '/a.*' } })],
  ['a regex over a prefix', m({ path: { type: 'RegularExpression', value: '/a.*' } }), m({ path: { type: 'PathPrefix', value: '/abcdef' } })],
  ['the longer prefix', m({ path: { type: 'PathPrefix', value: '/abc' }, route: newer }), m({ path: { type: 'PathPrefix', value: '/a' } })],
  ['a method match', m({ method: true, route: newer }), m({ headers: 3, queryParams: 3 })],
  ['more header matches', m({ headers: 2, route: newer }), m({ headers: 1, queryParams: 5 })],
  ['more query parameter matches', m({ queryParams: 1, route: newer }), m({})],
  ['the older route', m({ route: older, rule: 5 }), m({ route: newer, rule: 0 })],
  ['namespace/name between routes of the same age', m({ route: older, rule: 3 }), m({ route: sameAgeOtherName, rule: 0 })],
  ['the earlier rule', m({ rule: 0, match: 3 }), m({ rule: 1, match: 0 })],
  ['the earlier match', m({ match: 0 }), m({ match: 1 })],
];

for (const [what, winner, loser] of cases) {
  test(`precedence: ${what}`, (t) => {
    t.true(compareMatches(winner, loser) < 0);
    t.true(compareMatches(loser, winner) > 0);
  });
}

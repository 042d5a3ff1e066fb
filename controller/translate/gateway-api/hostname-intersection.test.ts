import test from 'ava';
import { claimedByMoreSpecific, intersectHostnames } from './hostname-intersection.js';

// [listener hostname, route hostnames, served names]: the spec's examples (HTTPRoute spec.hostnames, Listener hostname).
const cases: [string | undefined, string[], string[]][] = [
  // Neither names any: every host.
  [undefined, [], ['*']],
  // Only one side names: that side's names.
  [undefined, ['foo.example.com', 'Bar.Example.com'], ['bar.example.com', 'foo.example.com']],
  ['foo.example.com', [], ['foo.example.com']],
  // Exact against exact.
  ['foo.example.com', ['foo.example.com', 'bar.example.com'], ['foo.example.com']],
  // A wildcard listener covers any number of labels, never the bare suffix.
  ['*.example.com', ['foo.example.com', 'a.b.example.com', 'example.com', 'foo.example.org'], ['a.b.example.com', 'foo.example.com']],
  // A wildcard route on an exact listener: the listener's name.
  ['foo.example.com', ['*.example.com'], ['foo.example.com']],
  ['example.com', ['*.example.com'], []],
  // Two wildcards: the more specific.
  ['*.example.com', ['*.foo.example.com'], ['*.foo.example.com']],
  ['*.foo.example.com', ['*.example.com'], ['*.foo.example.com']],
  ['*.example.com', ['*.example.com'], ['*.example.com']],
  ['*.example.com', ['*.example.org'], []],
  // Labels, not characters: `*.example.com` does not cover `fooexample.com`.
  ['*.example.com', ['fooexample.com'], []],
];

for (const [listener, routes, expected] of cases) {
  test(`listener ${listener ?? '(none)'} x route ${JSON.stringify(routes)} -> ${JSON.stringify(expected)}`, (t) => {
    t.deepEqual(intersectHostnames(listener, routes), expected);
  });
}

// [host, general listener hostname, other listener hostname, whether the other claims the host].
const isolation: [string, string | undefined, string | undefined, boolean][] = [
  ['foo.example.com', undefined, 'foo.example.com', true],
  ['foo.example.com', undefined, '*.example.com', true],
  ['*.example.com', undefined, '*.example.com', true],
  ['foo.example.com', '*.example.com', 'foo.example.com', true],
  ['a.foo.example.com', '*.example.com', '*.foo.example.com', true],
  // The other listener is less specific, or does not cover the host, or has no hostname: no claim.
  ['foo.example.com', 'foo.example.com', '*.example.com', false],
  ['foo.example.com', '*.example.com', undefined, false],
  ['bar.example.org', undefined, 'foo.example.com', false],
  ['foo.example.com', '*.example.com', '*.example.com', false],
];

for (const [host, general, other, claimed] of isolation) {
  test(`listener isolation: ${host} on listener ${general ?? '(none)'} ${claimed ? 'is' : 'is not'} claimed by listener ${other ?? '(none)'}`, (t) => {
    t.is(claimedByMoreSpecific(host, general, other), claimed);
  });
}

import type { PathMatchIR, RouteIR } from '../../../ir/index.js';
import test from 'ava';
import fc from 'fast-check';
import { compareRoutePrecedence, parsePath } from './path-match.js';

test('Prefix paths lose trailing slashes, the root prefix stays "/"', (t) => {
  t.deepEqual(parsePath('/foo/', 'Prefix'), { valid: true, match: { kind: 'prefix', path: '/foo', trailingSlash: true } });
  t.deepEqual(parsePath('/foo/bar/', 'Prefix'), { valid: true, match: { kind: 'prefix', path: '/foo/bar', trailingSlash: true } });
  t.deepEqual(parsePath('/', 'Prefix'), { valid: true, match: { kind: 'prefix', path: '/' } });
});

test('Exact paths are kept as written, trailing slash included', (t) => {
  t.deepEqual(parsePath('/foo/', 'Exact'), { valid: true, match: { kind: 'exact', path: '/foo/' } });
});

test('a missing path means "/" for every pathType', (t) => {
  t.deepEqual(parsePath(undefined, 'Exact'), { valid: true, match: { kind: 'exact', path: '/' } });
  t.deepEqual(parsePath('', 'Prefix'), { valid: true, match: { kind: 'prefix', path: '/' } });
});

test('ImplementationSpecific and a missing pathType are treated as Prefix', (t) => {
  t.deepEqual(parsePath('/a/', 'ImplementationSpecific'), { valid: true, match: { kind: 'prefix', path: '/a', trailingSlash: true } });
  t.deepEqual(parsePath('/a', undefined), { valid: true, match: { kind: 'prefix', path: '/a' } });
});

test('read with the nginx layer, ImplementationSpecific and a missing pathType are character prefixes as written; "/" stays the root prefix', (t) => {
  t.deepEqual(parsePath('/a/', 'ImplementationSpecific', true), { valid: true, match: { kind: 'character-prefix', path: '/a/' } });
  t.deepEqual(parsePath('/a', undefined, true), { valid: true, match: { kind: 'character-prefix', path: '/a' } });
  t.deepEqual(parsePath('/', 'ImplementationSpecific', true), { valid: true, match: { kind: 'prefix', path: '/' } });
  t.deepEqual(parsePath('/a/', 'Prefix', true), { valid: true, match: { kind: 'prefix', path: '/a', trailingSlash: true } });
  t.deepEqual(parsePath('/a', 'Exact', true), { valid: true, match: { kind: 'exact', path: '/a' } });
  t.false(parsePath('/a//b', 'ImplementationSpecific', true).valid, 'validated as any path');
});

test('a character prefix comes after Exact and Prefix of the same length (nginx prefers Prefix /a as its location /a/), before shorter paths', (t) => {
  const route = (name: string, match: PathMatchIR): RouteIR => ({ name, match, action: { kind: 'direct', status: 200 } });
  const routes = [
    route('short', { kind: 'character-prefix', path: '/a' }),
    route('char', { kind: 'character-prefix', path: '/ab' }),
    route('prefix', { kind: 'prefix', path: '/ab' }),
    route('exact', { kind: 'exact', path: '/ab' }),
    route('longer', { kind: 'character-prefix', path: '/abc' }),
  ];
  t.deepEqual([...routes].sort(compareRoutePrecedence).map((r) => r.name), ['longer', 'exact', 'prefix', 'char', 'short']);
});

test('percent-encodings and RFC 3986 path characters are accepted', (t) => {
  for (const path of ["/a%20b", "/~user/a-b_c.d", "/a:b@c!$&'()*+,;="]) {
    t.true(parsePath(path, 'Exact').valid, path);
  }
});

test('invalid paths and pathTypes are rejected with a reason', (t) => {
  const cases: [string, string, RegExp][] = [
    ['foo', 'Prefix', /must start with "\/"/],
    ['/a b', 'Prefix', /characters not allowed/],
    ['/a?b', 'Exact', /characters not allowed/],
    ['/a#b', 'Exact', /characters not allowed/],
    ['/caf\u00e9', 'Exact', /characters not allowed/],
    ['/a%zz', 'Exact', /characters not allowed/],
    ['/a//b', 'Prefix', /must not contain "\/\/"/],
    ['/a/./b', 'ImplementationSpecific', /must not contain "\/\.\/"/],
    ['/a%2Fb', 'Exact', /must not contain "%2F"/],
    ['/a/..', 'Exact', /must not end with "\/\.\."/],
    ['/a', 'Regex', /unknown pathType "Regex"/],
  ];
  for (const [path, pathType, expected] of cases) {
    const parsed = parsePath(path, pathType);
    t.false(parsed.valid, path);
    if (!parsed.valid) t.regex(parsed.error, expected, path);
  }
});

function route(name: string, match: PathMatchIR): RouteIR {
  return { name, match, action: { kind: 'direct', status: 200 } };
}

test('longest path first, Exact before Prefix at equal length, then route name', (t) => {
  const routes = [
    route('r1', { kind: 'prefix', path: '/' }),
    route('r2', { kind: 'prefix', path: '/ab' }),
    route('r3', { kind: 'exact', path: '/ab' }),
    route('r5', { kind: 'prefix', path: '/zz' }),
    route('r4', { kind: 'prefix', path: '/yy' }),
    route('r6', { kind: 'exact', path: '/abcd' }),
  ];
  t.deepEqual(
    [...routes].sort(compareRoutePrecedence).map((r) => r.name),
    ['r6', 'r3', 'r2', 'r4', 'r5', 'r1'],
  );
});

test('Prefix /foo/ before /foo (the longer path as written), an Exact /foo before both', (t) => {
  const routes = [
    route('r1', { kind: 'prefix', path: '/foo' }),
    route('r2', { kind: 'prefix', path: '/foo', trailingSlash: true }),
    route('r3', { kind: 'exact', path: '/foo' }),
    route('r4', { kind: 'exact', path: '/foo/' }),
  ];
  t.deepEqual(
    [...routes].sort(compareRoutePrecedence).map((r) => r.name),
    ['r4', 'r3', 'r2', 'r1'],
  );
});

/** Reference semantics of the Ingress spec: Exact is string equality, Prefix is element-wise. */
function matches(match: PathMatchIR, requestPath: string): boolean {
  if (match.kind === 'exact') return requestPath === match.path;
  if (match.path === '/') return true;
  return requestPath === match.path || requestPath.startsWith(`${match.path}/`);
}

const segment = fc.constantFrom('a', 'b', 'ab');
const pathArbitrary = fc.array(segment, { maxLength: 3 }).map((s) => `/${s.join('/')}`);
const matchArbitrary = fc.record({ kind: fc.constantFrom('exact' as const, 'prefix' as const), path: pathArbitrary });

const uniqueMatches = fc.uniqueArray(matchArbitrary, { selector: (m) => `${m.kind} ${m.path}` });

test('the first matching route in precedence order is the most specific match (property)', (t) => {
  t.notThrows(() =>
    fc.assert(
      fc.property(uniqueMatches, pathArbitrary, (ms, request) => {
        const ordered = ms.map((m, i) => route(`r${i}`, m)).sort(compareRoutePrecedence);
        const candidates = ordered.filter((r) => matches(r.match, request));
        const first = candidates[0];
        if (first === undefined) return true;
        // Nothing else that matches is longer, nor an Exact of the same length when the first is a Prefix.
        return candidates.every(
          (c) =>
            c.match.path.length < first.match.path.length ||
            (c.match.path.length === first.match.path.length &&
              (first.match.kind === 'exact' || c.match.kind === 'prefix')),
        );
      }),
    ),
  );
});

test('precedence order does not depend on input order (property)', (t) => {
  const routesAndShuffle = uniqueMatches
    .map((ms) => ms.map((m, i) => route(`r${i}`, m)))
    .chain((routes) =>
      fc.tuple(
        fc.constant(routes),
        fc.shuffledSubarray(routes, { minLength: routes.length, maxLength: routes.length }),
      ),
    );
  t.notThrows(() =>
    fc.assert(
      fc.property(routesAndShuffle, ([routes, shuffled]) => {
        const names = (rs: RouteIR[]): string =>
          JSON.stringify([...rs].sort(compareRoutePrecedence).map((r) => r.name));
        return names(routes) === names(shuffled);
      }),
    ),
  );
});

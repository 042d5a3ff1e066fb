import type { RouteIR } from '../../../ir/index.js';
import test from 'ava';
import { compareRoutePrecedence, describeMatch } from './path-match.js';
import { captureGroupCount, compileRe2, nginxPathRegex, parseRegexPath } from './path-match-regex.js';
import { regexMatchesPath } from './path-match-regex.js';

function regexOf(path: string) {
  const parsed = parseRegexPath(path);
  if (!parsed.valid) throw new Error(parsed.error);
  return parsed;
}

test('a regex path is matched as ingress-nginx writes it: case-insensitive, anchored at the start only', (t) => {
  const { match } = regexOf('/something(/|$)(.*)');
  const groups = captureGroupCount(match.path);
  t.is(match.regex, '(?i)^(?:/something(/|$)(.*)).*');
  t.is(match.path, '/something(/|$)(.*)');
  t.is(groups, 2);
  for (const path of ['/something', '/something/', '/something/new', '/SOMETHING/New', '/something/a/b']) t.true(regexMatchesPath(match, path), path);
  for (const path of ['/somethingelse', '/x/something', '/', '/some']) t.false(regexMatchesPath(match, path), path);
  // No `$`: a character prefix, as nginx's `~* "^/foo"`.
  const foo = regexOf('/foo').match;
  t.true(regexMatchesPath(foo, '/foobar'));
  t.true(regexMatchesPath(foo, '/FOO'));
  t.false(regexMatchesPath(foo, '/fo'));
});

test('a top-level alternative stays inside the start anchor', (t) => {
  const { match } = regexOf('/a|/b');
  t.true(regexMatchesPath(match, '/b/x'));
  t.false(regexMatchesPath(match, '/x/b'));
});

test('patterns RE2 (and so Envoy) refuses are reported, not sent', (t) => {
  const cases: [string, RegExp][] = [
    ['/foo(?=bar)', /invalid perl operator/],
    ['/(a)\\1', /invalid escape sequence/],
    ['/a{1001}', /invalid repetition size/],
    ['/(a', /missing \)/],
    ['/a)|(b', /not valid RE2/],
    ['/a\\', /trailing \\/],
    ['/a\\\\\\', /trailing \\/],
    ['/\\cA', /JavaScript syntax/],
    ['/\\u0041', /JavaScript syntax/],
    ['/(?<name>x)', /\(\?P<name>/],
    ['foo/.*', /must start with "\/"/],
    ['/a b', /printable ASCII/],
    [`/${'a'.repeat(1100)}`, /longer than 1024/],
  ];
  for (const [path, error] of cases) {
    const parsed = parseRegexPath(path);
    t.false(parsed.valid, path);
    if (!parsed.valid) t.regex(parsed.error, error, path);
  }
  t.true(parseRegexPath('/(?P<name>x)/[A-Z0-9]{3}').valid);
  t.true(parseRegexPath('/a\\\\').valid, 'an escaped backslash');
});

test('a missing path is "/" and matches every path', (t) => {
  const { match } = regexOf('');
  t.is(match.path, '/');
  t.true(regexMatchesPath(match, '/anything'));
});

test('compileRe2 and captureGroupCount ask RE2 and cache its verdicts', (t) => {
  t.deepEqual(compileRe2('/(a)(?:b)(c(d))'), { ok: true });
  t.is(compileRe2('/(a)(?:b)(c(d))'), compileRe2('/(a)(?:b)(c(d))'));
  t.is(captureGroupCount('/(a)(?:b)(c(d))(?P<n>e)'), 4);
  t.is(captureGroupCount('/\\(x\\)[(]'), 0);
  t.false(compileRe2('(').ok);
  // Many compilations do not exhaust re2-wasm's fixed heap (each object is freed).
  let failures = 0;
  for (let i = 0; i < 5_000; i++) if (!compileRe2(`/p${i}/(.*)`).ok || captureGroupCount(`/p${i}/(.*)`) !== 1) failures++;
  t.is(failures, 0);
});

test('nginxPathRegex wraps the path in a group anchored at the start', (t) => {
  t.is(nginxPathRegex('/x'), '(?i)^(?:/x).*');
});

function route(name: string, match: RouteIR['match']): RouteIR {
  return { name, match, action: { kind: 'direct', status: 200 } };
}

test('regex routes are ordered among the others by written length, after Exact and Prefix of equal length', (t) => {
  const routes = [
    route('short-regex', regexOf('/a.*').match),
    route('prefix', { kind: 'prefix', path: '/abc' }),
    route('long-regex', regexOf('/abc/[0-9]+').match),
    route('regex', regexOf('/ab.').match),
    route('exact', { kind: 'exact', path: '/abc' }),
  ];
  t.deepEqual(
    [...routes].sort(compareRoutePrecedence).map((r) => r.name),
    ['long-regex', 'exact', 'prefix', 'regex', 'short-regex'],
  );
  t.is(describeMatch(regexOf('/a.*').match), 'Regex /a.*');
});

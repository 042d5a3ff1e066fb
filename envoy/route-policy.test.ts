import type { PathMatchIR } from '../ir/index.js';
import test from 'ava';
import { durationJson, prefixRewriteRegex } from './route-policy.js';

/** Applies the rewrite as Envoy does (first match replaced); these patterns mean the same in RE2 and JS. */
function rewrite(match: PathMatchIR, replacement: string, path: string): string {
  const { regex, substitution } = prefixRewriteRegex(match, replacement);
  return path.replace(new RegExp(regex), substitution);
}

test('prefix rewrite replaces the matched prefix without doubling or losing slashes', (t) => {
  const api: PathMatchIR = { kind: 'prefix', path: '/api' };
  t.is(rewrite(api, '/', '/api/users'), '/users');
  t.is(rewrite(api, '/', '/api'), '/');
  t.is(rewrite(api, '/', '/api/'), '/');
  t.is(rewrite(api, '/v2', '/api/users'), '/v2/users');
  t.is(rewrite(api, '/v2', '/api'), '/v2');
  t.is(rewrite(api, '/v2/', '/api/users'), '/v2/users');
  const root: PathMatchIR = { kind: 'prefix', path: '/' };
  t.is(rewrite(root, '/app', '/x/y'), '/app/x/y');
  t.is(rewrite(root, '/', '/x'), '/x');
  const exact: PathMatchIR = { kind: 'exact', path: '/login' };
  t.is(rewrite(exact, '/auth/login', '/login'), '/auth/login');
  // Regex metacharacters in the matched path are literal.
  t.is(rewrite({ kind: 'prefix', path: '/a.b' }, '/', '/a.b/c'), '/c');
  t.is(rewrite({ kind: 'prefix', path: '/a.b' }, '/', '/axb/c'), '/axb/c');
});

test('durations print as the proto codec prints them', (t) => {
  t.is(durationJson(30_000), '30s');
  t.is(durationJson(1_500), '1.5s');
  t.is(durationJson(1), '0.001s');
  t.is(durationJson(0), '0s');
});

// End to end with --nginx-annotations: use-regex, rewrite-target with capture groups and app-root -> controller
// (standalone) -> a real Envoy -> echo backends, one host per case, one stack for the whole file. Each test shows
// ingress-nginx's documented behaviour (docs/user-guide/ingress-path-matching.md, docs/examples/rewrite).
import test from 'ava';
import type { HttpGetOptions } from './harness/http-client.js';
import { ingress, ingressClass, serviceWithEndpoints, type PathSpec } from './fixtures/manifests.js';
import { nginxIngressWithPaths as annotated } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf as endpoint, hostGet as get } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';

interface World {
  stack: Stack;
}

const regexPath = (p: string, service: string): PathSpec => ({ path: p, pathType: 'ImplementationSpecific', service });

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const start = (service: string) => scope.startBackend({ service });
  const [web, a, b] = await Promise.all([start('web'), start('a'), start('b')]);
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('web', [endpoint(web)]),
    ...serviceWithEndpoints('a', [endpoint(a)]),
    ...serviceWithEndpoints('b', [endpoint(b)]),
    // Issue 7's example, from ingress-nginx's rewrite documentation.
    annotated('rewrite', 'rewrite.test', { 'rewrite-target': '/$2', 'use-regex': 'true' }, [regexPath('/something(/|$)(.*)', 'web')]),
    // The same without use-regex: capture groups in the target imply regex paths, as in ingress-nginx.
    annotated('rewrite-implied', 'rewrite-implied.test', { 'rewrite-target': '/api/$1/$2' }, [regexPath('/v([0-9]+)/(.*)', 'web')]),
    // ingress-nginx's path-priority warning: the longer regex is tried first, even for /foo/bar/bar.
    annotated('regex', 'regex.test', { 'use-regex': 'true' }, [
      regexPath('/foo/bar/bar', 'b'),
      regexPath('/foo/bar/[A-Z0-9]{3}', 'a'),
      regexPath('/users/[0-9]+$', 'b'),
    ]),
    // One Ingress with use-regex, one without, on the same host: the second one's paths are regexes too.
    annotated('mixed-regex', 'mixed.test', { 'use-regex': 'true' }, [regexPath('/api/v[0-9]+', 'a')]),
    ingress('mixed-plain', { rules: [{ host: 'mixed.test', paths: [{ path: '/api/v1/admin', service: 'b' }, { path: '/health', pathType: 'Exact', service: 'web' }] }] }),
    // ingress-nginx's "Path Priority" example (docs/user-guide/ingress-path-matching.md): two Prefix paths of one
    // Ingress and a rewrite-target Ingress on the same host.
    ingress('priority-1', {
      rules: [{ host: 'priority.test', paths: [{ path: '/foo/bar', service: 'web' }, { path: '/foo/bar/', service: 'a' }] }],
      creationTimestamp: '2024-01-01T00:00:00Z',
    }),
    annotated('priority-2', 'priority.test', { 'rewrite-target': '/$1' }, [regexPath('/foo/bar/(.+)', 'b')]),
    // A canary joins the regex route of its main Ingress (nginx-canary.ts), matched as the main's regex.
    annotated('canary-main', 'canary.test', { 'use-regex': 'true' }, [regexPath('/api/v[0-9]+', 'a')]),
    annotated('canary', 'canary.test', { canary: 'true', 'canary-by-header': 'X-Canary' }, [regexPath('/api/v[0-9]+', 'b')]),
    annotated('approot', 'approot.test', { 'app-root': '/app1' }, [{ path: '/', service: 'web' }]),
    annotated('approot-regex', 'approot-regex.test', { 'app-root': '/portal?from=root', 'use-regex': 'true' }, [regexPath('/.*', 'a')]),
    // A path RE2 refuses, one too large for a user regex (issue 14) and a target needing a group the path lacks:
    // reported; the rest of the Ingress is served.
    annotated('broken', 'broken.test', { 'use-regex': 'true', 'rewrite-target': '/$2' }, [
      regexPath('/ok/(.*)/(.*)', 'web'),
      regexPath('/look(?=ahead)', 'a'),
      regexPath('/one/(.*)', 'b'),
      regexPath('/big/[a-z]{1000}', 'a'),
    ]),
    // A canary header pattern too large for a user regex: reported; the main Ingress is served.
    annotated('big-canary-main', 'big-canary.test', {}, [{ path: '/', pathType: 'Prefix', service: 'a' }]),
    annotated('big-canary', 'big-canary.test', { canary: 'true', 'canary-by-header': 'X-Canary', 'canary-by-header-pattern': '^[^/]{1000}$' }, [
      { path: '/', pathType: 'Prefix', service: 'b' },
    ]),
  ];
  const stack = await scope.startStack({
    dir,
    objects,
    translate: { nginxAnnotations: true },
    ready: { host: 'broken.test', path: '/ok/x/y' },
  });
  return { stack };
});

/** `service path` the echo backend saw, or the status when no backend answered. */
async function seen(w: World, host: string, p: string, extra: Partial<HttpGetOptions> = {}): Promise<string> {
  const res = await get(w, host, p, extra);
  return res.status === 200 ? `${String(res.json?.service)} ${String(res.json?.path)}` : String(res.status);
}

test('rewrite-target "/$2" with path "/something(/|$)(.*)": /something/new reaches the backend as /new, /something as /', async (t) => {
  const w = await world(t);
  t.is(await seen(w, 'rewrite.test', '/something/new'), 'web /new');
  t.is(await seen(w, 'rewrite.test', '/something'), 'web /');
  t.is(await seen(w, 'rewrite.test', '/something/'), 'web /');
  t.is(await seen(w, 'rewrite.test', '/something/a/b'), 'web /a/b');
  // Case-insensitive (nginx ~*), the query string kept.
  t.is(await seen(w, 'rewrite.test', '/SomeThing/New?q=1'), 'web /New?q=1');
  // (/|$) needs a slash or the end after "something".
  t.is(await seen(w, 'rewrite.test', '/somethingelse'), '404');
});

test('capture groups in rewrite-target imply regex paths (without use-regex)', async (t) => {
  const w = await world(t);
  t.is(await seen(w, 'rewrite-implied.test', '/v2/users/7'), 'web /api/2/users/7');
  t.is(await seen(w, 'rewrite-implied.test', '/V10/x'), 'web /api/10/x');
  t.is(await seen(w, 'rewrite-implied.test', '/vx/users'), '404');
});

test('use-regex: paths are case-insensitive regexes anchored at the start, the longest tried first', async (t) => {
  const w = await world(t);
  // ingress-nginx's documented warning: /foo/bar/bar matches the longer [A-Z0-9]{3} location first.
  t.is(await seen(w, 'regex.test', '/foo/bar/bar'), 'a /foo/bar/bar');
  t.is(await seen(w, 'regex.test', '/foo/bar/x9z/more'), 'a /foo/bar/x9z/more');
  t.is(await seen(w, 'regex.test', '/FOO/BAR/BA'), '404');
  t.is(await seen(w, 'regex.test', '/users/42'), 'b /users/42');
  t.is(await seen(w, 'regex.test', '/USERS/7'), 'b /USERS/7');
  // "$" ends the match: nothing may follow.
  t.is(await seen(w, 'regex.test', '/users/42/x'), '404');
  t.is(await seen(w, 'regex.test', '/x/foo/bar/abc'), '404', 'anchored at the start');
});

test('use-regex on one Ingress makes the other Ingress\'s paths of the host case-insensitive character-prefix regexes too', async (t) => {
  const w = await world(t);
  t.is(await seen(w, 'mixed.test', '/api/v1/admin/users'), 'b /api/v1/admin/users');
  // As ingress-nginx writes it (location ~* "^/api/v1/admin"): any case, and a character prefix.
  t.is(await seen(w, 'mixed.test', '/API/V1/ADMIN'), 'b /API/V1/ADMIN');
  t.is(await seen(w, 'mixed.test', '/api/v1/administrators'), 'b /api/v1/administrators');
  // Exact /health is ~* "^/health" there too.
  t.is(await seen(w, 'mixed.test', '/HEALTH/more'), 'web /HEALTH/more');
  t.is(await seen(w, 'mixed.test', '/api/v22'), 'a /api/v22');
  t.is(await seen(w, 'mixed.test', '/api/vx'), '404');
});

test('ingress-nginx\'s Path Priority example: /foo/bar/1 -> service 3 (rewritten), /foo/bar/ -> service 2, /foo/bar -> service 1', async (t) => {
  const w = await world(t);
  t.is(await seen(w, 'priority.test', '/foo/bar/1'), 'b /1');
  t.is(await seen(w, 'priority.test', '/foo/bar/'), 'a /foo/bar/');
  t.is(await seen(w, 'priority.test', '/foo/bar'), 'web /foo/bar');
});

test('app-root "/app1": exactly / redirects 302 to /app1 on the same host, other paths are served', async (t) => {
  const w = await world(t);
  const root = await get(w, 'approot.test', '/');
  t.is(root.status, 302);
  t.is(root.headers.location, 'http://approot.test/app1');
  const withQuery = await get(w, 'approot.test', '/?x=1');
  t.is(withQuery.status, 302);
  t.is(withQuery.headers.location, 'http://approot.test/app1', 'nginx `return 302` drops the query');
  t.is(await seen(w, 'approot.test', '/app1'), 'web /app1');
  t.is(await seen(w, 'approot.test', '/other?x=1'), 'web /other?x=1');
});

test('app-root wins over a regex path that also matches /; its query is sent', async (t) => {
  const w = await world(t);
  const root = await get(w, 'approot-regex.test', '/');
  t.is(root.status, 302);
  t.is(root.headers.location, 'http://approot-regex.test/portal?from=root');
  t.is(await seen(w, 'approot-regex.test', '/portal'), 'a /portal');
});

test('a refused regex path, one too large and a target needing a missing group break nothing else', async (t) => {
  const w = await world(t);
  t.is(await seen(w, 'broken.test', '/ok/x/y'), 'web /y');
  t.is(await seen(w, 'broken.test', '/lookahead'), '404', 'the refused path is left out');
  t.is(await seen(w, 'broken.test', `/big/${'x'.repeat(1000)}`), '404', 'the path too large is left out');
  t.is(await seen(w, 'broken.test', '/one/two'), 'b /', 'no group 2: empty, as in nginx');
  // Reported on its Ingress, naming the path (the controller logs every diagnostic).
  t.regex(w.stack.logs(), /InvalidPath[^\n]*rule 0 path 3: regex path \\?"\/big\/\[a-z\]\{1000\}\\?" is too large: RE2 would compile it to about \d+ instructions/);
  // The other hosts of the same route table are still served.
  t.is(await seen(w, 'rewrite.test', '/something/still'), 'web /still');
});

test('a canary-by-header-pattern too large for a user regex is refused: the main Ingress answers, whatever the header', async (t) => {
  const w = await world(t);
  t.is(await seen(w, 'big-canary.test', '/x', { headers: { 'x-canary': 'a'.repeat(1000) } }), 'a /x');
  t.is(await seen(w, 'big-canary.test', '/x'), 'a /x');
  t.regex(w.stack.logs(), /InvalidAnnotation[^\n]*canary-by-header-pattern has invalid value[^\n]*too large/);
});

test('a canary by header on a use-regex main Ingress: same regex, "always" goes to the canary', async (t) => {
  const w = await world(t);
  t.is(await seen(w, 'canary.test', '/API/V2/x', { headers: { 'x-canary': 'always' } }), 'b /API/V2/x');
  t.is(await seen(w, 'canary.test', '/API/V2/x'), 'a /API/V2/x');
  t.is(await seen(w, 'canary.test', '/api/v3', { headers: { 'x-canary': 'never' } }), 'a /api/v3');
});

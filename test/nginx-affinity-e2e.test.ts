// End to end with --nginx-annotations: ingress-nginx cookie affinity (affinity: cookie, session-cookie-*), its
// canary behaviour (affinity-canary-behavior) and upstream-hash-by's nginx variables, through the controller and a real Envoy, as ingress-nginx's
// balancer/sticky.lua and balancer.lua behave. What the parity tables (test/nginx-parity/affinity.yaml, canary.yaml)
// cannot say with fixed rows: the Expires date, the user agents of the conditional SameSite=None, the precedence of a
// client's affinity over a canary's header, the backend key ingress-nginx computes, and what a client cannot forge.
import test from 'ava';
import { httpGet, type HttpResult } from './harness/http-client.js';
import { ingressClass, serviceWithEndpoints } from './fixtures/manifests.js';
import { nginxIngress } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';
import { nginxBackendKey } from '../controller/translate/shared/nginx-backend-key.js';

interface World {
  stack: Stack;
}

const sticky = { affinity: 'cookie', 'session-cookie-name': 'aff' };

/** A main Ingress (to `web`, with cookie affinity) and a canary Ingress (to `web-v2`) on `host`. */
function pair(host: string, canary: Record<string, string>, main: Record<string, string> = sticky): object[] {
  const name = host.replace(/\.test$/, '');
  return [nginxIngress(name, host, 'web', main), nginxIngress(`${name}-canary`, host, 'web-v2', { canary: 'true', ...canary })];
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const web = await scope.startBackend({ service: 'web' });
  const v2 = await scope.startBackend({ service: 'web-v2' });
  const podA = await scope.startBackend({ service: 'pod-a' });
  const podB = await scope.startBackend({ service: 'pod-b' });
  const objects = [
    ...serviceWithEndpoints('pods', [endpointOf(podA), endpointOf(podB)]),
    nginxIngress('pods', 'pods.test', 'pods', { affinity: 'cookie' }),
    nginxIngress('persistent', 'persistent.test', 'pods', { affinity: 'cookie', 'affinity-mode': 'persistent' }),
    nginxIngress('by-uri', 'by-uri.test', 'pods', { 'upstream-hash-by': '$uri' }),
    nginxIngress('by-arg', 'by-arg.test', 'pods', { 'upstream-hash-by': '$host$arg_tenant' }),
    ingressClass(),
    ...serviceWithEndpoints('web', [endpointOf(web)]),
    ...serviceWithEndpoints('web-v2', [endpointOf(v2)]),
    nginxIngress('attributes', 'attributes.test', 'web', {
      affinity: 'cookie',
      'session-cookie-name': 'route',
      'session-cookie-expires': '172800',
      'session-cookie-max-age': '3600',
      'session-cookie-domain': 'example.test',
      'session-cookie-samesite': 'None',
      'session-cookie-conditional-samesite-none': 'true',
      'session-cookie-secure': 'true',
    }),
    ...pair('sticky.test', { 'canary-by-header': 'X-Canary', 'canary-weight': '0' }),
    ...pair('legacy.test', { 'canary-by-header': 'X-Canary', 'canary-weight': '50', 'affinity-canary-behavior': 'legacy' }),
    ...pair('broken.test', { 'canary-by-header': 'X-Canary', 'canary-by-header-pattern': '[][**da?$&*', 'canary-by-cookie': 'use_v2' }, {}),
  ];
  const stack = await scope.startStack({ dir, objects, translate: { nginxAnnotations: true }, ready: { host: 'attributes.test' } });
  return { stack };
});

function get(w: World, host: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return httpGet({ port: w.stack.httpPort, hostHeader: host, path: '/', headers });
}

const setCookieOf = (r: HttpResult): string | undefined => r.headers['set-cookie']?.[0];
const pairOf = (setCookie: string | undefined): string => (setCookie ?? '').split(';')[0] as string;

test('the cookie is written as lua-resty-cookie writes it: Expires (now + session-cookie-expires), Max-Age, Domain, Path, Secure, HttpOnly, SameSite', async (t) => {
  const w = await world(t);
  const before = Date.now();
  const r = await get(w, 'attributes.test', { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36' });
  t.is(r.status, 200);
  const cookie = setCookieOf(r) ?? '';
  t.log(cookie);
  const m = /^route=([0-9a-f]{16})\|([0-9a-f]{32}); Expires=(\w{3}, \d{2}-\w{3}-\d{2} \d{2}:\d{2}:\d{2}) GMT; Max-Age=3600; Domain=example\.test; Path=\/; Secure; HttpOnly; SameSite=None$/.exec(cookie);
  t.truthy(m, cookie);
  // ingress-nginx's backend key of default/web:80, so a cookie ingress-nginx made keeps its side of a canary.
  t.is(m?.[2], nginxBackendKey({ namespace: 'default', name: 'web', port: 80 }));
  // ngx.cookie_time: "Thu, 18-Nov-10 11:27:35 GMT" (two-digit year); 48 h from now, to the second.
  const [day, month, year, clock] = (m?.[3] ?? '').replace(',', '').split(/[ -]/).slice(1);
  const expires = Date.parse(`${day} ${month} 20${year} ${clock} GMT`);
  t.true(Math.abs(expires - (before + 172_800_000)) < 5_000, `Expires ${m?.[3]}`);
  // A client sending the cookie back gets none (ingress-nginx sets it only when the request has none).
  t.is(setCookieOf(await get(w, 'attributes.test', { cookie: pairOf(cookie) })), undefined);
});

test('the endpoint is picked by the key the cookie carries: a new client stays on the endpoint of its first answer; clients spread over both', async (t) => {
  const w = await world(t);
  const seen = new Set<string>();
  for (let client = 0; client < 20; client++) {
    const first = await get(w, 'pods.test');
    const pod = String(first.json?.service);
    seen.add(pod);
    const cookie = pairOf(setCookieOf(first));
    t.regex(cookie, /^INGRESSCOOKIE=[0-9a-f]{16}\|/);
    for (let i = 0; i < 3; i++) t.is((await get(w, 'pods.test', { cookie })).json?.service, pod, cookie);
  }
  // 20 new clients on one endpoint of two: probability 2 x 0.5^20 with an even ring.
  t.deepEqual([...seen].sort(), ['pod-a', 'pod-b']);
});

test('affinity-mode persistent: the cookie names the endpoint of the first answer, which the client keeps; an endpoint that is gone gets the client a new one and a new cookie', async (t) => {
  const w = await world(t);
  const seen = new Set<string>();
  for (let client = 0; client < 10; client++) {
    const first = await get(w, 'persistent.test');
    const pod = String(first.json?.service);
    seen.add(pod);
    const cookie = pairOf(setCookieOf(first));
    // KEY is the endpoint's address (base64), BACKEND ingress-nginx's key of the Service port.
    const key = /^INGRESSCOOKIE=([^|]+)\|[0-9a-f]{32}$/.exec(cookie)?.[1] ?? '';
    t.regex(Buffer.from(key, 'base64').toString(), /^127\.0\.0\.1:\d+$/, cookie);
    for (let i = 0; i < 3; i++) {
      const again = await get(w, 'persistent.test', { cookie });
      t.is(again.json?.service, pod);
      t.is(setCookieOf(again), undefined, 'the client keeps its cookie');
      t.is(again.json?.headers?.['x-envoy-ingress-affinity-host'], undefined, 'the endpoint header does not reach the backend');
    }
  }
  t.deepEqual([...seen].sort(), ['pod-a', 'pod-b'], 'new clients are balanced (probability 2 x 0.5^10 of one endpoint)');
  const gone = `INGRESSCOOKIE=${Buffer.from('127.0.0.1:1').toString('base64')}|${nginxBackendKey({ namespace: 'default', name: 'pods', port: 80 })}`;
  const moved = await get(w, 'persistent.test', { cookie: gone });
  t.is(moved.status, 200);
  t.regex(setCookieOf(moved) ?? '', /^INGRESSCOOKIE=/, 'a new cookie for the new endpoint');
});

test('upstream-hash-by $uri (the path without its query) and $host$arg_tenant: one key, one endpoint; keys spread over both', async (t) => {
  const w = await world(t);
  const endpointsOf = async (host: string, paths: string[]): Promise<Set<string>> => {
    const seen = new Set<string>();
    for (const p of paths) seen.add(String((await httpGet({ port: w.stack.httpPort, hostHeader: host, path: p })).json?.service));
    return seen;
  };
  for (let key = 0; key < 3; key++) {
    t.is((await endpointsOf('by-uri.test', [`/k${key}`, `/k${key}?a=1`, `/k${key}?b=2`, `/k${key}`])).size, 1, 'the query is not part of $uri');
    t.is((await endpointsOf('by-arg.test', [`/x?tenant=${key}`, `/y?tenant=${key}&z=1`, `/z?tenant=${key}`])).size, 1);
  }
  const keys = Array.from({ length: 20 }, (_, i) => `/key-${i}`);
  // 20 keys on one endpoint of two: probability 2 x 0.5^20 with an even ring.
  t.is((await endpointsOf('by-uri.test', keys)).size, 2);
  t.is((await endpointsOf('by-arg.test', keys.map((k, i) => `${k}?tenant=t${i}`))).size, 2);
});

test('session-cookie-conditional-samesite-none: SameSite=None is left out for the user agents ingress-nginx leaves it out for', async (t) => {
  const w = await world(t);
  const sameSite = async (userAgent: string): Promise<boolean> => / SameSite=None$/.test(setCookieOf(await get(w, 'attributes.test', { 'user-agent': userAgent })) ?? '');
  t.false(await sameSite('Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/59.0.3071.115 Safari/537.36'));
  t.false(await sameSite('Mozilla/5.0 (iPhone; CPU iPhone OS 12_1 like Mac OS X) AppleWebKit/605.1.15 Version/12.0 Mobile Safari/604.1'));
  t.false(await sameSite('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1 Safari/605.1.15'));
  t.true(await sameSite('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15'));
  t.true(await sameSite('curl/8.5.0'));
});

test('sticky canary: a client affinitized to either side stays there, before the canary header; the side is in the cookie', async (t) => {
  const w = await world(t);
  const main = await get(w, 'sticky.test');
  t.is(main.json?.service, 'web');
  const mainCookie = pairOf(setCookieOf(main));
  t.true(mainCookie.endsWith(`|${nginxBackendKey({ namespace: 'default', name: 'web', port: 80 })}`), mainCookie);
  const canary = await get(w, 'sticky.test', { 'x-canary': 'always' });
  t.is(canary.json?.service, 'web-v2');
  const canaryCookie = pairOf(setCookieOf(canary));
  t.true(canaryCookie.endsWith(`|${nginxBackendKey({ namespace: 'default', name: 'web-v2', port: 80 })}`), canaryCookie);
  for (let i = 0; i < 5; i++) {
    // Affinity is looked at first (balancer.lua route_to_alternative_balancer): the header cannot move the client.
    t.is((await get(w, 'sticky.test', { cookie: mainCookie, 'x-canary': 'always' })).json?.service, 'web');
    t.is((await get(w, 'sticky.test', { cookie: canaryCookie, 'x-canary': 'never' })).json?.service, 'web-v2');
    t.is((await get(w, 'sticky.test', { cookie: canaryCookie })).json?.service, 'web-v2', 'weight 0: only the cookie sends it there');
  }
  // A cookie of an unknown backend pins nothing: the canary rules decide, and no new cookie is set.
  const stale = await get(w, 'sticky.test', { cookie: 'aff=0123456789abcdef|00000000000000000000000000000000', 'x-canary': 'always' });
  t.is(stale.json?.service, 'web-v2');
  t.is(setCookieOf(stale), undefined);
});

test('a client cannot pin itself with the affinity headers: only the cookie counts', async (t) => {
  const w = await world(t);
  const canaryKey = nginxBackendKey({ namespace: 'default', name: 'web-v2', port: 80 });
  for (let i = 0; i < 5; i++) {
    const r = await get(w, 'sticky.test', { 'x-envoy-ingress-affinity-backend': canaryKey, 'x-envoy-ingress-affinity-key': 'mine' });
    t.is(r.json?.service, 'web');
    t.is(r.json?.headers?.['x-envoy-ingress-affinity-key'], undefined, 'the key header does not reach the backend');
    t.is(r.json?.headers?.['x-envoy-ingress-affinity-backend'], undefined);
  }
});

test('legacy canary: its answers set no affinity cookie; a client affinitized to the main side stays there', async (t) => {
  const w = await world(t);
  const canary = await get(w, 'legacy.test', { 'x-canary': 'always' });
  t.is(canary.json?.service, 'web-v2');
  t.is(setCookieOf(canary), undefined);
  const main = await get(w, 'legacy.test', { 'x-canary': 'never' });
  t.is(main.json?.service, 'web');
  const cookie = pairOf(setCookieOf(main));
  t.regex(cookie, /^aff=/);
  const services = new Set<string>();
  // Weight 50: without the affinity, 20 requests all on one side would have probability 2 x 0.5^20.
  for (let i = 0; i < 20; i++) services.add(String((await get(w, 'legacy.test', { cookie })).json?.service));
  t.deepEqual([...services], ['web']);
});

test('a canary-by-header-pattern no engine compiles: with the header, the main backend whatever the cookie; without it, the cookie decides', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'broken.test', { 'x-canary': 'DoCanary', cookie: 'use_v2=always' })).json?.service, 'web');
  t.is((await get(w, 'broken.test', { cookie: 'use_v2=always' })).json?.service, 'web-v2');
});

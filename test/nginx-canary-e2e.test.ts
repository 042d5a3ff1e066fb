// End to end with --nginx-annotations: ingress-nginx canary Ingresses -> controller (standalone) -> a real Envoy ->
// echo backends `web` (the main Ingress's Service) and `web-v2` (the canary's). One host per case, one stack for
// the whole file. Each test shows ingress-nginx's documented canary behaviour (user-guide/nginx-configuration/
// annotations.md#canary): by header ("always"/"never", a value, a pattern), by cookie, by weight, in that order.
import test from 'ava';
import { createKeepAliveAgent, httpGet, type HttpResult } from './harness/http-client.js';
import { ingress, ingressClass, serviceWithEndpoints } from './fixtures/manifests.js';
import { nginxIngress } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';

interface World {
  stack: Stack;
}

/** A main Ingress (to `web`) and a canary Ingress (to `web-v2`) for the same host and path. */
function pair(host: string, canary: Record<string, string>, main: Record<string, string> = {}, p = '/'): object[] {
  const name = host.replace(/\.test$/, '');
  return [nginxIngress(name, host, 'web', main, p), nginxIngress(`${name}-canary`, host, 'web-v2', { canary: 'true', ...canary }, p)];
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const web = await scope.startBackend({ service: 'web' });
  const v2 = await scope.startBackend({ service: 'web-v2' });
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('web', [endpointOf(web)]),
    ...serviceWithEndpoints('web-v2', [endpointOf(v2)]),
    ...pair('weight.test', { 'canary-weight': '20' }),
    ...pair('weight-total.test', { 'canary-weight': '300', 'canary-weight-total': '1000' }),
    ...pair('header.test', { 'canary-by-header': 'X-Canary' }),
    ...pair('header-value.test', { 'canary-by-header': 'X-Region', 'canary-by-header-value': 'eu-west' }),
    ...pair('header-pattern.test', { 'canary-by-header': 'X-Tester', 'canary-by-header-pattern': '^(qa|internal)-' }),
    ...pair('cookie.test', { 'canary-by-cookie': 'use_v2' }),
    ...pair('precedence.test', { 'canary-by-header': 'X-Canary', 'canary-by-cookie': 'use_v2', 'canary-weight': '100' }),
    ...pair('inherits.test', { 'canary-by-header': 'X-Canary', 'x-forwarded-prefix': '/ignored' }, { 'x-forwarded-prefix': '/shop' }, '/app'),
    ...pair('invalid.test', { 'canary-weight': 'lots', 'canary-by-cookie': 'use_v2' }),
    // A canary whose host and path no main Ingress serves: reported, and it routes nothing.
    nginxIngress('orphan-canary', 'orphan.test', 'web-v2', { canary: 'true', 'canary-weight': '100' }),
    ingress('ready', { rules: [{ host: 'ready.test', paths: [{ path: '/', service: 'web' }] }] }),
  ];
  const stack = await scope.startStack({ dir, objects, translate: { nginxAnnotations: true }, ready: { host: 'ready.test' } });
  return { stack };
});

function get(w: World, host: string, headers: Record<string, string> = {}, p = '/'): Promise<HttpResult> {
  return httpGet({ port: w.stack.httpPort, hostHeader: host, path: p, headers });
}

/** Which Service answered. */
async function served(w: World, host: string, headers: Record<string, string> = {}, p = '/'): Promise<string> {
  const res = await get(w, host, headers, p);
  return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
}

/** How many of `n` requests the canary answered (over kept-alive connections, as a browser would send them). */
async function canaryCount(w: World, host: string, n: number): Promise<{ canary: number; main: number; other: number }> {
  const agent = createKeepAliveAgent();
  const counts = { canary: 0, main: 0, other: 0 };
  try {
    for (let i = 0; i < n; i++) {
      const res = await httpGet({ port: w.stack.httpPort, hostHeader: host, path: `/r${i}`, agent });
      const service = res.status === 200 ? res.json?.service : undefined;
      if (service === 'web-v2') counts.canary++;
      else if (service === 'web') counts.main++;
      else counts.other++;
    }
  } finally {
    agent.destroy();
  }
  return counts;
}

test('canary-weight 20: about 20% of 1,000 requests reach the canary (200 +- 60, over 4.7 standard deviations)', async (t) => {
  const w = await world(t);
  // Binomial(1000, 0.2): mean 200, sd sqrt(1000 * 0.2 * 0.8) = 12.6; outside 140..260 has probability ~2e-6.
  const counts = await canaryCount(w, 'weight.test', 1000);
  t.log(`weight.test: ${counts.canary} of 1000 to the canary`);
  t.is(counts.other, 0);
  t.is(counts.canary + counts.main, 1000);
  t.true(counts.canary >= 140 && counts.canary <= 260, `${counts.canary} of 1000 to the canary`);
});

test('canary-weight-total 1000 with canary-weight 300: about 30% (300 +- 65 of 1,000, over 4.4 standard deviations)', async (t) => {
  const w = await world(t);
  // Binomial(1000, 0.3): mean 300, sd 14.5.
  const counts = await canaryCount(w, 'weight-total.test', 1000);
  t.log(`weight-total.test: ${counts.canary} of 1000 to the canary`);
  t.is(counts.other, 0);
  t.true(counts.canary >= 235 && counts.canary <= 365, `${counts.canary} of 1000 to the canary`);
});

test('canary-by-header: "always" -> canary, "never" -> main, any other value or no header -> the weight (0 here)', async (t) => {
  const w = await world(t);
  t.is(await served(w, 'header.test', { 'X-Canary': 'always' }), 'web-v2');
  t.is(await served(w, 'header.test', { 'x-canary': 'always' }), 'web-v2', 'header names are case-insensitive');
  t.is(await served(w, 'header.test', { 'X-Canary': 'never' }), 'web');
  t.is(await served(w, 'header.test', { 'X-Canary': 'Always' }), 'web', 'values are case-sensitive');
  t.is(await served(w, 'header.test', { 'X-Canary': 'yes' }), 'web');
  t.is(await served(w, 'header.test'), 'web');
  // Every path under the Ingress path, and the query string plays no part.
  t.is(await served(w, 'header.test', { 'X-Canary': 'always' }, '/deep/path?x=1'), 'web-v2');
});

test('canary-by-header-value: exactly that value -> canary; others (also "always") fall through to the weight', async (t) => {
  const w = await world(t);
  t.is(await served(w, 'header-value.test', { 'X-Region': 'eu-west' }), 'web-v2');
  t.is(await served(w, 'header-value.test', { 'X-Region': 'eu-west-1' }), 'web');
  t.is(await served(w, 'header-value.test', { 'X-Region': 'always' }), 'web');
  t.is(await served(w, 'header-value.test'), 'web');
});

test('canary-by-header-pattern: a value the regex finds -> canary, others -> main', async (t) => {
  const w = await world(t);
  t.is(await served(w, 'header-pattern.test', { 'X-Tester': 'qa-anna' }), 'web-v2');
  t.is(await served(w, 'header-pattern.test', { 'X-Tester': 'internal-bob' }), 'web-v2');
  t.is(await served(w, 'header-pattern.test', { 'X-Tester': 'prod-qa-x' }), 'web', 'the pattern is anchored by its ^');
  t.is(await served(w, 'header-pattern.test', { 'X-Tester': 'always' }), 'web', '"always" is not special with a pattern');
  t.is(await served(w, 'header-pattern.test'), 'web');
});

test('canary-by-cookie: "always" -> canary, "never" -> main, wherever the cookie is in the Cookie header', async (t) => {
  const w = await world(t);
  t.is(await served(w, 'cookie.test', { Cookie: 'use_v2=always' }), 'web-v2');
  t.is(await served(w, 'cookie.test', { Cookie: 'session=abc; use_v2=always; theme=dark' }), 'web-v2');
  t.is(await served(w, 'cookie.test', { Cookie: 'theme=dark;use_v2=always' }), 'web-v2');
  t.is(await served(w, 'cookie.test', { Cookie: 'use_v2=never' }), 'web');
  t.is(await served(w, 'cookie.test', { Cookie: 'use_v2=alwaysx' }), 'web');
  t.is(await served(w, 'cookie.test', { Cookie: 'not_use_v2=always' }), 'web', 'another cookie ending in the name');
  t.is(await served(w, 'cookie.test', { Cookie: 'x=use_v2=always' }), 'web', 'the name inside another value');
  t.is(await served(w, 'cookie.test', { 'X-Use-V2': 'always' }), 'web');
  t.is(await served(w, 'cookie.test'), 'web');
});

test('precedence: header, then cookie, then weight (100 here)', async (t) => {
  const w = await world(t);
  t.is(await served(w, 'precedence.test', { 'X-Canary': 'never', Cookie: 'use_v2=always' }), 'web', 'header never beats cookie always');
  t.is(await served(w, 'precedence.test', { 'X-Canary': 'always', Cookie: 'use_v2=never' }), 'web-v2', 'header always beats cookie never');
  t.is(await served(w, 'precedence.test', { Cookie: 'use_v2=never' }), 'web', 'cookie never beats weight 100');
  t.is(await served(w, 'precedence.test', { 'X-Canary': 'other', Cookie: 'use_v2=never' }), 'web', 'another header value falls through to the cookie');
  t.is(await served(w, 'precedence.test', { Cookie: 'use_v2=other' }), 'web-v2', 'another cookie value falls through to the weight');
  t.is(await served(w, 'precedence.test'), 'web-v2');
});

test("the canary gets the main Ingress's settings, not its own (as in ingress-nginx)", async (t) => {
  const w = await world(t);
  const canary = await get(w, 'inherits.test', { 'X-Canary': 'always' }, '/app/x');
  t.is(canary.json?.service, 'web-v2');
  t.is(canary.json?.headers?.['x-forwarded-prefix'], '/shop');
  const main = await get(w, 'inherits.test', {}, '/app/x');
  t.is(main.json?.service, 'web');
  t.is(main.json?.headers?.['x-forwarded-prefix'], '/shop');
  t.is((await get(w, 'inherits.test', { 'X-Canary': 'always' }, '/other')).status, 404, 'only the main path');
  t.regex(w.stack.logs(), /NginxCanaryAnnotationsIgnored[^\n]*x-forwarded-prefix/);
});

test('a canary without a main Ingress routes nothing; an invalid weight is reported and the rest of the canary works', async (t) => {
  const w = await world(t);
  t.is((await get(w, 'orphan.test')).status, 404);
  t.is(await served(w, 'invalid.test'), 'web');
  t.is(await served(w, 'invalid.test', { Cookie: 'use_v2=always' }), 'web-v2');
  const logs = w.stack.logs();
  t.regex(logs, /NginxCanaryWithoutMain[^\n]*orphan\.test/);
  t.regex(logs, /InvalidAnnotation[^\n]*canary-weight has invalid value \\?"lots\\?"/);
});

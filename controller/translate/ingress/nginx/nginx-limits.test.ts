import test from 'ava';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { Ingress } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { parseAnnotationsWithNginx } from './nginx-annotations.js';

function parse(values: Record<string, string>, own: Record<string, string> = {}): { parsed: ReturnType<typeof parseAnnotationsWithNginx>; diagnostics: Diagnostic[] } {
  const annotations = { ...own, ...Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v])) };
  const ingress = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'app', namespace: 'default', annotations },
    spec: { rules: [{ host: 'app.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
  } as Ingress;
  const diagnostics: Diagnostic[] = [];
  return { parsed: parseAnnotationsWithNginx(ingress, diagnostics, true), diagnostics };
}

test('limit-rps: a bucket per client of limit-rps x burst multiplier (default 5) plus one, refilled limit-rps per second, 503', (t) => {
  t.deepEqual(parse({ 'limit-rps': '2' }).parsed.route.clientRateLimit, { tokensPerFill: 2, fillIntervalMs: 1000, burst: 11, statusCode: 503 });
  t.deepEqual(parse({ 'limit-rps': '3', 'limit-burst-multiplier': '2' }).parsed.route.clientRateLimit, {
    tokensPerFill: 3,
    fillIntervalMs: 1000,
    burst: 7,
    statusCode: 503,
  });
  t.deepEqual(parse({ 'limit-rpm': '60' }).parsed.route.clientRateLimit, { tokensPerFill: 60, fillIntervalMs: 60_000, burst: 301, statusCode: 503 });
  t.is(parse({ 'limit-rps': '0' }).parsed.route.clientRateLimit, undefined, '0 = no limit, as in nginx');
});

test('limit-whitelist: exempt ranges on the rate limit; invalid or without a rate it is reported', (t) => {
  t.deepEqual(parse({ 'limit-rps': '2', 'limit-whitelist': '10.0.0.0/8, 192.168.1.1' }).parsed.route.clientRateLimit?.exemptSourceCidrs, [
    { address: '10.0.0.0', prefixLength: 8 },
    { address: '192.168.1.1', prefixLength: 32 },
  ]);
  const invalid = parse({ 'limit-rps': '2', 'limit-whitelist': 'office' });
  t.is(invalid.parsed.route.clientRateLimit?.exemptSourceCidrs, undefined, 'everybody is limited');
  t.regex(invalid.diagnostics[0]?.message ?? '', /limit-whitelist has invalid value/);
  const alone = parse({ 'limit-whitelist': '10.0.0.0/8' });
  t.is(alone.parsed.route.clientRateLimit, undefined);
  t.regex(alone.diagnostics[0]?.message ?? '', /limit-whitelist ignored: it needs/);
});

test('limit-rps and limit-rpm together: limit-rps applies and limit-rpm is reported', (t) => {
  const { parsed, diagnostics } = parse({ 'limit-rps': '2', 'limit-rpm': '60' });
  t.is(parsed.route.clientRateLimit?.fillIntervalMs, 1000);
  t.is(diagnostics.length, 1);
  t.regex(diagnostics[0]?.message ?? '', /limit-rpm ignored/);
});

test('invalid limits are reported and only that setting is dropped', (t) => {
  const { parsed, diagnostics } = parse({ 'limit-rps': 'ten', 'limit-connections': '-1', 'proxy-connect-timeout': '5s', 'x-forwarded-prefix': '/kept' });
  t.is(parsed.route.clientRateLimit, undefined);
  t.is(parsed.cluster.maxRequests, undefined);
  t.is(parsed.cluster.connectTimeoutMs, undefined);
  t.deepEqual(parsed.route.requestHeaders?.set, [{ name: 'x-forwarded-prefix', value: '/kept' }]);
  t.deepEqual(
    diagnostics.map((d) => [d.reason, /annotation (\S+)/.exec(d.message)?.[1]]),
    [
      [Reason.InvalidAnnotation, `${nginxAnnotationPrefix}limit-rps`],
      [Reason.InvalidAnnotation, `${nginxAnnotationPrefix}limit-connections`],
      [Reason.InvalidAnnotation, `${nginxAnnotationPrefix}proxy-connect-timeout`],
    ],
  );
  const lonely = parse({ 'limit-burst-multiplier': '3' });
  t.is(lonely.parsed.route.clientRateLimit, undefined);
  t.regex(lonely.diagnostics[0]?.message ?? '', /limit-burst-multiplier ignored: it needs/);
});

test('limit-connections caps in-flight requests on the cluster; proxy-connect-timeout sets the connect timeout', (t) => {
  const { parsed, diagnostics } = parse({ 'limit-connections': '4', 'proxy-connect-timeout': '2' });
  t.deepEqual(diagnostics, []);
  t.is(parsed.cluster.maxRequests, 4);
  t.is(parsed.cluster.connectTimeoutMs, 2000);
  t.is(parse({ 'limit-connections': '0' }).parsed.cluster.maxRequests, undefined, '0 = no limit');
});

test('denylist-source-range: denied CIDRs beside the allow-list; an unreadable list denies everybody', (t) => {
  const { parsed } = parse({ 'denylist-source-range': '10.0.0.0/8, 192.168.1.7', 'allowlist-source-range': '10.0.0.0/8' });
  t.deepEqual(parsed.route.deniedSourceCidrs, [
    { address: '10.0.0.0', prefixLength: 8 },
    { address: '192.168.1.7', prefixLength: 32 },
  ]);
  t.deepEqual(parsed.route.allowedSourceCidrs, [{ address: '10.0.0.0', prefixLength: 8 }]);
  const broken = parse({ 'denylist-source-range': '10.0.0.0/33' });
  t.deepEqual(broken.parsed.route.deniedSourceCidrs, [
    { address: '0.0.0.0', prefixLength: 0 },
    { address: '::', prefixLength: 0 },
  ]);
  t.is(broken.diagnostics[0]?.reason, Reason.InvalidAnnotation);
  t.regex(broken.diagnostics[0]?.message ?? '', /every client is denied/);
});

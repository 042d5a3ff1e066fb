import test from 'ava';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { Ingress } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { parseUpstreamHashBy, readNginxBalancing } from './nginx-balancing.js';

function read(values: Record<string, string>, affinity = false): { balancing: ReturnType<typeof readNginxBalancing>; diagnostics: Diagnostic[] } {
  const annotations = Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));
  const ingress = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'app', namespace: 'default', annotations }, spec: {} } as Ingress;
  const diagnostics: Diagnostic[] = [];
  return { balancing: readNginxBalancing(ingress, diagnostics, affinity), diagnostics };
}

test('upstream-hash-by: each nginx variable is hashed from where Envoy finds the same value; combinations hash them all', (t) => {
  t.deepEqual(parseUpstreamHashBy('$request_uri'), { policies: [{ kind: 'header', name: ':path' }] });
  t.deepEqual(parseUpstreamHashBy('$uri'), { policies: [{ kind: 'header', name: ':path', stripQuery: true }] });
  t.deepEqual(parseUpstreamHashBy('$binary_remote_addr'), { policies: [{ kind: 'source-ip' }] });
  t.deepEqual(parseUpstreamHashBy('${http_x_user_id}'), { policies: [{ kind: 'header', name: 'x-user-id' }] });
  t.deepEqual(parseUpstreamHashBy('$cookie_sid'), { policies: [{ kind: 'cookie', name: 'sid' }] });
  t.deepEqual(parseUpstreamHashBy('$arg_tenant'), { policies: [{ kind: 'query-parameter', name: 'tenant' }] });
  t.deepEqual(parseUpstreamHashBy('$host-$request_uri'), { policies: [{ kind: 'header', name: ':authority' }, { kind: 'header', name: ':path' }] });
  t.deepEqual(parseUpstreamHashBy('$upstream_addr$host'), { unknown: ['$upstream_addr'] });
  t.deepEqual(parseUpstreamHashBy('plain'), { unknown: ['plain'] });
});

test('upstream-hash-by asks for ring hash; load-balance ewma is least request; precedence affinity > hash > load-balance', (t) => {
  t.deepEqual(read({ 'upstream-hash-by': '$request_uri' }).balancing, { hashPolicies: [{ kind: 'header', name: ':path' }], loadBalancer: 'ring-hash' });
  t.deepEqual(read({ 'load-balance': 'ewma' }).balancing, { loadBalancer: 'least-request' });
  t.deepEqual(read({ 'load-balance': 'round_robin' }).balancing, {});
  const both = read({ 'upstream-hash-by': '$request_uri', 'load-balance': 'ewma' });
  t.deepEqual(both.balancing, { hashPolicies: [{ kind: 'header', name: ':path' }], loadBalancer: 'ring-hash' });
  t.regex(both.diagnostics[0]?.message ?? '', /load-balance ignored: .*upstream-hash-by is set/);
  const sticky = read({ 'upstream-hash-by': '$request_uri' }, true);
  t.deepEqual(sticky.balancing, {});
  t.regex(sticky.diagnostics[0]?.message ?? '', /upstream-hash-by ignored: .*affinity "cookie" is set/);
  const bad = read({ 'upstream-hash-by': '$upstream_addr', 'load-balance': 'fastest' });
  t.deepEqual(bad.balancing, {});
  t.deepEqual(bad.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation, Reason.InvalidAnnotation]);
});

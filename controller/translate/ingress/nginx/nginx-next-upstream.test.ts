import test from 'ava';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { ConfigMap, Ingress } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxConfigMapAnnotationDefaults, readNginxConfigMap } from './nginx-configmap.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { readNginxNextUpstream } from './nginx-next-upstream.js';

function read(values: Record<string, string>): { retry: ReturnType<typeof readNginxNextUpstream>; diagnostics: Diagnostic[] } {
  const annotations = Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));
  const ingress = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'app', namespace: 'default', annotations }, spec: {} } as Ingress;
  const diagnostics: Diagnostic[] = [];
  return { retry: readNginxNextUpstream(ingress, diagnostics), diagnostics };
}

test('proxy-next-upstream: nginx conditions as Envoy retry conditions, to another endpoint, idempotent methods only', (t) => {
  t.deepEqual(read({ 'proxy-next-upstream': 'error timeout http_502 http_429' }).retry, {
    on: ['connect-failure', 'refused-stream', 'reset', 'retriable-status-codes'],
    numRetries: 2,
    otherEndpoint: true,
    retriableStatusCodes: [429, 502],
    idempotentOnly: true,
  });
  t.deepEqual(read({ 'proxy-next-upstream': 'http_503 non_idempotent', 'proxy-next-upstream-tries': '5' }).retry, {
    on: ['retriable-status-codes'],
    numRetries: 4,
    otherEndpoint: true,
    retriableStatusCodes: [503],
  });
  // tries alone: ingress-nginx's default conditions "error timeout"; 0 is nginx's "no limit".
  t.deepEqual(read({ 'proxy-next-upstream-tries': '0' }).retry?.numRetries, 10);
  t.deepEqual(read({ 'proxy-next-upstream-tries': '2' }).retry?.on, ['connect-failure', 'refused-stream', 'reset']);
  t.is(read({ 'proxy-next-upstream': 'off' }).retry, undefined);
  t.is(read({ 'proxy-next-upstream-tries': '1' }).retry, undefined, 'one try: no retry');
  t.is(read({}).retry, undefined);
});

test('proxy-next-upstream: unknown conditions and bad tries are reported, the rest applies', (t) => {
  const { retry, diagnostics } = read({ 'proxy-next-upstream': 'error sometimes', 'proxy-next-upstream-tries': 'many' });
  t.is(retry?.numRetries, 2);
  t.deepEqual(diagnostics.map((d) => d.message.replace(/^annotation \S+\//, '')), [
    'proxy-next-upstream-tries has invalid value "many"; accepted values: a whole number (0: no limit); using 3',
    'proxy-next-upstream has invalid value "error sometimes"; accepted values: error, timeout, invalid_header, http_500, http_502, http_503, http_504, http_403, http_404, http_429, non_idempotent, off; sometimes ignored',
  ]);
});

test('the ingress-nginx ConfigMap: proxy-next-upstream(-tries) are defaults of the annotations; bad values reported on it', (t) => {
  const diagnostics: Diagnostic[] = [];
  const settings = readNginxConfigMap(
    {
      kind: 'ConfigMap',
      metadata: { name: 'ingress-nginx-controller', namespace: 'ingress-nginx' },
      data: { 'load-balance': 'ewma', 'service-upstream': 'True', 'proxy-next-upstream': 'error http_503', 'proxy-next-upstream-tries': 'lots' },
    } as ConfigMap,
    { namespace: 'ingress-nginx', name: 'ingress-nginx-controller' },
    diagnostics,
  );
  const defaults = nginxConfigMapAnnotationDefaults(settings, false);
  t.is(defaults[`${nginxAnnotationPrefix}load-balance`], 'ewma');
  t.is(defaults[`${nginxAnnotationPrefix}service-upstream`], 'true');
  t.is(defaults[`${nginxAnnotationPrefix}proxy-next-upstream`], 'error http_503');
  t.is(defaults[`${nginxAnnotationPrefix}proxy-next-upstream-tries`], undefined);
  t.true(diagnostics.some((d) => d.reason === Reason.InvalidNginxConfigMapValue && d.message.startsWith('key proxy-next-upstream-tries ')));
});

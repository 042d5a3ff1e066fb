import test from 'ava';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { Ingress } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { readNginxAffinity } from './nginx-affinity.js';
import { nginxBackendKey } from '../../shared/nginx-backend-key.js';

function read(values: Record<string, string>): { settings: ReturnType<typeof readNginxAffinity>; diagnostics: Diagnostic[] } {
  const annotations = Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));
  const ingress = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'app', namespace: 'default', annotations }, spec: {} } as Ingress;
  const diagnostics: Diagnostic[] = [];
  return { settings: readNginxAffinity(ingress, diagnostics), diagnostics };
}

test('affinity cookie: every session-cookie-* attribute is read as ingress-nginx reads it', (t) => {
  const { settings, diagnostics } = read({
    affinity: 'cookie',
    'session-cookie-name': 'route',
    'session-cookie-path': '/app',
    'session-cookie-expires': '7200',
    'session-cookie-max-age': '3600',
    'session-cookie-domain': 'foo.bar',
    'session-cookie-samesite': 'strict',
    'session-cookie-conditional-samesite-none': 'true',
    'session-cookie-secure': 'true',
  });
  t.deepEqual(diagnostics, []);
  // SameSite is sent as written; expires and max-age are both kept (nginx sends both).
  t.deepEqual(settings, { name: 'route', path: '/app', expiresSeconds: 7200, maxAgeSeconds: 3600, domain: 'foo.bar', sameSite: 'strict', conditionalSameSiteNone: true, secure: true });
  t.deepEqual(read({ affinity: 'cookie' }).settings, { name: 'INGRESSCOOKIE' });
  t.deepEqual(read({ affinity: 'cookie', 'session-cookie-secure': 'false' }).settings, { name: 'INGRESSCOOKIE' }, '"false" is the default: Secure over TLS only');
});

test('affinity: session-cookie-* need affinity "cookie"; bad values are reported and left out', (t) => {
  const without = read({ 'session-cookie-samesite': 'Lax', 'session-cookie-name': 'x' });
  t.is(without.settings, undefined);
  t.deepEqual(without.diagnostics.map((d) => d.message.replace(/^annotation \S+\//, '')), [
    'session-cookie-name ignored: it needs nginx.ingress.kubernetes.io/affinity "cookie"',
    'session-cookie-samesite ignored: it needs nginx.ingress.kubernetes.io/affinity "cookie"',
  ]);
  const other = read({ affinity: 'ip' });
  t.is(other.settings, undefined);
  t.deepEqual(other.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  const bad = read({ affinity: 'cookie', 'session-cookie-samesite': 'sometimes', 'session-cookie-path': 'no-slash', 'session-cookie-secure': 'yes', 'session-cookie-max-age': 'soon', 'session-cookie-name': 'a;b' });
  t.deepEqual(bad.settings, { name: 'INGRESSCOOKIE' });
  t.is(bad.diagnostics.length, 5);
});

test("backend key: ingress-nginx's md5(md5(name) .. name) of namespace-service-port", (t) => {
  // Computed with md5sum: A=$(echo -n default-web-80 | md5sum); echo -n "${A}default-web-80" | md5sum
  t.is(nginxBackendKey({ namespace: 'default', name: 'web', port: 80 }), '6cde5721ec2c7e2bce07cff7d0e4ac37');
});

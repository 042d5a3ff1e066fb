// auth-tls-* and proxy-ssl-* through translate(): per host and per Ingress, the tenant rule for their Secrets, and
// what a Secret that cannot be used gives (never its content in a message). Real Envoy: test/nginx-parity
// auth-tls.yaml and proxy-ssl.yaml, envoy/client-certificates.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { ClusterIR, RouteIR, VirtualHostIR } from '../../../../ir/index.js';
import { envoyTestdataDir } from '../../../../envoy/test-helpers/golden-cases.js';
import type { ClusterState, Ingress, Secret, Service } from '../../shared/kube-objects.js';
import { defaultTranslateOptions } from '../../shared/options.js';
import { Reason } from '../../shared/reasons.js';
import { translate, type TranslationResult } from '../../translate.js';
import { ingressListenersOf, ingressTlsServersOf } from '../ingress-listeners.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { boringSslCipherRules } from './nginx-proxy-ssl-ciphers.js';

const certificate = readFileSync(path.join(envoyTestdataDir(), 'certs', 'test-only.crt'), 'utf8');
const key = readFileSync(path.join(envoyTestdataDir(), 'certs', 'test-only.key'), 'utf8');
const b64 = (text: string): string => Buffer.from(text).toString('base64');

const nginx = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));

function secret(namespace: string, name: string, data: Record<string, string>, type = 'Opaque'): Secret {
  return { kind: 'Secret', metadata: { name, namespace }, type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

const hostTls = (namespace: string, name: string): Secret => secret(namespace, name, { 'tls.crt': certificate, 'tls.key': key }, 'kubernetes.io/tls');

function ing(name: string, host: string, annotations: Record<string, string>, opts: { namespace?: string; created?: string; service?: string; tls?: boolean } = {}): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace: opts.namespace ?? 'team', annotations: nginx(annotations), creationTimestamp: opts.created ?? '2024-01-01T00:00:00Z' },
    spec: {
      ingressClassName: 'envoy-ingress',
      ...(opts.tls === false ? {} : { tls: [{ hosts: [host], secretName: 'host-tls' }] }),
      rules: [{ host, http: { paths: [{ path: `/${name}`, pathType: 'Prefix', backend: { service: { name: opts.service ?? 'web', port: { number: 80 } } } }] } }],
    },
  };
}

function service(namespace: string, name: string): Service {
  return { kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'http', port: 80 }] } };
}

function run(ingresses: Ingress[], secrets: Secret[]): TranslationResult {
  const state: ClusterState = {
    ingresses,
    ingressClasses: [{ kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } }],
    services: [service('team', 'web'), service('other', 'web')],
    endpointSlices: [],
    endpoints: [],
    secrets: [hostTls('team', 'host-tls'), hostTls('other', 'host-tls'), ...secrets],
  } as ClusterState;
  return translate(state, { ...defaultTranslateOptions, nginxAnnotations: true });
}

const httpsHost = (result: TranslationResult, name: string): VirtualHostIR | undefined =>
  ingressListenersOf(result.ir).https?.routeTable?.virtualHosts.find((v) => v.name === name);
const tlsServer = (result: TranslationResult, name: string) => ingressTlsServersOf(result.ir).find((s) => s.serverNames.includes(name));
const caSecret = (namespace: string, name = 'client-ca'): Secret => secret(namespace, name, { 'ca.crt': certificate });

test('auth-tls: the host\'s chain asks for certificates of its CA, its routes check them, another host of the port is untouched', (t) => {
  const result = run(
    [
      ing('secure', 'secure.test', { 'auth-tls-secret': 'team/client-ca', 'auth-tls-verify-depth': '2', 'auth-tls-error-page': 'http://secure.test/error', 'auth-tls-pass-certificate-to-upstream': 'true', 'auth-tls-match-cn': 'CN=client' }),
      ing('open', 'open.test', {}),
    ],
    [caSecret('team')],
  );
  t.deepEqual(result.diagnostics.filter((d) => d.severity === 'Warning' && d.reason !== Reason.CertificateHostMismatch), []);
  t.deepEqual(tlsServer(result, 'secure.test')?.clientValidation, { mode: 'request', certificateAuthority: 'team/client-ca/ca.crt', verifyDepth: 2 });
  t.deepEqual(httpsHost(result, 'secure.test')?.clientCertificate, { serverNames: ['secure.test'], verify: 'required', errorPage: 'http://secure.test/error', subjectPattern: 'CN=client', passCertificate: true });
  t.deepEqual(result.ir.certificateAuthorities?.map((ca) => ca.name), ['team/client-ca/ca.crt']);
  t.is(tlsServer(result, 'open.test')?.clientValidation, undefined);
  t.is(httpsHost(result, 'open.test')?.clientCertificate, undefined);
  t.true(result.references.secrets.includes('team/client-ca'));
});

test('auth-tls verify-client: optional and optional_no_ca ask without requiring; off asks nothing and only drops the headers', (t) => {
  const result = run(
    [
      ing('a', 'optional.test', { 'auth-tls-secret': 'client-ca', 'auth-tls-verify-client': 'optional' }),
      ing('b', 'noca.test', { 'auth-tls-secret': 'client-ca', 'auth-tls-verify-client': 'optional_no_ca' }),
      ing('c', 'off.test', { 'auth-tls-secret': 'client-ca', 'auth-tls-verify-client': 'off' }),
    ],
    [caSecret('team')],
  );
  t.is(httpsHost(result, 'optional.test')?.clientCertificate?.verify, 'optional');
  t.is(httpsHost(result, 'noca.test')?.clientCertificate?.verify, 'any');
  t.is(tlsServer(result, 'noca.test')?.clientValidation?.mode, 'request');
  t.deepEqual(httpsHost(result, 'off.test')?.clientCertificate, { serverNames: [], verify: 'any' });
  t.is(tlsServer(result, 'off.test')?.clientValidation, undefined);
});

test('auth-tls: a CA Secret of another namespace is refused by name (its content never shown), the host answers 403', (t) => {
  const foreign = secret('other', 'client-ca', { 'ca.crt': certificate, note: 'top-secret-value' });
  const result = run([ing('secure', 'secure.test', { 'auth-tls-secret': 'other/client-ca' })], [foreign]);
  const refused = result.diagnostics.filter((d) => d.reason === Reason.SecretNamespaceRefused);
  t.is(refused.length, 1);
  t.regex(refused[0]?.message ?? '', /other\/client-ca/);
  for (const d of result.diagnostics) {
    t.false(d.message.includes('BEGIN CERTIFICATE') || d.message.includes('top-secret-value') || d.message.includes(b64(certificate).slice(0, 20)));
  }
  const routes = httpsHost(result, 'secure.test')?.routes ?? [];
  t.true(routes.length > 0 && routes.every((r: RouteIR) => r.action.kind === 'direct' && r.action.status === 403));
  t.is(tlsServer(result, 'secure.test')?.clientValidation, undefined);
  t.is(result.ir.certificateAuthorities, undefined);
  t.false(result.references.secrets.includes('other/client-ca'));
});

test('auth-tls: a missing Secret or one without a usable ca.crt makes the host answer 403, reported', (t) => {
  const missing = run([ing('secure', 'secure.test', { 'auth-tls-secret': 'nope' })], []);
  t.true(missing.diagnostics.some((d) => d.reason === Reason.SecretNotFound && d.message.includes('team/nope')));
  t.true((httpsHost(missing, 'secure.test')?.routes ?? []).every((r) => r.action.kind === 'direct' && r.action.status === 403));
  const broken = run([ing('secure', 'secure.test', { 'auth-tls-secret': 'client-ca' })], [secret('team', 'client-ca', { 'ca.crt': 'not a certificate at all' })]);
  const invalid = broken.diagnostics.find((d) => d.reason === Reason.SecretInvalid);
  t.regex(invalid?.message ?? '', /ca\.crt/);
  t.false(invalid?.message.includes('not a certificate at all') ?? true);
  // A match-cn RE2 cannot run is not dropped: the host is refused.
  const badCn = run([ing('secure', 'secure.test', { 'auth-tls-secret': 'client-ca', 'auth-tls-match-cn': 'CN=(?<=x)' })], [caSecret('team')]);
  t.true((httpsHost(badCn, 'secure.test')?.routes ?? []).every((r) => r.action.kind === 'direct' && r.action.status === 403));
});

test('auth-tls is host-wide: the oldest Ingress of the host decides, a later one with other settings is reported', (t) => {
  const result = run(
    [
      ing('newer', 'shared.test', { 'auth-tls-secret': 'ca-two', 'auth-tls-verify-client': 'optional' }, { created: '2024-02-01T00:00:00Z' }),
      ing('older', 'shared.test', { 'auth-tls-secret': 'ca-one' }, { created: '2024-01-01T00:00:00Z' }),
      ing('plain', 'shared.test', {}, { created: '2024-03-01T00:00:00Z' }),
    ],
    [caSecret('team', 'ca-one'), caSecret('team', 'ca-two')],
  );
  t.is(tlsServer(result, 'shared.test')?.clientValidation?.certificateAuthority, 'team/ca-one/ca.crt');
  t.is(httpsHost(result, 'shared.test')?.clientCertificate?.verify, 'required');
  const ignored = result.diagnostics.filter((d) => /auth-tls-\* ignored on host shared\.test/.test(d.message));
  t.deepEqual(ignored.map((d) => d.object.name), ['newer']);
});

test('proxy-ssl: the Ingress\'s TLS clusters verify and present the Secret\'s certificates; a plain backend is unchanged', (t) => {
  const backend = secret('team', 'backend', { 'ca.crt': certificate, 'tls.crt': certificate, 'tls.key': key });
  const result = run(
    [
      ing('tls', 'api.test', { 'backend-protocol': 'HTTPS', 'proxy-ssl-secret': 'backend', 'proxy-ssl-verify': 'on', 'proxy-ssl-name': 'api.internal', 'proxy-ssl-server-name': 'on', 'proxy-ssl-protocols': 'TLSv1.3', 'proxy-ssl-ciphers': 'HIGH:!AES' }),
      ing('plain', 'plain.test', { 'proxy-ssl-secret': 'backend', 'proxy-ssl-verify': 'on' }),
    ],
    [backend],
  );
  const variant = result.ir.clusters.find((c: ClusterIR) => c.name.includes('proxy-ssl'));
  t.deepEqual(variant?.upstreamTls, {
    sni: 'api.internal',
    minVersion: '1.3',
    maxVersion: '1.3',
    verify: { certificateAuthority: 'team/backend/ca.crt', subjectAltNames: [{ kind: 'dns', value: 'api.internal' }], verifyDepth: 1 },
    clientCertificate: 'team/backend',
    cipherSuites: ['HIGH', '!AES'],
  });
  t.true(result.ir.secrets.some((s) => s.name === 'team/backend'));
  t.true(result.ir.clusters.some((c) => c.name === 'team/web/80' && c.upstreamTls === undefined));
  t.true(result.references.secrets.includes('team/backend'));
});

test('proxy-ssl: a Secret of another namespace or a missing one denies the Ingress\'s paths (503)', (t) => {
  const result = run(
    [ing('foreign', 'a.test', { 'backend-protocol': 'HTTPS', 'proxy-ssl-secret': 'other/backend' }), ing('missing', 'b.test', { 'backend-protocol': 'HTTPS', 'proxy-ssl-secret': 'nope' })],
    [secret('other', 'backend', { 'ca.crt': certificate })],
  );
  t.true(result.diagnostics.some((d) => d.reason === Reason.SecretNamespaceRefused && d.message.includes('other/backend')));
  t.true(result.diagnostics.some((d) => d.reason === Reason.SecretNotFound && d.message.includes('team/nope')));
  for (const host of ['a.test', 'b.test']) {
    const route = httpsHost(result, host)?.routes.find((r) => r.source !== undefined);
    t.is(route?.action.kind === 'direct' ? route.action.status : undefined, 503, host);
  }
});

test('proxy-ssl-ciphers: BoringSSL rules pass when every rule is known and a cipher remains', (t) => {
  t.deepEqual(boringSslCipherRules('HIGH:!AES'), { rules: ['HIGH', '!AES'] });
  t.deepEqual(boringSslCipherRules('ECDHE-RSA-AES128-GCM-SHA256:kEECDH+AESGCM'), { rules: ['ECDHE-RSA-AES128-GCM-SHA256', 'kEECDH+AESGCM'] });
  // What Envoy refuses (checked against Envoy 1.40 in validate mode): an empty result, unknown groups.
  t.true('problem' in boringSslCipherRules('HIGH:!AES:!CHACHA20'));
  t.true('problem' in boringSslCipherRules('!ALL'));
  t.true('problem' in boringSslCipherRules('MEDIUM'));
  t.true('problem' in boringSslCipherRules('@STRENGTH'));
});

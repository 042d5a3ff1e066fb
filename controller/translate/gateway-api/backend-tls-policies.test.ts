import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { envoyTestdataDir } from '../../../envoy/test-helpers/golden-cases.js';
import type { BackendTLSPolicy, ClusterState, ConfigMap, Secret } from '../shared/kube-objects.js';
import { type BackendTlsSettings, policyCertificateAuthorityName, resolveBackendTlsPolicies } from './backend-tls-policies.js';

const caPem = readFileSync(path.join(envoyTestdataDir(), 'certs', 'test-only.crt'), 'utf8');

function configMap(name: string, data: Record<string, string>, namespace = 'team'): ConfigMap {
  return { kind: 'ConfigMap', metadata: { name, namespace }, data };
}

function policy(
  name: string,
  target: { name: string; sectionName?: string },
  validation: NonNullable<NonNullable<BackendTLSPolicy['spec']>['validation']>,
  meta: { namespace?: string; creationTimestamp?: string; generation?: number } = {},
): BackendTLSPolicy {
  return {
    kind: 'BackendTLSPolicy',
    metadata: { name, namespace: meta.namespace ?? 'team', ...(meta.creationTimestamp === undefined ? {} : { creationTimestamp: meta.creationTimestamp }), ...(meta.generation === undefined ? {} : { generation: meta.generation }) },
    spec: { targetRefs: [{ group: '', kind: 'Service', ...target }], validation },
  };
}

const trusted = { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'ca' }] };

function state(policies: BackendTLSPolicy[], configMaps: ConfigMap[] = [configMap('ca', { 'ca.crt': caPem })]): ClusterState {
  return { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], endpoints: [], secrets: [], configMaps, backendTlsPolicies: policies } as ClusterState;
}

function resolve(policies: BackendTLSPolicy[], configMaps?: ConfigMap[]): ReturnType<typeof resolveBackendTlsPolicies> {
  return resolveBackendTlsPolicies(state(policies, configMaps), new Map<string, Secret>());
}

function statusOf(result: ReturnType<typeof resolveBackendTlsPolicies>, name: string, services: Record<string, string[]> = { 'team/web': ['infra/gw'] }): string[] | undefined {
  const gateways = new Map(Object.entries(services).map(([k, v]) => [k, new Set(v)]));
  const entry = result.status(gateways, 'example.com/ours').find((p) => p.ref.name === name);
  return entry?.ancestors[0]?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`);
}

function sniOf(settings: BackendTlsSettings | undefined): string | undefined {
  return settings?.valid === true ? settings.tls.sni : undefined;
}

test('the older policy on one target wins, then the first by name; the other is Conflicted and never applied', (t) => {
  const result = resolve([
    policy('b-newer', { name: 'web' }, { ...trusted, hostname: 'newer.example' }, { creationTimestamp: '2026-01-02T00:00:00Z' }),
    policy('z-older', { name: 'web' }, { ...trusted, hostname: 'older.example' }, { creationTimestamp: '2026-01-01T00:00:00Z' }),
    // Same timestamp as z-older: by name, a-same comes first.
    policy('a-same', { name: 'api' }, { ...trusted, hostname: 'a.example' }, { creationTimestamp: '2026-01-01T00:00:00Z' }),
    policy('b-same', { name: 'api' }, { ...trusted, hostname: 'b.example' }, { creationTimestamp: '2026-01-01T00:00:00Z' }),
  ]);
  t.is(sniOf(result.lookup('team', 'web', { port: 443, name: 'https' })), 'older.example');
  t.is(sniOf(result.lookup('team', 'api', { port: 443 })), 'a.example');
  t.deepEqual(statusOf(result, 'b-newer'), ['Accepted=False/Conflicted@0', 'ResolvedRefs=True/ResolvedRefs@0']);
  t.deepEqual(statusOf(result, 'b-same', { 'team/api': ['infra/gw'] }), ['Accepted=False/Conflicted@0', 'ResolvedRefs=True/ResolvedRefs@0']);
  t.deepEqual(statusOf(result, 'z-older'), ['Accepted=True/Accepted@0', 'ResolvedRefs=True/ResolvedRefs@0']);
});

test('a policy naming the port (sectionName = port name) wins over one naming the whole Service, and they do not conflict', (t) => {
  const result = resolve([
    policy('whole', { name: 'web' }, { ...trusted, hostname: 'whole.example' }, { creationTimestamp: '2026-01-01T00:00:00Z' }),
    policy('port', { name: 'web', sectionName: 'https-1' }, { ...trusted, hostname: 'port.example' }, { creationTimestamp: '2026-01-02T00:00:00Z' }),
  ]);
  t.is(sniOf(result.lookup('team', 'web', { port: 443, name: 'https-1' })), 'port.example');
  t.is(sniOf(result.lookup('team', 'web', { port: 8443, name: 'https-2' })), 'whole.example');
  t.is(result.lookup('team', 'other', { port: 443, name: 'https-1' }), undefined);
  t.deepEqual(statusOf(result, 'port'), ['Accepted=True/Accepted@0', 'ResolvedRefs=True/ResolvedRefs@0']);
  t.deepEqual(statusOf(result, 'whole'), ['Accepted=True/Accepted@0', 'ResolvedRefs=True/ResolvedRefs@0']);
});

test('targets are local: a policy of another namespace never applies to this namespace\'s Service of that name', (t) => {
  const result = resolve([policy('hijack', { name: 'web' }, { ...trusted, hostname: 'evil.example' }, { namespace: 'other' })], [configMap('ca', { 'ca.crt': caPem }, 'other')]);
  t.is(result.lookup('team', 'web', { port: 443, name: 'https' }), undefined);
  t.is(sniOf(result.lookup('other', 'web', { port: 443, name: 'https' })), 'evil.example');
});

test('SNI is the hostname; the names checked are subjectAltNames, else the hostname; the CA is the ConfigMap\'s ca.crt', (t) => {
  const result = resolve([
    policy('plain', { name: 'web' }, { ...trusted, hostname: 'web.example' }),
    policy('sans', { name: 'api' }, { ...trusted, hostname: 'sni.example', subjectAltNames: [{ type: 'URI', uri: 'spiffe://example/api' }, { type: 'Hostname', hostname: 'api.example' }] }),
  ]);
  const plain = result.lookup('team', 'web', { port: 443 });
  const sans = result.lookup('team', 'api', { port: 443 });
  t.deepEqual(plain?.valid === true ? plain.tls : undefined, { sni: 'web.example', verify: { certificateAuthority: policyCertificateAuthorityName('team', 'plain'), subjectAltNames: [{ kind: 'dns', value: 'web.example' }] } });
  t.deepEqual(sans?.valid === true ? sans.tls.verify?.subjectAltNames : undefined, [{ kind: 'uri', value: 'spiffe://example/api' }, { kind: 'dns', value: 'api.example' }]);
  t.deepEqual(result.certificateAuthorities.map((ca) => ca.name), [policyCertificateAuthorityName('team', 'plain'), policyCertificateAuthorityName('team', 'sans')]);
  t.true(result.certificateAuthorities[0]?.certificates.includes('-----BEGIN CERTIFICATE-----'));
  t.deepEqual(result.configMaps, ['team/ca']);
});

test('CA refs: missing or without ca.crt -> InvalidCACertificateRef, another kind -> InvalidKind; none usable -> NoValidCACertificate and the port refused', (t) => {
  const result = resolve(
    [
      policy('missing', { name: 'a' }, { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'nope' }], hostname: 'a.example' }, { generation: 4 }),
      policy('empty', { name: 'b' }, { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'empty' }], hostname: 'b.example' }),
      policy('kind', { name: 'c' }, { caCertificateRefs: [{ group: 'invalid.io', kind: 'InvalidKind', name: 'x' }], hostname: 'c.example' }),
      policy('partly', { name: 'd' }, { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'nope' }, { group: '', kind: 'ConfigMap', name: 'ca' }], hostname: 'd.example' }),
      policy('system', { name: 'e' }, { wellKnownCACertificates: 'System', hostname: 'e.example' }),
    ],
    [configMap('ca', { 'ca.crt': caPem }), configMap('empty', { 'ca.crt': '' })],
  );
  const services = { 'team/a': ['infra/gw'], 'team/b': ['infra/gw'], 'team/c': ['infra/gw'], 'team/d': ['infra/gw'], 'team/e': ['infra/gw'] };
  t.deepEqual(statusOf(result, 'missing', services), ['Accepted=False/NoValidCACertificate@4', 'ResolvedRefs=False/InvalidCACertificateRef@4']);
  t.deepEqual(statusOf(result, 'empty', services), ['Accepted=False/NoValidCACertificate@0', 'ResolvedRefs=False/InvalidCACertificateRef@0']);
  t.deepEqual(statusOf(result, 'kind', services), ['Accepted=False/NoValidCACertificate@0', 'ResolvedRefs=False/InvalidKind@0']);
  // One usable ref: accepted, the unusable one still reported.
  t.deepEqual(statusOf(result, 'partly', services), ['Accepted=True/Accepted@0', 'ResolvedRefs=False/InvalidCACertificateRef@0']);
  t.deepEqual(statusOf(result, 'system', services), ['Accepted=False/Invalid@0', 'ResolvedRefs=True/ResolvedRefs@0']);
  for (const service of ['a', 'b', 'c', 'e']) t.is(result.lookup('team', service, { port: 443 })?.valid, false, service);
  t.is(result.lookup('team', 'd', { port: 443 })?.valid, true);
  // A ConfigMap named but missing is still read (a later one makes a new build).
  t.deepEqual(result.configMaps, ['team/ca', 'team/empty', 'team/nope']);
});

test('ancestors: the Gateways of the routes that send to a targeted Service, sorted; none when no route does', (t) => {
  const result = resolve([policy('p', { name: 'web' }, { ...trusted, hostname: 'web.example' })]);
  const status = result.status(new Map([['team/web', new Set(['infra/z', 'infra/a'])]]), 'example.com/ours');
  t.deepEqual(status[0]?.ancestors.map((a) => a.ancestorRef), [
    { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'infra', name: 'a' },
    { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'infra', name: 'z' },
  ]);
  t.deepEqual(result.status(new Map(), 'example.com/ours')[0]?.ancestors, []);
});

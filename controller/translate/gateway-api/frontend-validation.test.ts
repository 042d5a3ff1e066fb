// spec.tls.frontend -> the HTTPS listeners' ClientValidationIR and conditions, on the shapes of the upstream
// conformance manifests (gateway-with-clientcertificate-validation*.yaml, gateway-invalid-default-frontend-...yaml);
// the golden case gateway-api-frontend-validation covers every reason.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { clusterStateFromYaml } from '../shared/cluster-state-yaml.js';
import type { ClusterState, ConfigMap, Gateway, GatewayFrontendTLS, GatewayListener } from '../shared/kube-objects.js';
import { defaultTranslateOptions } from '../shared/options.js';
import { translate } from '../translate.js';

const golden = clusterStateFromYaml(readFileSync(fileURLToPath(new URL('../../../../testdata/translate/gateway-api-frontend-validation.in.yaml', import.meta.url)), 'utf8')).state;
const caPem = (golden.configMaps ?? []).find((c) => c.metadata.name === 'clients-ca')?.data?.['ca.crt'] as string;

const configMap = (name: string, crt = caPem): ConfigMap => ({ kind: 'ConfigMap', metadata: { name, namespace: 'infra' }, data: { 'ca.crt': crt } });
const https = (name: string, port: number, hostname?: string): GatewayListener => ({ name, port, protocol: 'HTTPS', ...(hostname === undefined ? {} : { hostname }), tls: { certificateRefs: [{ name: 'wildcard-tls' }] } });

function state(gateway: Gateway, configMaps: ConfigMap[]): ClusterState {
  return { ...golden, gateways: [gateway], configMaps, httpRoutes: [], referenceGrants: [] };
}

function gateway(frontend: GatewayFrontendTLS, listeners: GatewayListener[]): Gateway {
  return { kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra' }, spec: { gatewayClassName: 'envoy', tls: { frontend }, listeners } };
}

const cmRef = (name: string): { kind: string; group: string; name: string } => ({ kind: 'ConfigMap', group: '', name });

test('default and perPort: each HTTPS port gets its own CA, AllowValidOnly requires a certificate', (t) => {
  const result = translate(
    state(
      gateway({ default: { validation: { caCertificateRefs: [cmRef('default-ca')] } }, perPort: [{ port: 9444, tls: { validation: { caCertificateRefs: [cmRef('port-ca')] } } }] }, [
        https('https', 9443),
        https('https-with-hostname', 9444, 'second-example.org'),
      ]),
      [configMap('default-ca'), configMap('port-ca')],
    ),
    defaultTranslateOptions,
  );
  const servers = result.ir.listeners.filter((l) => l.name.startsWith('gateway/')).flatMap((l) => (l.tlsServers ?? []).map((s) => [l.port, s.clientValidation]));
  t.deepEqual(servers, [
    [9443, { mode: 'require', certificateAuthority: 'gateway/infra/gw/frontend-default/ca.crt' }],
    [9444, { mode: 'require', certificateAuthority: 'gateway/infra/gw/frontend-port-9444/ca.crt' }],
  ]);
  t.deepEqual(
    result.ir.certificateAuthorities?.map((c) => c.name),
    ['gateway/infra/gw/frontend-default/ca.crt', 'gateway/infra/gw/frontend-port-9444/ca.crt'],
  );
  t.is(result.ir.certificateAuthorities?.[0]?.certificates.trim(), caPem.trim());
  t.deepEqual(result.references.configMaps, ['infra/default-ca', 'infra/port-ca']);
  const status = result.gatewayApiStatus?.gateways[0];
  t.false(status?.conditions.some((c) => c.type === 'InsecureFrontendValidationMode'), 'no insecure mode configured');
  t.true(status?.listeners.every((l) => l.conditions.find((c) => c.type === 'ResolvedRefs')?.status === 'True'));
});

test('AllowInsecureFallback: the certificate is asked for, never required, and the Gateway says so', (t) => {
  const result = translate(
    state(gateway({ default: { validation: { mode: 'AllowInsecureFallback', caCertificateRefs: [cmRef('default-ca')] } } }, [https('https', 9443)]), [configMap('default-ca')]),
    defaultTranslateOptions,
  );
  t.is(result.ir.listeners[0]?.tlsServers?.[0]?.clientValidation?.mode, 'request');
  const insecure = result.gatewayApiStatus?.gateways[0]?.conditions.find((c) => c.type === 'InsecureFrontendValidationMode');
  t.like(insecure, { status: 'True', reason: 'ConfigurationChanged' });
});

test('an invalid default refuses the HTTPS listener only; a perPort entry for an HTTP port changes nothing', (t) => {
  const result = translate(
    state(gateway({ default: { validation: { caCertificateRefs: [cmRef('does-not-exist')] } }, perPort: [{ port: 9080, tls: { validation: { caCertificateRefs: [cmRef('default-ca')] } } }] }, [
      https('https', 9443),
      { name: 'http', port: 9080, protocol: 'HTTP' },
    ]),
    [configMap('default-ca')],
    ),
    defaultTranslateOptions,
  );
  t.deepEqual(result.ir.listeners.filter((l) => l.name.startsWith('gateway/')).map((l) => [l.port, l.protocol]), [[9080, 'HTTP']], 'the HTTPS listener is not served at all');
  const listeners = result.gatewayApiStatus?.gateways[0]?.listeners ?? [];
  const conditions = (name: string): Record<string, [string, string]> =>
    Object.fromEntries((listeners.find((l) => l.name === name)?.conditions ?? []).map((c) => [c.type, [c.status, c.reason]]));
  t.like(conditions('https'), { Accepted: ['False', 'NoValidCACertificate'], ResolvedRefs: ['False', 'InvalidCACertificateRef'] });
  t.is(conditions('https')['Programmed']?.[0], 'False');
  t.like(conditions('http'), { Accepted: ['True', 'Accepted'], ResolvedRefs: ['True', 'ResolvedRefs'], Programmed: ['True', 'Programmed'] });
});

test('several refs: the usable ones form one bundle, an unusable one is reported while the listener is served', (t) => {
  const result = translate(
    state(gateway({ default: { validation: { caCertificateRefs: [cmRef('a-ca'), cmRef('missing'), cmRef('b-ca')] } } }, [https('https', 9443)]), [configMap('a-ca'), configMap('b-ca')]),
    defaultTranslateOptions,
  );
  t.is(result.ir.listeners[0]?.tlsServers?.[0]?.clientValidation?.mode, 'require');
  t.is(result.ir.certificateAuthorities?.[0]?.certificates.match(/BEGIN CERTIFICATE/g)?.length, 2);
  const resolved = result.gatewayApiStatus?.gateways[0]?.listeners[0]?.conditions.find((c) => c.type === 'ResolvedRefs');
  t.like(resolved, { status: 'False', reason: 'InvalidCACertificateRef' });
  t.regex(resolved?.message ?? '', /caCertificateRefs\[1\] \(ConfigMap infra\/missing\): ConfigMap not found/);
  t.false(JSON.stringify(result.diagnostics).includes('BEGIN CERTIFICATE'), 'no certificate text in messages');
});

// The TLS contexts of client certificates and upstream TLS, as Envoy JSON (what they do through a real Envoy:
// client-certificates.test.ts).
import test from 'ava';
import type { ClusterIR } from '../ir/index.js';
import { buildUpstreamTlsSocket } from './cluster-policy.js';
import { buildClientCertificatePerRoute } from './client-certificate-check.js';
import { buildDownstreamTlsContext } from './downstream-tls-context.js';

const ads = { ads: {}, resource_api_version: 'V3' };

test('a chain without client validation asks for no certificate', (t) => {
  const context = buildDownstreamTlsContext('default/tls');
  t.false('require_client_certificate' in context);
  t.false('combined_validation_context' in (context['common_tls_context'] as object));
});

test('client validation: CAs over SDS combined with the chain\'s mode and depth', (t) => {
  const request = buildDownstreamTlsContext('default/tls', { mode: 'request', certificateAuthority: 'default/ca/ca.crt', verifyDepth: 2 });
  t.is(request['require_client_certificate'], false);
  t.is(request['disable_stateless_session_resumption'], true);
  t.is(request['disable_stateful_session_resumption'], true);
  t.deepEqual((request['common_tls_context'] as Record<string, unknown>)['combined_validation_context'], {
    default_validation_context: { trust_chain_verification: 'ACCEPT_UNTRUSTED', max_verify_depth: 2 },
    validation_context_sds_secret_config: { name: 'default/ca/ca.crt', sds_config: ads },
  });
  const require = buildDownstreamTlsContext('default/tls', { mode: 'require', certificateAuthority: 'default/ca/ca.crt' });
  t.is(require['require_client_certificate'], true);
  t.deepEqual((require['common_tls_context'] as Record<string, unknown>)['combined_validation_context'], {
    default_validation_context: {},
    validation_context_sds_secret_config: { name: 'default/ca/ca.crt', sds_config: ads },
  });
});

const cluster: ClusterIR = { name: 'default/web/443', service: { namespace: 'default', name: 'web', port: 443 } };

test('upstream TLS without verification only encrypts', (t) => {
  t.deepEqual(buildUpstreamTlsSocket(cluster, {}), {
    name: 'envoy.transport_sockets.tls',
    typed_config: { '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext', common_tls_context: { alpn_protocols: ['http/1.1'] } },
  });
});

test('upstream TLS verifies against CAs and names, presents a certificate, limits versions and ciphers', (t) => {
  const socket = buildUpstreamTlsSocket({ ...cluster, protocol: 'http2' }, {
    sni: 'web.internal',
    verify: { certificateAuthority: 'default/ca/ca.crt', subjectAltNames: [{ kind: 'dns', value: 'web.internal' }, { kind: 'uri', value: 'spiffe://cluster/web' }], verifyDepth: 1 },
    clientCertificate: 'default/client',
    minVersion: '1.2',
    maxVersion: '1.3',
    cipherSuites: ['ECDHE-RSA-CHACHA20-POLY1305'],
  });
  t.deepEqual(socket['typed_config'], {
    '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
    sni: 'web.internal',
    common_tls_context: {
      alpn_protocols: ['h2'],
      tls_certificate_sds_secret_configs: [{ name: 'default/client', sds_config: ads }],
      combined_validation_context: {
        default_validation_context: {
          match_typed_subject_alt_names: [
            { san_type: 'DNS', matcher: { exact: 'web.internal' } },
            { san_type: 'URI', matcher: { exact: 'spiffe://cluster/web' } },
          ],
          max_verify_depth: 1,
        },
        validation_context_sds_secret_config: { name: 'default/ca/ca.crt', sds_config: ads },
      },
      tls_params: { tls_minimum_protocol_version: 'TLSv1_2', tls_maximum_protocol_version: 'TLSv1_3', cipher_suites: ['ECDHE-RSA-CHACHA20-POLY1305'] },
    },
  });
});

test('the client certificate check: the script with the host\'s settings, and a subject rule only with a pattern', (t) => {
  const plain = buildClientCertificatePerRoute({ serverNames: ['a.test', '*.b.test'], verify: 'optional' });
  t.deepEqual(Object.keys(plain), ['client-certificate-check']);
  t.deepEqual((plain['client-certificate-check'] as Record<string, unknown>)['filter_context'], { verify: 'optional', serverNames: 'a.test *.b.test', tls: '1' });
  const full = buildClientCertificatePerRoute({ serverNames: ['a.test'], verify: 'required', errorPage: 'http://a.test/error', subjectPattern: 'CN=x', passCertificate: true });
  t.deepEqual((full['client-certificate-check'] as Record<string, unknown>)['filter_context'], { verify: 'required', serverNames: 'a.test', tls: '1', errorPage: 'http://a.test/error', passCertificate: '1' });
  t.regex(JSON.stringify(full['client-certificate-subject']), /"regex":"\.\*\(\?:CN=x\)\.\*"/);
  // A plain-HTTP host only strips the headers: no subject rule (there is no certificate to match).
  const stripOnly = buildClientCertificatePerRoute({ serverNames: [], verify: 'any', subjectPattern: 'CN=x' });
  t.deepEqual(Object.keys(stripOnly), ['client-certificate-check']);
});

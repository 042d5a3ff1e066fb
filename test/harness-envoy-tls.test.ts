/**
 * Test certificates against the real Envoy (BoringSSL) and node's TLS client: a listener terminating TLS for
 * secure.example.test with a certificate from createTestCA; verification succeeds only with the issuing CA.
 */
import test from 'ava';
import { useEchoBackend, useEnvoy } from './harness/ava-fixtures.js';
import type { EchoBackend } from './harness/echo-backend.js';
import { httpsGet } from './harness/http-client.js';
import { createTestCA, type IssuedCertificate } from './harness/test-certs.js';

function tlsBootstrap(backend: EchoBackend, serving: IssuedCertificate): object {
  return {
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: 0 } } },
    static_resources: {
      listeners: [
        {
          name: 'ingress_https',
          address: { socket_address: { address: '127.0.0.1', port_value: 0 } },
          listener_filters: [
            {
              name: 'envoy.filters.listener.tls_inspector',
              typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector' },
            },
          ],
          filter_chains: [
            {
              filter_chain_match: { server_names: ['secure.example.test'] },
              transport_socket: {
                name: 'envoy.transport_sockets.tls',
                typed_config: {
                  '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext',
                  common_tls_context: {
                    tls_certificates: [
                      { certificate_chain: { inline_string: serving.certPem }, private_key: { inline_string: serving.keyPem } },
                    ],
                  },
                },
              },
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: {
                    '@type':
                      'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                    stat_prefix: 'ingress_https',
                    route_config: {
                      virtual_hosts: [
                        { name: 'secure', domains: ['secure.example.test'], routes: [{ match: { prefix: '/' }, route: { cluster: 'secure' } }] },
                      ],
                    },
                    http_filters: [
                      {
                        name: 'envoy.filters.http.router',
                        typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
      clusters: [
        {
          name: 'secure',
          type: 'STATIC',
          connect_timeout: '1s',
          load_assignment: {
            cluster_name: 'secure',
            endpoints: [
              { lb_endpoints: [{ endpoint: { address: { socket_address: { address: backend.address, port_value: backend.port } } } }] },
            ],
          },
        },
      ],
    },
  };
}

test('Envoy serves a createTestCA certificate that node verifies by SNI name; another CA is refused', async (t) => {
  const ca = await createTestCA();
  const serving = await ca.issue({ dnsNames: ['secure.example.test'] });
  const backend = await useEchoBackend(t, { service: 'secure' });
  const envoy = await useEnvoy(t, { bootstrap: tlsBootstrap(backend, serving) });
  const port = await envoy.waitForListener('ingress_https');

  const request = { port, hostHeader: 'secure.example.test', servername: 'secure.example.test', path: '/tls?q=1' };
  const response = await httpsGet({ ...request, ca: ca.certPem });
  t.is(response.status, 200);
  t.is(response.json.service, 'secure');
  t.is(response.json.path, '/tls?q=1');
  t.is(response.peerCertificate?.serialNumber, serving.serialNumber);
  t.is(response.peerCertificate?.subjectAltName, 'DNS:secure.example.test');

  const otherCA = await createTestCA({ commonName: 'some other CA' });
  const error = await t.throwsAsync(httpsGet({ ...request, ca: otherCA.certPem }));
  t.is((error as NodeJS.ErrnoException).code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  t.is(backend.requests, 1);
});

test('echo backend serves TLS; node rejects an expired certificate and one for another name', async (t) => {
  const ca = await createTestCA();
  const valid = await ca.issue({ dnsNames: ['*.backend.test'] });
  const tlsBackend = await useEchoBackend(t, { service: 'tls-backend', tls: { cert: valid.certPem, key: valid.keyPem } });
  t.true(tlsBackend.url.startsWith('https://'));
  const ok = await httpsGet({
    port: tlsBackend.port,
    hostHeader: 'a.backend.test',
    servername: 'a.backend.test',
    path: '/',
    ca: ca.certPem,
  });
  t.is(ok.json.service, 'tls-backend');
  t.is(ok.peerCertificate?.subjectAltName, 'DNS:*.backend.test');

  const wrongName = await t.throwsAsync(
    httpsGet({ port: tlsBackend.port, hostHeader: 'x.other.test', servername: 'x.other.test', path: '/', ca: ca.certPem }),
  );
  t.is((wrongName as NodeJS.ErrnoException).code, 'ERR_TLS_CERT_ALTNAME_INVALID');

  const expired = await ca.issue({
    dnsNames: ['old.backend.test'],
    notBefore: new Date(Date.now() - 10 * 86_400_000),
    notAfter: new Date(Date.now() - 86_400_000),
  });
  const expiredBackend = await useEchoBackend(t, { service: 'expired', tls: { cert: expired.certPem, key: expired.keyPem } });
  const expiredError = await t.throwsAsync(
    httpsGet({ port: expiredBackend.port, hostHeader: 'old.backend.test', servername: 'old.backend.test', path: '/', ca: ca.certPem }),
  );
  t.is((expiredError as NodeJS.ErrnoException).code, 'CERT_HAS_EXPIRED');
});

// End to end for the Gateway's client-certificate validation (spec.tls.frontend, GEP-91): manifests on disk ->
// controller (standalone mode) -> a real Envoy -> a loopback backend. One HTTPS port takes the default validation
// (AllowValidOnly: the handshake fails without a certificate the ConfigMap's CA signed), another its perPort entry
// (AllowInsecureFallback: every client is served), a third names a missing ConfigMap and is not served at all. A
// changed CA ConfigMap is picked up: the old CA's clients are refused, the new one's served. A newer Gateway without
// validation shares the strict port's socket (the default addressing mode): its own host is served without a
// certificate, and a request for the strict listener's host over its connection is answered 421, never served.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpsGet, type HttpResult } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

test('Gateway frontend validation: AllowValidOnly refuses the handshake without a valid client certificate, AllowInsecureFallback serves all, an unusable CA is not served', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const servers = await createTestCA({ commonName: 'servers' });
  const clients = await createTestCA({ commonName: 'clients' });
  const others = await createTestCA({ commonName: 'other clients' });
  const serverCert = await servers.issue({ dnsNames: ['*.mtls.test'] });
  const client = await clients.issue({ dnsNames: ['client.test'], clientAuth: true });
  const otherClient = await others.issue({ dnsNames: ['client.test'], clientAuth: true });
  const web = await useEchoBackend(t, { service: 'web' });
  const [strictPort, fallbackPort, brokenPort] = [await freePort(), await freePort(), await freePort()];

  const manifests = (trusted: string): object[] => [
    ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }]),
    tlsSecret('server-tls', serverCert.certPem, serverCert.keyPem),
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'clients-ca', namespace: 'default' }, data: { 'ca.crt': trusted } },
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'default' },
      spec: {
        gatewayClassName: 'envoy',
        tls: {
          frontend: {
            default: { validation: { caCertificateRefs: [{ kind: 'ConfigMap', group: '', name: 'clients-ca' }] } },
            perPort: [
              { port: fallbackPort, tls: { validation: { mode: 'AllowInsecureFallback', caCertificateRefs: [{ kind: 'ConfigMap', group: '', name: 'clients-ca' }] } } },
              { port: brokenPort, tls: { validation: { caCertificateRefs: [{ kind: 'ConfigMap', group: '', name: 'does-not-exist' }] } } },
            ],
          },
        },
        listeners: [strictPort, fallbackPort, brokenPort].map((port, i) => ({
          name: ['strict', 'fallback', 'broken'][i],
          port,
          protocol: 'HTTPS',
          tls: { certificateRefs: [{ name: 'server-tls' }] },
        })),
      },
    },
    { apiVersion: gatewayApi, kind: 'HTTPRoute', metadata: { name: 'web', namespace: 'default' }, spec: { parentRefs: [{ name: 'gw' }], hostnames: ['app.mtls.test'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'open', namespace: 'default', creationTimestamp: '2099-01-01T00:00:00Z' },
      spec: { gatewayClassName: 'envoy', listeners: [{ name: 'open', port: strictPort, protocol: 'HTTPS', hostname: 'open.mtls.test', tls: { certificateRefs: [{ name: 'server-tls' }] } }] },
    },
    { apiVersion: gatewayApi, kind: 'HTTPRoute', metadata: { name: 'open', namespace: 'default' }, spec: { parentRefs: [{ name: 'open' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(manifests(clients.certPem)));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/tls/${strictPort}`);
  await stack.envoy.waitForListener(`gateway/tls/${fallbackPort}`);

  const get = (port: number, clientCert?: { certPem: string; keyPem: string }, names = { sni: 'app.mtls.test', host: 'app.mtls.test' }): Promise<HttpResult | Error> =>
    httpsGet({
      port,
      servername: names.sni,
      hostHeader: names.host,
      path: '/',
      ca: servers.certPem,
      ...(clientCert === undefined ? {} : { clientCert: { cert: clientCert.certPem, key: clientCert.keyPem } }),
    }).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
  const served = (r: HttpResult | Error): string => (r instanceof Error ? `failed: ${r.message}` : `${r.status} ${String(r.json?.service)}`);

  await waitFor(async () => served(await get(strictPort, client)) === '200 web', { description: 'the strict port serves a client the CA signed' });
  const withoutCertificate = await get(strictPort);
  t.true(withoutCertificate instanceof Error, `AllowValidOnly: no certificate, no handshake (got ${served(withoutCertificate)})`);
  const wrongCa = await get(strictPort, otherClient);
  t.true(wrongCa instanceof Error, `AllowValidOnly: a certificate another CA signed fails the handshake (got ${served(wrongCa)})`);

  t.is(served(await get(fallbackPort, client)), '200 web', 'AllowInsecureFallback: a valid certificate is served');
  t.is(served(await get(fallbackPort)), '200 web', 'AllowInsecureFallback: no certificate is served too');
  t.is(served(await get(fallbackPort, otherClient)), '200 web', 'AllowInsecureFallback: and one that does not verify');

  // The newer Gateway's listener on the strict socket asks for no certificate, and serves only its own host.
  t.is(served(await get(strictPort, undefined, { sni: 'open.mtls.test', host: 'open.mtls.test' })), '200 web', 'the other Gateway on the socket asks for no certificate');
  const around = await get(strictPort, undefined, { sni: 'open.mtls.test', host: 'app.mtls.test' });
  t.is(around instanceof Error ? around.message : around.status, 421, 'its connection cannot reach the validating listener\'s host');

  // The broken port's only CA ref names a missing ConfigMap: not served rather than served without the check.
  const broken = await get(brokenPort);
  t.true(broken instanceof Error, `a listener without a usable CA is not served (got ${served(broken)})`);
  t.true(stack.logs().includes('NoValidCACertificate'), 'the refusal is reported');

  // The CA ConfigMap now trusts the other CA: its clients are served, the first CA's refused.
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(manifests(others.certPem)));
  await waitFor(async () => served(await get(strictPort, otherClient)) === '200 web', { description: 'the new CA is trusted' });
  t.true((await get(strictPort, client)) instanceof Error, 'the old CA is no longer trusted');
});

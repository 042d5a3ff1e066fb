// Client certificates through a real Envoy, from hand-written IR: a TLS server that asks for them
// (ClientValidationIR) and the host check on its routes (ClientCertificateCheckIR), beside a host on the same port
// that asks for none; and TLS to a backend that verifies the backend's certificate and presents a client
// certificate (UpstreamTlsIR). Certificates come from throw-away CAs (test/harness/test-certs.ts).
import { Agent as HttpsAgent } from 'node:https';
import test, { type ExecutionContext } from 'ava';
import { PrivateKey, type ClientCertificateCheckIR, type ClusterIR, type DataPlaneIR, type RouteIR, type RouteTableIR, type TlsServerIR, type UpstreamTlsIR, type UpstreamVerifyIR, type VirtualHostIR } from '../ir/index.js';
import { useEchoBackend, useEnvoy } from '../test/harness/ava-fixtures.js';
import { httpGet, httpsGet, type HttpResult } from '../test/harness/http-client.js';
import { createTestCA, type IssuedCertificate, type TestCA } from '../test/harness/test-certs.js';
import { buildResources } from './build-resources.js';
import { inlineIntoStaticBootstrap } from './static-bootstrap.js';
import { ingressPairIR } from './test-helpers/ingress-pair-ir.js';

interface Pki {
  server: TestCA;
  clients: TestCA;
  otherClients: TestCA;
  hostCertificate: IssuedCertificate;
  client: IssuedCertificate;
  otherClient: IssuedCertificate;
}

async function pki(): Promise<Pki> {
  const server = await createTestCA({ commonName: 'servers' });
  const clients = await createTestCA({ commonName: 'clients' });
  const otherClients = await createTestCA({ commonName: 'other clients' });
  return {
    server,
    clients,
    otherClients,
    hostCertificate: await server.issue({ dnsNames: ['*.mtls.test'] }),
    client: await clients.issue({ dnsNames: ['client.test'], commonName: 'authtls', clientAuth: true }),
    otherClient: await otherClients.issue({ dnsNames: ['client.test'], commonName: 'authtls', clientAuth: true }),
  };
}

const forward = (name: string, cluster: string): RouteIR => ({ name, match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster } });

function host(name: string, check?: ClientCertificateCheckIR, cluster = 'default/echo/80'): VirtualHostIR {
  return { name, hostnames: [name], routes: [forward(name, cluster)], ...(check === undefined ? {} : { clientCertificate: check }) };
}

function cluster(name: string, upstreamTls?: UpstreamTlsIR): ClusterIR {
  return { name, service: { namespace: 'default', name: name.split('/')[1] ?? '', port: 80 }, ...(upstreamTls === undefined ? {} : { upstreamTls }) };
}

/** Hosts of *.mtls.test, each its own chain; `validation` by host name. */
function dataPlane(p: Pki, hosts: VirtualHostIR[], validation: Record<string, TlsServerIR['clientValidation']>, clusters: ClusterIR[], extra: Partial<DataPlaneIR> = {}): DataPlaneIR {
  const https: RouteTableIR = { name: 'https', virtualHosts: hosts };
  // Plain HTTP serves the very same table (as the translator hands both listeners one table where they agree).
  const tlsServers = hosts.map((vhost): TlsServerIR & { routeTable: RouteTableIR } => {
    const clientValidation = validation[vhost.name];
    return { name: `https/${vhost.name}`, serverNames: [vhost.name], secret: 'default/host', routeTable: https, ...(clientValidation === undefined ? {} : { clientValidation }) };
  });
  return ingressPairIR(
    {
      http: https,
      tlsServers,
      clusters,
      secrets: [{ name: 'default/host', certificateChain: p.hostCertificate.certPem, privateKey: new PrivateKey(p.hostCertificate.keyPem) }, ...(extra.secrets ?? [])],
      certificateAuthorities: [{ name: 'default/client-ca/ca.crt', certificates: p.clients.certPem }, ...(extra.certificateAuthorities ?? [])],
    },
    { http: 0, https: 0 },
  );
}

async function start(t: ExecutionContext, ir: DataPlaneIR, endpoints: { cluster: string; address: string; port: number }[]): Promise<{ https: number; http: number }> {
  const resources = buildResources(
    ir,
    endpoints.map((e) => ({ cluster: e.cluster, endpoints: [{ address: e.address, port: e.port }] })),
    { listenAddress: '127.0.0.1', httpPort: 0, httpsPort: 0 },
  );
  const envoy = await useEnvoy(t, { bootstrap: inlineIntoStaticBootstrap(resources), logLevel: 'warn' });
  return { https: await envoy.waitForListener('ingress_https'), http: await envoy.waitForListener('ingress_http') };
}

const requested = { mode: 'request', certificateAuthority: 'default/client-ca/ca.crt', verifyDepth: 1 } as const;

test('a host that checks client certificates answers as nginx does, and another host on the port is unaffected', async (t) => {
  const p = await pki();
  const echo = await useEchoBackend(t, { service: 'echo' });
  const names = (name: string): string[] => [name];
  const ir = dataPlane(
    p,
    [
      host('on.mtls.test', { serverNames: names('on.mtls.test'), verify: 'required', passCertificate: true }),
      host('optional.mtls.test', { serverNames: names('optional.mtls.test'), verify: 'optional' }),
      host('error-page.mtls.test', { serverNames: names('error-page.mtls.test'), verify: 'required', errorPage: 'http://error-page.mtls.test/error' }),
      host('cn.mtls.test', { serverNames: names('cn.mtls.test'), verify: 'required', subjectPattern: 'CN=(nomatch|authtls)' }),
      host('other-cn.mtls.test', { serverNames: names('other-cn.mtls.test'), verify: 'required', subjectPattern: 'CN=notgonnamatch' }),
      host('open.mtls.test'),
      host('required.mtls.test'),
    ],
    {
      'on.mtls.test': requested,
      'optional.mtls.test': requested,
      'error-page.mtls.test': requested,
      'cn.mtls.test': requested,
      'other-cn.mtls.test': requested,
      'required.mtls.test': { mode: 'require', certificateAuthority: 'default/client-ca/ca.crt' },
    },
    [cluster('default/echo/80')],
  );
  const ports = await start(t, ir, [{ cluster: 'default/echo/80', address: echo.address, port: echo.port }]);
  const port = ports.https;
  const get = (name: string, certificate?: IssuedCertificate, sni = name, headers: Record<string, string> = {}): Promise<HttpResult> =>
    httpsGet({ port, servername: sni, hostHeader: name, path: '/', ca: p.server.certPem, headers, ...(certificate === undefined ? {} : { clientCert: { cert: certificate.certPem, key: certificate.keyPem } }) });

  const none = await get('on.mtls.test');
  t.is(none.status, 400);
  t.regex(none.body, /No required SSL certificate was sent/);
  const valid = await get('on.mtls.test', p.client, 'on.mtls.test', { 'ssl-client-verify': 'forged', 'ssl-client-subject-dn': 'CN=forged' });
  t.is(valid.status, 200);
  t.is(valid.json?.headers['ssl-client-verify'], 'SUCCESS');
  t.is(valid.json?.headers['ssl-client-subject-dn'], 'CN=authtls');
  t.is(valid.json?.headers['ssl-client-issuer-dn'], 'CN=clients');
  // ingress-nginx's test: Body().Contains("ssl-client-cert=-----BEGIN%20CERTIFICATE-----%0A")
  t.true(String(valid.json?.headers['ssl-client-cert']).startsWith('-----BEGIN%20CERTIFICATE-----%0A'), String(valid.json?.headers['ssl-client-cert']).slice(0, 60));
  const untrusted = await get('on.mtls.test', p.otherClient);
  t.is(untrusted.status, 400);
  t.regex(untrusted.body, /The SSL certificate error/);

  t.is((await get('optional.mtls.test')).status, 200);
  t.is((await get('optional.mtls.test')).json?.headers['ssl-client-verify'], 'NONE');
  t.is((await get('optional.mtls.test', p.client)).status, 200);
  t.is((await get('optional.mtls.test', p.otherClient)).status, 400);

  const redirected = await get('error-page.mtls.test');
  t.is(redirected.status, 302);
  t.is(redirected.headers.location, 'http://error-page.mtls.test/error');
  t.is((await get('error-page.mtls.test', p.otherClient)).status, 302);
  t.is((await get('error-page.mtls.test', p.client)).status, 200);

  t.is((await get('cn.mtls.test', p.client)).status, 200);
  t.is((await get('other-cn.mtls.test', p.client)).status, 403);

  // Plain HTTP is not checked (nginx verifies TLS connections only), but loses a client's ssl-client-* headers.
  const plain = await httpGet({ port: ports.http, hostHeader: 'on.mtls.test', path: '/', headers: { 'ssl-client-verify': 'SUCCESS' } });
  t.is(plain.status, 200);
  t.is(plain.json?.headers['ssl-client-verify'], undefined);

  // The host without client validation needs no certificate.
  t.is((await get('open.mtls.test')).status, 200);
  // A connection negotiated for the open host cannot reach a checking host by its Host header.
  const misdirected = await get('on.mtls.test', p.client, 'open.mtls.test');
  t.is(misdirected.status, 421);
  // ... nor one negotiated for another checking host (verified against its CAs, not this host's).
  t.is((await get('on.mtls.test', p.client, 'optional.mtls.test')).status, 421);

  // A client that would resume its TLS session on a new connection gets a full handshake (resumption is off on
  // such chains: Envoy reports a resumed session's certificate as not verified), so it stays verified.
  const agent = new HttpsAgent({ keepAlive: false, maxCachedSessions: 10 });
  const resumed: boolean[] = [];
  for (let i = 0; i < 3; i++) {
    const again = await httpsGet({ port, servername: 'on.mtls.test', hostHeader: 'on.mtls.test', path: '/', ca: p.server.certPem, agent, clientCert: { cert: p.client.certPem, key: p.client.keyPem } });
    t.is(again.status, 200, `request ${i + 1} on a resumed session`);
    resumed.push(again.sessionReused === true);
  }
  t.deepEqual(resumed, [false, false, false]);

  // `require`: the handshake itself fails without a certificate; with one it is served (no route check needed).
  await t.throwsAsync(get('required.mtls.test'));
  t.is((await get('required.mtls.test', p.client)).status, 200);
  await t.throwsAsync(get('required.mtls.test', p.otherClient));
});

test('TLS to a backend verifies its certificate against the trusted CAs and names, and presents a client certificate', async (t) => {
  const p = await pki();
  const backendCa = await createTestCA({ commonName: 'backends' });
  const backendCertificate = await backendCa.issue({ dnsNames: ['backend.internal'] });
  const proxyClient = await p.clients.issue({ dnsNames: ['proxy.internal'], commonName: 'proxy', clientAuth: true });
  const backend = await useEchoBackend(t, { service: 'secure', tls: { cert: backendCertificate.certPem, key: backendCertificate.keyPem, clientCa: p.clients.certPem } });
  const verify = (name: string): UpstreamVerifyIR => ({ certificateAuthority: 'default/backend-ca/ca.crt', subjectAltNames: [{ kind: 'dns', value: name }], verifyDepth: 1 });
  const clusters = [
    cluster('default/good/80', { sni: 'backend.internal', verify: verify('backend.internal'), clientCertificate: 'default/proxy-client', minVersion: '1.2', maxVersion: '1.3' }),
    cluster('default/wrong-name/80', { verify: verify('other.internal'), clientCertificate: 'default/proxy-client' }),
    cluster('default/no-client-cert/80', { verify: verify('backend.internal') }),
    cluster('default/wrong-ca/80', { verify: { ...verify('backend.internal'), certificateAuthority: 'default/client-ca/ca.crt' }, clientCertificate: 'default/proxy-client' }),
  ];
  const hosts = clusters.map((c) => host(`${c.service.name}.mtls.test`, undefined, c.name));
  const ir = dataPlane(p, hosts, {}, clusters, {
    secrets: [{ name: 'default/proxy-client', certificateChain: proxyClient.certPem, privateKey: new PrivateKey(proxyClient.keyPem) }],
    certificateAuthorities: [{ name: 'default/backend-ca/ca.crt', certificates: backendCa.certPem }],
  });
  const port = (await start(t, ir, clusters.map((c) => ({ cluster: c.name, address: backend.address, port: backend.port })))).https;
  const get = (name: string): Promise<HttpResult> => httpsGet({ port, servername: name, hostHeader: name, path: '/', ca: p.server.certPem });

  const good = await get('good.mtls.test');
  t.is(good.status, 200);
  t.is(good.json?.sni, 'backend.internal');
  t.is(good.json?.clientCertificateCN, 'proxy');
  // A certificate without the expected name, one from another CA, no client certificate: no connection, 503.
  t.is((await get('wrong-name.mtls.test')).status, 503);
  t.is((await get('wrong-ca.mtls.test')).status, 503);
  t.is((await get('no-client-cert.mtls.test')).status, 503);
});

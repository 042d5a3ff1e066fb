// End to end for the Gateway API's TLS side and L4 routes: manifests on disk -> controller (standalone mode) -> a real
// Envoy -> loopback backends. One TLS port carries two HTTPS listeners (each its own certificate, chosen by SNI, and
// its own hosts: another listener's host on its connection is a misdirected request, 421), a
// TLS Passthrough listener (the backend completes the handshake itself) and a TLS Terminate listener (TCP to the
// backend after Envoy's handshake); a TCP port proxies to two TCP backends by weight. An HTTPS listener whose
// certificate lives in another namespace is refused until a ReferenceGrant there permits it.
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpsGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

/** A TCP server that answers each line with `<name>:<line>` (tells the backend a connection reached). */
async function useTcpEcho(t: ExecutionContext, name: string): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => socket.write(`${name}:${data}`));
    socket.on('error', () => socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** Sends `line` over a connection (TLS with `servername`, or plain TCP) and resolves the first answer. */
function exchange(port: number, line: string, tlsOptions?: { servername: string; ca: string }): Promise<{ answer: string; serial?: string }> {
  return new Promise((resolve, reject) => {
    const socket = tlsOptions === undefined ? net.connect({ port, host: '127.0.0.1' }) : tls.connect({ port, host: '127.0.0.1', servername: tlsOptions.servername, ca: tlsOptions.ca });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer'));
    }, 5000);
    socket.setEncoding('utf8');
    socket.once(tlsOptions === undefined ? 'connect' : 'secureConnect', () => socket.write(line));
    socket.once('data', (answer: string) => {
      clearTimeout(timer);
      const serial = socket instanceof tls.TLSSocket ? socket.getPeerCertificate().serialNumber : undefined;
      socket.end();
      resolve({ answer, ...(serial === undefined ? {} : { serial }) });
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      reject(new Error('closed without an answer'));
    });
  });
}

test('Gateway API TLS and TCP: HTTPS per listener hostname, TLS passthrough and terminate, TCP by weight, a refused certificate', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const ca = await createTestCA();
  const shopCert = await ca.issue({ dnsNames: ['*.shop.test'] });
  const apiCert = await ca.issue({ dnsNames: ['api.shop.test'] });
  const dbCert = await ca.issue({ dnsNames: ['db.test'] });
  const foreignCert = await ca.issue({ dnsNames: ['foreign.test'] });
  const passCert = await ca.issue({ dnsNames: ['pass.test'] });
  const web = await useEchoBackend(t, { service: 'web' });
  const api = await useEchoBackend(t, { service: 'api' });
  const secure = await useEchoBackend(t, { service: 'secure', tls: { cert: passCert.certPem, key: passCert.keyPem } });
  const postgres = await useTcpEcho(t, 'postgres');
  const primary = await useTcpEcho(t, 'primary');
  const replica = await useTcpEcho(t, 'replica');
  const tlsPort = await freePort();
  const tcpPort = await freePort();
  const endpoint = (b: { port: number }): { address: string; port: number }[] => [{ address: '127.0.0.1', port: b.port }];
  const objects = [
    ...serviceWithEndpoints('web', endpoint(web)),
    ...serviceWithEndpoints('api', endpoint(api)),
    ...serviceWithEndpoints('secure', endpoint(secure)),
    ...serviceWithEndpoints('postgres', endpoint(postgres)),
    ...serviceWithEndpoints('primary', endpoint(primary)),
    ...serviceWithEndpoints('replica', endpoint(replica)),
    tlsSecret('shop-tls', shopCert.certPem, shopCert.keyPem),
    tlsSecret('api-tls', apiCert.certPem, apiCert.keyPem),
    tlsSecret('db-tls', dbCert.certPem, dbCert.keyPem),
    tlsSecret('foreign-tls', foreignCert.certPem, foreignCert.keyPem, 'certs'),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'default' },
      spec: {
        gatewayClassName: 'envoy',
        listeners: [
          { name: 'shop', port: tlsPort, protocol: 'HTTPS', hostname: '*.shop.test', tls: { certificateRefs: [{ name: 'shop-tls' }] } },
          { name: 'api', port: tlsPort, protocol: 'HTTPS', hostname: 'api.shop.test', tls: { certificateRefs: [{ name: 'api-tls' }] } },
          { name: 'foreign', port: tlsPort, protocol: 'HTTPS', hostname: 'foreign.test', tls: { certificateRefs: [{ name: 'foreign-tls', namespace: 'certs' }] } },
          { name: 'pass', port: tlsPort, protocol: 'TLS', hostname: 'pass.test', tls: { mode: 'Passthrough' } },
          { name: 'db', port: tlsPort, protocol: 'TLS', hostname: 'db.test', tls: { mode: 'Terminate', certificateRefs: [{ name: 'db-tls' }] } },
          { name: 'tcp', port: tcpPort, protocol: 'TCP' },
        ],
      },
    },
    // No hostnames: each serves its listener's names; www.shop.test is the wildcard listener's, api.shop.test the api one's.
    { apiVersion: gatewayApi, kind: 'HTTPRoute', metadata: { name: 'web', namespace: 'default' }, spec: { parentRefs: [{ name: 'gw', sectionName: 'shop' }, { name: 'gw', sectionName: 'foreign' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } },
    { apiVersion: gatewayApi, kind: 'HTTPRoute', metadata: { name: 'api', namespace: 'default' }, spec: { parentRefs: [{ name: 'gw', sectionName: 'api' }], rules: [{ backendRefs: [{ name: 'api', port: 80 }] }] } },
    { apiVersion: gatewayApi, kind: 'TLSRoute', metadata: { name: 'pass', namespace: 'default' }, spec: { parentRefs: [{ name: 'gw', sectionName: 'pass' }], hostnames: ['pass.test'], rules: [{ backendRefs: [{ name: 'secure', port: 80 }] }] } },
    { apiVersion: gatewayApi, kind: 'TLSRoute', metadata: { name: 'db', namespace: 'default' }, spec: { parentRefs: [{ name: 'gw', sectionName: 'db' }], hostnames: ['db.test'], rules: [{ backendRefs: [{ name: 'postgres', port: 80 }] }] } },
    {
      apiVersion: gatewayApi,
      kind: 'TCPRoute',
      metadata: { name: 'db', namespace: 'default' },
      spec: { parentRefs: [{ name: 'gw', sectionName: 'tcp' }], rules: [{ backendRefs: [{ name: 'primary', port: 80, weight: 3 }, { name: 'replica', port: 80, weight: 1 }] }] },
    },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/tls/${tlsPort}`);
  await stack.envoy.waitForListener(`gateway/tcp/${tcpPort}`);

  // HTTPS: SNI picks the listener's certificate; each listener serves its own routes.
  const https = (servername: string) => httpsGet({ port: tlsPort, servername, hostHeader: servername, path: '/', ca: ca.certPem });
  await waitFor(async () => (await https('www.shop.test').catch(() => undefined))?.status === 200, { description: 'the HTTPS listener serves' });
  const www = await https('www.shop.test');
  t.is(www.peerCertificate?.serialNumber, shopCert.serialNumber);
  t.is(www.json?.service, 'web');
  t.false(www.json?.tls, 'Envoy terminated TLS');
  const apiRes = await https('api.shop.test');
  t.is(apiRes.peerCertificate?.serialNumber, apiCert.serialNumber, 'the exact listener hostname beats the wildcard one');
  t.is(apiRes.json?.service, 'api');
  // Misdirected requests: a connection whose TLS name chose one listener, asked for another listener's host (HTTP/2
  // connection coalescing), is answered 421; a name no listener has, 421 too (both listeners have hostnames).
  const misdirected = (servername: string, host: string) => httpsGet({ port: tlsPort, servername, hostHeader: host, path: '/', ca: ca.certPem });
  t.is((await misdirected('www.shop.test', 'api.shop.test')).status, 421, 'the wildcard listener\'s connection, the api listener\'s host');
  t.is((await misdirected('api.shop.test', 'www.shop.test')).status, 421, 'the api listener\'s connection, the wildcard listener\'s host');
  t.is((await misdirected('api.shop.test', 'unknown.test')).status, 421, 'a name of no listener');
  t.is((await misdirected('www.shop.test', 'other.shop.test')).json?.service, 'web', 'another name of the same wildcard listener');

  // TLS Passthrough: the backend's own certificate, Envoy only read the SNI.
  const passed = await httpsGet({ port: tlsPort, servername: 'pass.test', hostHeader: 'pass.test', path: '/x', ca: ca.certPem });
  t.is(passed.peerCertificate?.serialNumber, passCert.serialNumber);
  t.is(passed.json?.service, 'secure');
  t.true(passed.json?.tls);
  t.is(passed.json?.sni, 'pass.test');

  // TLS Terminate: Envoy's handshake with the listener's certificate, then plain TCP to the backend.
  const db = await exchange(tlsPort, 'select 1\n', { servername: 'db.test', ca: ca.certPem });
  t.is(db.serial, dbCert.serialNumber);
  t.is(db.answer, 'postgres:select 1\n');

  // A name no listener serves: no filter chain, the handshake fails.
  await t.throwsAsync(exchange(tlsPort, 'x\n', { servername: 'nobody.test', ca: ca.certPem }));

  // TCP: weights 3:1 between two backends, every connection answered.
  const answers: Record<string, number> = {};
  // Waiting for the listener connected once already (Envoy proxied that too).
  const before = primary.connections() + replica.connections();
  for (let i = 0; i < 60; i++) {
    const { answer } = await exchange(tcpPort, 'ping\n');
    const backend = answer.split(':')[0] as string;
    answers[backend] = (answers[backend] ?? 0) + 1;
  }
  t.deepEqual(Object.keys(answers).sort(), ['primary', 'replica'], JSON.stringify(answers));
  t.true((answers['primary'] ?? 0) > (answers['replica'] ?? 0), JSON.stringify(answers));
  t.is(primary.connections() + replica.connections() - before, 60);

  // The certificate in namespace certs is refused (RefNotPermitted on the Gateway, never its content): foreign.test has
  // no filter chain.
  const refusal = stack.controller.reconciler.diagnostics.find((d) => d.reason === 'RefNotPermitted' && d.object.kind === 'Gateway');
  t.truthy(refusal, JSON.stringify(stack.controller.reconciler.diagnostics));
  t.false(JSON.stringify(stack.controller.reconciler.diagnostics).includes('PRIVATE KEY'));
  await t.throwsAsync(https('foreign.test'));
  // A ReferenceGrant in certs lets Gateways of default use it: the listener is served with that certificate.
  const grant = {
    apiVersion: gatewayApi,
    kind: 'ReferenceGrant',
    metadata: { name: 'gateways-of-default', namespace: 'certs' },
    spec: { from: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'default' }], to: [{ group: '', kind: 'Secret' }] },
  };
  await writeFile(path.join(tmp.path, 'grant.yaml'), toYaml([grant]));
  await waitFor(async () => (await https('foreign.test').catch(() => undefined))?.status === 200, { description: 'the granted certificate is served' });
  const foreign = await https('foreign.test');
  t.is(foreign.peerCertificate?.serialNumber, foreignCert.serialNumber);
  t.is(foreign.json?.service, 'web');
});

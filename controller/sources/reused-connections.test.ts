// API requests through a KubeConfig that reuses its connections: a couple of TLS connections for many requests
// (client-node alone opens one per request).
import test from 'ava';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createTestCA } from '../../test/harness/test-certs.js';
import { reuseConnections } from './reused-connections.js';

test('twenty API requests share the kept-alive TLS connections of one dispatcher', async (t) => {
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['localhost'] });
  let connections = 0;
  let requests = 0;
  const server = createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => {
    requests += 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }));
  });
  server.on('secureConnection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: `https://localhost:${(server.address() as AddressInfo).port}`, caData: Buffer.from(ca.certPem).toString('base64'), skipTLSVerify: false }],
      users: [{ name: 'u', token: 'token' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const api = reuseConnections(kubeConfig).makeApiClient(CoreV1Api);
    for (let i = 0; i < 20; i++) t.is((await api.readNamespace({ name: 'x' })).metadata?.name, 'x');
    t.is(requests, 20);
    // undici may open a second connection while the first is released; never one per request.
    t.true(connections <= 2, `${connections} TLS connections`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

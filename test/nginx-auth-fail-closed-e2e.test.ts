// Basic auth fails closed through the real Envoy: when the controller cannot answer the check (its gRPC server is
// gone, Envoy keeps its last configuration), a request with the right credentials gets 503, never the backend.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { ingressClass, serviceWithEndpoints, singleRouteIngress, toYaml } from './fixtures/manifests.js';
import { startStack } from './fixtures/standalone-stack.js';

test('the controller unreachable: the protected route answers 503, not the backend', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const web = await useEchoBackend(t, { service: 'web' });
  const hash = `{SHA}${createHash('sha1').update('s3cret').digest('base64')}`;
  await writeFile(
    tmp.file('app.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }]),
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'users', namespace: 'default' }, type: 'Opaque', stringData: { auth: `alice:${hash}\n` } },
      singleRouteIngress('private', 'private.test', 'web', { 'nginx.ingress.kubernetes.io/auth-type': 'basic', 'nginx.ingress.kubernetes.io/auth-secret': 'users' }),
    ]),
  );
  const stack = await startStack(t, { manifestsDir: tmp.path, translate: { nginxAnnotations: true } });
  const status = async (): Promise<number> =>
    (await httpGet({ port: stack.httpPort, hostHeader: 'private.test', path: '/', headers: { authorization: `Basic ${Buffer.from('alice:s3cret').toString('base64')}` } })).status;
  await waitFor(async () => (await status()) === 200, { description: 'alice logs in', timeoutMs: 30_000 });
  await stack.controller.stop();
  await waitFor(async () => (await status()) === 503, { description: 'no answer from the controller: 503', timeoutMs: 30_000 });
  t.is(web.requests > 0, true);
  const before = web.requests;
  t.is(await status(), 503);
  t.is(web.requests, before, 'the backend is not reached');
});

// ingress-nginx enable-access-log "false" through the real Envoy: that Ingress's requests write no access log line,
// another Ingress's requests on the same listener still do.
import test from 'ava';
import { httpGet } from './harness/http-client.js';
import { waitFor } from './harness/wait.js';
import { useEchoAppManifests } from './fixtures/echo-app-manifests.js';
import { ingress } from './fixtures/manifests.js';
import { nginx } from './fixtures/nginx-manifests.js';
import { startStack } from './fixtures/standalone-stack.js';

test('enable-access-log "false": no access log line for that Ingress, lines for the others', async (t) => {
  const manifestsDir = await useEchoAppManifests(t, [
    ingress('quiet', { annotations: nginx({ 'enable-access-log': 'false' }), rules: [{ host: 'quiet.test', paths: [{ path: '/', service: 'web' }] }] }),
    ingress('logged', { annotations: nginx({ 'enable-access-log': 'true' }), rules: [{ host: 'logged.test', paths: [{ path: '/', service: 'web' }] }] }),
  ]);
  const stack = await startStack(t, { manifestsDir, translate: { nginxAnnotations: true } });
  await stack.envoy.waitForListener('ingress_http');
  const logged = (path: string): boolean => stack.envoy.logs().includes(`"path":"${path}"`);
  await waitFor(async () => (await httpGet({ port: stack.httpPort, hostHeader: 'quiet.test', path: '/' })).status === 200, { description: 'quiet.test served' });
  t.is((await httpGet({ port: stack.httpPort, hostHeader: 'quiet.test', path: '/quiet-marker' })).status, 200);
  t.is((await httpGet({ port: stack.httpPort, hostHeader: 'logged.test', path: '/logged-marker' })).status, 200);
  await waitFor(() => logged('/logged-marker'), { description: 'the line of logged.test', timeoutMs: 15_000 });
  t.false(logged('/quiet-marker'), 'the request of the Ingress with enable-access-log "false" is not logged');
});

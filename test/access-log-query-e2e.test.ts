// --access-log-query=false through the real Envoy: a token in the query string reaches the backend but not the
// access log; by default the log line carries the path as sent, query included.
import test, { type ExecutionContext } from 'ava';
import { httpGet } from './harness/http-client.js';
import { waitFor } from './harness/wait.js';
import { useEchoAppManifests } from './fixtures/echo-app-manifests.js';
import { ingress } from './fixtures/manifests.js';
import { startStack, type Stack } from './fixtures/standalone-stack.js';

const host = 'log.example.test';

async function setUp(t: ExecutionContext, accessLogQuery?: boolean): Promise<Stack> {
  const manifestsDir = await useEchoAppManifests(t, [ingress('web', { rules: [{ host, paths: [{ path: '/', service: 'web' }] }] })]);
  const stack = await startStack(t, { manifestsDir, ...(accessLogQuery !== undefined ? { envoy: { accessLogQuery } } : {}) });
  await stack.envoy.waitForListener('ingress_http');
  return stack;
}

/** The access log line (JSON on Envoy's stdout) of the request whose path starts with `marker`. */
async function accessLogLine(stack: Stack, marker: string): Promise<Record<string, unknown>> {
  const line = await waitFor(
    () =>
      stack.envoy
        .logs()
        .split('\n')
        .map((l) => l.slice(l.indexOf('{')))
        .find((l) => l.includes(`"path":"${marker}`)),
    { description: 'the access log line of the request', timeoutMs: 15_000 },
  );
  return JSON.parse(line) as Record<string, unknown>;
}

test('--access-log-query=false: the token in the query reaches the backend, never the access log', async (t) => {
  const stack = await setUp(t, false);
  const token = `secret-${process.pid}-${Date.now()}`;
  const res = await httpGet({ port: stack.httpPort, hostHeader: host, path: `/callback?access_token=${token}&x=1` });
  t.is(res.status, 200);
  t.is(res.json?.path, `/callback?access_token=${token}&x=1`);
  const entry = await accessLogLine(stack, '/callback');
  t.is(entry['path'], '/callback');
  t.is(entry['status'], 200);
  t.false(stack.envoy.logs().includes(token));
});

test('default: the access log carries the query string as sent', async (t) => {
  const stack = await setUp(t);
  const res = await httpGet({ port: stack.httpPort, hostHeader: host, path: '/callback?access_token=visible' });
  t.is(res.status, 200);
  t.is((await accessLogLine(stack, '/callback'))['path'], '/callback?access_token=visible');
});

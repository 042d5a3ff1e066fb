/** The harness's small parts: waitFor, the log ring buffer, the echo backend, the HTTP client, Envoy lookup. */
import test, { type ExecutionContext } from 'ava';
import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { showLogsOnFailure, useEchoBackend } from './harness/ava-fixtures.js';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { createKeepAliveAgent, httpGet } from './harness/http-client.js';
import { LineRingBuffer } from './harness/line-ring-buffer.js';
import { findRepoRoot } from './harness/repo-root.js';
import { waitFor } from './harness/wait.js';

test('waitFor resolves with the first truthy value', async (t) => {
  let calls = 0;
  const value = await waitFor(() => (++calls >= 3 ? { calls } : undefined), { intervalMs: 1, description: 'three calls' });
  t.deepEqual(value, { calls: 3 });
});

test('waitFor times out naming what it waited for and the last value or error', async (t) => {
  const byValue = await t.throwsAsync(waitFor(() => ({ ready: false }).ready, { timeoutMs: 30, intervalMs: 5, description: 'the thing to be ready' }));
  t.regex(byValue.message, /^Timed out after 30 ms \(\d+ attempts\) waiting for the thing to be ready; last value: false$/);

  let n = 0;
  const byError = await t.throwsAsync(
    waitFor(
      () => {
        n += 1;
        throw new Error(`not yet ${n}`);
      },
      { timeoutMs: 30, intervalMs: 5, description: 'an answer' },
    ),
  );
  t.true(byError.message.includes(`waiting for an answer; last error: Error: not yet ${n}`));
});

test('waitFor gives up at once when its signal is aborted', async (t) => {
  const controller = new AbortController();
  setImmediate(() => controller.abort(new Error('the process exited')));
  const error = await t.throwsAsync(
    waitFor(() => false, { timeoutMs: 60_000, intervalMs: 30_000, description: 'something', signal: controller.signal }),
  );
  t.regex(error.message, /^Gave up after \d+ ms: Error: the process exited \(\d+ attempts\) waiting for something/);
});

test('LineRingBuffer joins lines split across chunks per stream and keeps only the last lines', (t) => {
  const buffer = new LineRingBuffer(3);
  buffer.append('stderr', 'one\ntw');
  buffer.append('stdout', 'out-');
  // Unterminated lines are shown too: a process that died mid-line still says what it was writing.
  t.is(buffer.toString(), 'one\ntw\nout-');
  buffer.append('stderr', 'o\nthree\n');
  buffer.append('stdout', 'line\n');
  t.is(buffer.toString(), '... 1 earlier lines not shown ...\ntwo\nthree\nout-line');
  buffer.append('stderr', 'four\nfive');
  t.is(buffer.toString(), '... 2 earlier lines not shown ...\nthree\nout-line\nfour\nfive');
  t.is(buffer.toString(2), '... 4 earlier lines not shown ...\nfour\nfive');
  buffer.flush();
  t.is(buffer.toString(), '... 3 earlier lines not shown ...\nout-line\nfour\nfive');
});

test('echo backend on another loopback address reports service, method, full path, host and headers', async (t) => {
  const backend = await useEchoBackend(t, { service: 'svc-a', host: '127.0.0.2' });
  t.is(backend.address, '127.0.0.2');
  t.is(backend.url, `http://127.0.0.2:${backend.port}`);
  const response = await httpGet({
    host: '127.0.0.2',
    port: backend.port,
    hostHeader: 'app.example.test',
    path: '/a/b?c=d&e=f',
    headers: { 'x-custom': 'value' },
    method: 'POST',
  });
  t.is(response.status, 200);
  t.is(response.headers['x-echo-service'], 'svc-a');
  t.like(response.json, { service: 'svc-a', method: 'POST', path: '/a/b?c=d&e=f', host: 'app.example.test' });
  t.is(response.json.headers['x-custom'], 'value');
  t.is(backend.requests, 1);
});

test('httpGet opens a fresh connection per request unless given a keep-alive agent', async (t) => {
  const backend = await useEchoBackend(t, { service: 'conn' });
  const get = (agent?: ReturnType<typeof createKeepAliveAgent>) =>
    httpGet({ port: backend.port, hostHeader: 'conn.test', path: '/', ...(agent ? { agent } : {}) });
  await get();
  await get();
  t.is(backend.connections, 2);
  const agent = createKeepAliveAgent();
  t.teardown(() => agent.destroy());
  await get(agent);
  await get(agent);
  await get(agent);
  t.is(backend.connections, 3);
  t.is(backend.requests, 5);
});

test('a closed echo backend refuses connections', async (t) => {
  const backend = await useEchoBackend(t, { service: 'gone' });
  await backend.close();
  const error = await t.throwsAsync(httpGet({ port: backend.port, hostHeader: 'gone.test', path: '/' }));
  t.is((error as NodeJS.ErrnoException).code, 'ECONNREFUSED');
});

test('findRepoRoot walks up from the compiled harness to the folder with package.json', (t) => {
  const root = findRepoRoot();
  t.true(existsSync(join(root, 'package.json')));
  t.true(existsSync(join(root, 'scripts', 'ensure-envoy.sh')));
});

test('findEnvoyBinary returns an executable Envoy', async (t) => {
  const path = await findEnvoyBinary();
  t.notThrows(() => accessSync(path, constants.X_OK));
  t.is(await findEnvoyBinary(), path);
});

test('showLogsOnFailure logs the output only when the test did not pass', async (t) => {
  const run = async (passed: boolean): Promise<string[]> => {
    const teardowns: Array<() => unknown> = [];
    const logged: string[] = [];
    const context = { passed, teardown: (fn: () => unknown) => teardowns.push(fn), log: (text: string) => logged.push(text) };
    showLogsOnFailure(context as unknown as ExecutionContext, 'Envoy', { logs: () => 'line 1\nline 2' });
    for (const fn of teardowns) await fn();
    return logged;
  };
  t.deepEqual(await run(true), []);
  t.deepEqual(await run(false), ['--- Envoy output (last lines) ---\nline 1\nline 2']);
});

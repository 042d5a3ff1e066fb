/** The request loop counts every request and every failure, and always stops by itself. */
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { startEchoBackend } from './harness/echo-backend.js';
import { httpGet } from './harness/http-client.js';
import { startRequestLoop } from './harness/request-loop.js';
import { waitFor } from './harness/wait.js';

test('against a healthy backend: no failures, stops at maxRequests', async (t) => {
  const backend = await useEchoBackend(t, { service: 'healthy' });
  const loop = startRequestLoop(() => httpGet({ port: backend.port, hostHeader: 'healthy.test', path: '/' }), {
    concurrency: 3,
    intervalMs: 1,
    maxRequests: 60,
  });
  const result = await loop.finished;
  t.is(result.stoppedBy, 'maxRequests');
  t.is(result.total, 60);
  t.deepEqual(result.failures, []);
  t.deepEqual(result.byStatus, { '200': 60 });
  t.is(backend.requests, 60);
  t.deepEqual(await loop.stop(), result);
});

test('against a backend closed half-way: connection errors are failures', async (t) => {
  const backend = await startEchoBackend({ service: 'closing' });
  t.teardown(() => backend.close());
  const loop = startRequestLoop(() => httpGet({ port: backend.port, hostHeader: 'closing.test', path: '/' }), {
    intervalMs: 1,
    maxRequests: 5_000,
    maxDurationMs: 30_000,
  });
  await waitFor(() => loop.snapshot().total >= 20, { description: '20 requests before closing the backend' });
  t.deepEqual(loop.snapshot().failures, []);
  await backend.close();
  await waitFor(() => loop.snapshot().failures.length >= 5, { description: 'failed requests after closing' });
  const result = await loop.stop();

  t.is(result.stoppedBy, 'stop');
  t.true(result.failures.length >= 5);
  // Refused once the port is closed; a request caught mid-flight by the close is reset instead.
  t.true(result.failures.every((failure) => failure.status === undefined && /ECONNREFUSED|ECONNRESET|socket hang up/.test(failure.error ?? '')));
  t.is(result.byStatus['error'], result.failures.length);
  const successes = result.byStatus['200'] ?? 0;
  t.true(successes >= 20);
  t.is(result.total, result.failures.length + successes);
  // One request at a time and nothing succeeds once the backend is gone: every failure follows every success.
  t.true(result.failures.every((failure) => failure.sequence > successes));
});

test('unsuccessful statuses are failures; isSuccess decides which', async (t) => {
  const statuses = [200, 503, 204, 404, 301, 500];
  const sendNext = (sequence: { i: number }) => async () => ({ status: statuses[sequence.i++ % statuses.length] ?? 0 });

  const byDefault = await startRequestLoop(sendNext({ i: 0 }), { intervalMs: 0, maxRequests: 6 }).finished;
  t.deepEqual(
    byDefault.failures.map(({ status, sequence }) => ({ status, sequence })),
    [
      { status: 503, sequence: 2 },
      { status: 404, sequence: 4 },
      { status: 500, sequence: 6 },
    ],
  );
  t.deepEqual(byDefault.byStatus, { '200': 1, '503': 1, '204': 1, '404': 1, '301': 1, '500': 1 });

  const only200 = await startRequestLoop(sendNext({ i: 0 }), { intervalMs: 0, maxRequests: 6, isSuccess: (s) => s === 200 })
    .finished;
  t.is(only200.failures.length, 5);
  t.is(only200.total, 6);
});

test('thrown errors are failures with their message', async (t) => {
  let calls = 0;
  const result = await startRequestLoop(
    async () => {
      calls += 1;
      if (calls % 2 === 0) throw new Error(`boom ${calls}`);
      return { status: 200 };
    },
    { intervalMs: 0, maxRequests: 4 },
  ).finished;
  t.deepEqual(
    result.failures.map(({ error, sequence }) => ({ error, sequence })),
    [
      { error: 'boom 2', sequence: 2 },
      { error: 'boom 4', sequence: 4 },
    ],
  );
  t.deepEqual(result.byStatus, { '200': 2, error: 2 });
});

test('maxDurationMs stops a loop that would otherwise run on', async (t) => {
  const loop = startRequestLoop(async () => ({ status: 200 }), { intervalMs: 5, maxRequests: 1_000_000, maxDurationMs: 200 });
  const result = await loop.finished;
  t.is(result.stoppedBy, 'maxDuration');
  t.true(result.total > 0 && result.total < 1_000_000);
  t.deepEqual(result.failures, []);
});

test('stop() waits for requests in flight and counts them', async (t) => {
  let release: (() => void) | undefined;
  let inFlight = 0;
  const loop = startRequestLoop(
    async () => {
      inFlight += 1;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { status: 200 };
    },
    { maxRequests: 100 },
  );
  await waitFor(() => inFlight === 1, { description: 'the first request to start' });
  const stopped = loop.stop();
  release?.();
  const result = await stopped;
  t.is(result.total, 1);
  t.is(inFlight, 1);
  t.is(result.stoppedBy, 'stop');
});

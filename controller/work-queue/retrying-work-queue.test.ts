// The retry loop the managers share: backoff doubling up to its cap, give-up after maxRetries until forget, no
// second add while a retry is pending, a success clearing the count.
import test from 'ava';
import { RetryingWorkQueue, type WorkFailure } from './retrying-work-queue.js';

function recorder(failUntil: number): { runs: string[]; failures: WorkFailure[]; work: (key: string) => Promise<void> } {
  const runs: string[] = [];
  const failures: WorkFailure[] = [];
  return {
    runs,
    failures,
    work: async (key) => {
      runs.push(key);
      if (runs.filter((k) => k === key).length <= failUntil) throw new Error(`failure ${runs.length}`);
    },
  };
}

const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('a failed key comes back after a backoff doubling up to its cap, and a success ends the retries', async (t) => {
  const r = recorder(3);
  const queue = new RetryingWorkQueue(r.work, (f) => r.failures.push(f), { baseBackoffMs: 5, maxBackoffMs: 12, concurrency: 1 });
  t.teardown(() => queue.stop());
  queue.add('a');
  // A pending retry: adding the key again does not run it sooner.
  await queue.idle();
  queue.add('a');
  await queue.idle();
  t.deepEqual(r.runs, ['a']);
  await settle(150);
  await queue.idle();
  t.deepEqual(r.runs, ['a', 'a', 'a', 'a']);
  t.deepEqual(r.failures.map((f) => [f.attempt, f.retryInMs]), [[1, 5], [2, 10], [3, 12]]);
  // Succeeded: a later failure starts counting from one again.
  queue.add('a');
  await queue.idle();
  t.is(r.runs.length, 5);
});

test('after maxRetries the key is given up on: added again it does not run, until forget', async (t) => {
  const r = recorder(Infinity);
  const queue = new RetryingWorkQueue(r.work, (f) => r.failures.push(f), { baseBackoffMs: 2, maxBackoffMs: 2, maxRetries: 1, concurrency: 1 });
  t.teardown(() => queue.stop());
  queue.add('b');
  await settle(60);
  await queue.idle();
  t.deepEqual(r.failures.map((f) => [f.attempt, f.retryInMs]), [[1, 2], [2, undefined]]);
  queue.add('b');
  await queue.idle();
  t.is(r.runs.length, 2);
  queue.forget('b');
  queue.add('b');
  await queue.idle();
  t.is(r.runs.length, 3);
  t.deepEqual(r.failures.at(-1)?.attempt, 1);
});

test('stop cancels pending retries', async (t) => {
  const r = recorder(Infinity);
  const queue = new RetryingWorkQueue(r.work, (f) => r.failures.push(f), { baseBackoffMs: 20, maxBackoffMs: 20, concurrency: 1 });
  queue.add('c');
  await queue.idle();
  await queue.stop();
  await settle(60);
  t.deepEqual(r.runs, ['c']);
});

import test from 'ava';
import { StatusQueue, type StatusQueueOptions, type StatusTarget } from './status-queue.js';

/** An object with a status, as a fake API server keeps it. */
interface Thing {
  version: number;
  status: string;
}

/** HTTP errors as client-node's ApiException carries them. */
function apiError(code: number): Error & { code: number } {
  return Object.assign(new Error(`HTTP ${code}`), { code });
}

/**
 * A fake kind: `wanted` is the status each key should have, `server` what the API server holds. `failWith` makes
 * the next writes throw those errors in turn; a write of an outdated version is a 409 like the API server's.
 */
function fakeTarget() {
  const server = new Map<string, Thing>();
  const wanted = new Map<string, string>();
  const failWith: (Error & { code?: number })[] = [];
  const writes: { key: string; at: number; status: string }[] = [];
  let reads = 0;
  /** What the store (the watch) shows: lags behind the server until `sync()`. */
  const store = new Map<string, Thing>();
  const target: StatusTarget<Thing> = {
    kind: 'Thing',
    logField: 'thing',
    latest: (key) => store.get(key),
    desired: (key, obj) => {
      const status = wanted.get(key);
      return status === undefined || status === obj.status ? undefined : { ...obj, status };
    },
    write: async (key, _obj, body) => {
      await Promise.resolve();
      const failure = failWith.shift();
      if (failure !== undefined) throw failure;
      const current = server.get(key);
      if (current === undefined) throw apiError(404);
      if (current.version !== body.version) throw apiError(409);
      const written = { version: current.version + 1, status: body.status };
      server.set(key, written);
      store.set(key, written);
      writes.push({ key, at: Date.now(), status: body.status });
    },
    read: async (key) => {
      reads += 1;
      await Promise.resolve();
      return server.get(key);
    },
  };
  return {
    target,
    server,
    store,
    wanted,
    failWith,
    writes,
    get reads() {
      return reads;
    },
    put(key: string, thing: Thing) {
      server.set(key, thing);
      store.set(key, thing);
    },
  };
}

const silent = { warn: () => undefined, debug: () => undefined };

function queueOf(fake: ReturnType<typeof fakeTarget>, options: Partial<StatusQueueOptions> = {}): StatusQueue<Thing> {
  return new StatusQueue(fake.target, { isLeader: () => true, log: silent, ...options });
}

const until = async (condition: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};

test('writes the wanted status once; an object already as wanted is not written', async (t) => {
  const fake = fakeTarget();
  fake.put('a', { version: 1, status: 'old' });
  fake.put('b', { version: 1, status: 'ok' });
  fake.wanted.set('a', 'new');
  fake.wanted.set('b', 'ok');
  const queue = queueOf(fake);
  queue.enqueue('a');
  queue.enqueue('a');
  queue.enqueue('b');
  await queue.idle();
  t.deepEqual(fake.writes.map((w) => [w.key, w.status]), [['a', 'new']]);
  t.is(queue.stats.writes, 1);
});

test('only the leader writes: a follower queues nothing, and once leader the same request writes', async (t) => {
  const fake = fakeTarget();
  fake.put('a', { version: 1, status: 'old' });
  fake.wanted.set('a', 'new');
  let leader = false;
  const queue = queueOf(fake, { isLeader: () => leader });
  queue.enqueue('a');
  await queue.idle();
  t.deepEqual(fake.writes, []);
  leader = true;
  queue.enqueue('a');
  await queue.idle();
  t.is(fake.writes.length, 1);
});

test('leadership lost while a key waits for its turn: it is not written', async (t) => {
  const fake = fakeTarget();
  fake.put('a', { version: 1, status: 'old' });
  fake.wanted.set('a', 'new');
  let leader = true;
  // One write in flight at a time: b waits behind a, and leadership is lost before its turn.
  fake.put('b', { version: 1, status: 'old' });
  fake.wanted.set('b', 'new');
  const queue = queueOf(fake, { isLeader: () => leader, maxInFlight: 1 });
  queue.enqueue('a');
  queue.enqueue('b');
  leader = false;
  await queue.idle();
  // `a` had started while leader; `b`, whose turn came after, is not written.
  t.deepEqual(fake.writes.map((w) => w.key), ['a']);
});

test('a 409 Conflict is re-read and retried at once; a deleted object (404) is given up without a retry', async (t) => {
  const fake = fakeTarget();
  fake.put('a', { version: 1, status: 'old' });
  fake.wanted.set('a', 'new');
  // Someone else wrote: the server is ahead of what the store shows.
  fake.server.set('a', { version: 2, status: 'theirs' });
  const queue = queueOf(fake);
  queue.enqueue('a');
  await queue.idle();
  t.is(queue.stats.conflicts, 1);
  t.is(fake.reads, 1);
  t.deepEqual(fake.server.get('a'), { version: 3, status: 'new' });
  t.is(queue.pendingRetries, 0);

  fake.put('gone', { version: 1, status: 'old' });
  fake.wanted.set('gone', 'new');
  fake.server.delete('gone');
  queue.enqueue('gone');
  await queue.idle();
  t.is(queue.pendingRetries, 0);
  t.is(queue.stats.failures, 0);
});

test('more conflicts in a row than maxConflictRetries back off instead of looping', async (t) => {
  const fake = fakeTarget();
  fake.put('a', { version: 1, status: 'old' });
  fake.wanted.set('a', 'new');
  fake.failWith.push(apiError(409), apiError(409), apiError(409));
  const queue = queueOf(fake, { maxConflictRetries: 2, minBackoffMs: 20 });
  queue.enqueue('a');
  await queue.idle();
  t.is(queue.stats.conflicts, 3);
  t.is(queue.stats.failures, 1);
  t.is(queue.pendingRetries, 1);
  await until(() => fake.writes.length === 1, 'the retry after the backoff');
  t.is(fake.server.get('a')?.status, 'new');
  queue.stop();
});

test('failures back off per key, doubling up to the maximum, while other keys are written', async (t) => {
  const fake = fakeTarget();
  fake.put('a', { version: 1, status: 'old' });
  fake.put('b', { version: 1, status: 'old' });
  fake.wanted.set('a', 'new');
  fake.wanted.set('b', 'new');
  const attempts: number[] = [];
  const write = fake.target.write;
  // `a` fails four times (500), `b` never.
  let aFailures = 4;
  fake.target.write = async (key, obj, body) => {
    if (key === 'a') {
      attempts.push(Date.now());
      if (aFailures-- > 0) throw apiError(500);
    }
    return write(key, obj, body);
  };
  const queue = queueOf(fake, { minBackoffMs: 40, maxBackoffMs: 100 });
  queue.enqueue('a');
  queue.enqueue('b');
  await queue.idle();
  t.deepEqual(fake.writes.map((w) => w.key), ['b']);
  // A request for a key waiting for its backoff does not jump the queue.
  queue.enqueue('a');
  t.is(attempts.length, 1);
  await until(() => fake.writes.some((w) => w.key === 'a'), 'a written after its retries');
  t.is(attempts.length, 5);
  const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!);
  // 40, 80, then capped at 100, 100 (timers may fire a little late, never early).
  for (const [i, min] of [40, 80, 100, 100].entries()) t.true(gaps[i]! >= min - 2, `gap ${i}: ${gaps[i]} ms, at least ${min}`);
  t.true(gaps[3]! < 100 + 80, `capped: ${gaps[3]} ms`);
  t.is(queue.stats.failures, 4);
  t.is(queue.pendingRetries, 0);
});

test('at most maxInFlight writes at once, and one per key', async (t) => {
  const fake = fakeTarget();
  let inFlight = 0;
  let most = 0;
  const write = fake.target.write;
  fake.target.write = async (key, obj, body) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      return await write(key, obj, body);
    } finally {
      inFlight -= 1;
    }
  };
  for (const key of ['a', 'b', 'c', 'd', 'e']) {
    fake.put(key, { version: 1, status: 'old' });
    fake.wanted.set(key, 'new');
  }
  const queue = queueOf(fake, { maxInFlight: 2 });
  for (const key of ['a', 'b', 'c', 'd', 'e', 'a']) queue.enqueue(key);
  await queue.idle();
  t.is(most, 2);
  t.deepEqual(fake.writes.map((w) => w.key).sort(), ['a', 'b', 'c', 'd', 'e']);
});

test('stop() cancels pending retries and writes nothing more', async (t) => {
  const fake = fakeTarget();
  fake.put('a', { version: 1, status: 'old' });
  fake.wanted.set('a', 'new');
  fake.failWith.push(apiError(500));
  const queue = queueOf(fake, { minBackoffMs: 10 });
  queue.enqueue('a');
  await queue.idle();
  t.is(queue.pendingRetries, 1);
  queue.stop();
  t.is(queue.pendingRetries, 0);
  await new Promise((resolve) => setTimeout(resolve, 40));
  t.deepEqual(fake.writes, []);
});

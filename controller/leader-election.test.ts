// Leader election logic with a fake clock and an in-memory Lease that enforces resourceVersions like the API
// server does. (The same elector against a real API server: test/kube-leader-election.test.ts.)
import test from 'ava';
import {
  claimLease,
  isLeaseFree,
  LeaderElector,
  LeaseConflictError,
  releasedLease,
  type LeaseClient,
  type LeaseRecord,
  type StoredLease,
} from './leader-election.js';
import { FakeClock, settle } from './testing/fake-clock.js';

const t0 = Date.UTC(2025, 0, 1);

test('claimLease: a missing lease is created with no transitions', (t) => {
  t.deepEqual(claimLease(undefined, 'a', t0, 15), {
    holderIdentity: 'a',
    leaseDurationSeconds: 15,
    acquireTime: t0,
    renewTime: t0,
    leaseTransitions: 0,
  });
});

test('claimLease: renewing keeps acquireTime and the transition count', (t) => {
  const held: LeaseRecord = { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: t0, renewTime: t0, leaseTransitions: 4 };
  t.deepEqual(claimLease(held, 'a', t0 + 2000, 15), { ...held, renewTime: t0 + 2000 });
});

test('claimLease: a lease another holder renewed recently is left alone', (t) => {
  const held: LeaseRecord = { holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: t0, leaseTransitions: 1 };
  t.is(claimLease(held, 'a', t0 + 15_000, 15), undefined, 'expiry is strictly after renewTime + duration');
  t.deepEqual(claimLease(held, 'a', t0 + 15_001, 15), {
    holderIdentity: 'a',
    leaseDurationSeconds: 15,
    acquireTime: t0 + 15_001,
    renewTime: t0 + 15_001,
    leaseTransitions: 2,
  });
});

test("claimLease: expiry uses the holder's lease duration, not the candidate's", (t) => {
  const held: LeaseRecord = { holderIdentity: 'b', leaseDurationSeconds: 60, renewTime: t0 };
  t.is(claimLease(held, 'a', t0 + 20_000, 15), undefined);
  t.false(isLeaseFree(held, t0 + 60_000, 15));
  t.true(isLeaseFree(held, t0 + 60_001, 15));
});

test('claimLease: a released lease (no holder) is taken at once and counts a transition', (t) => {
  const released = releasedLease({ holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: t0, leaseTransitions: 3 }, t0 + 1);
  t.is(released.holderIdentity, undefined);
  t.is(released.leaseTransitions, 3);
  t.true(isLeaseFree(released, t0 + 1, 15));
  t.is(claimLease(released, 'a', t0 + 2, 15)?.leaseTransitions, 4);
});

/** One Lease in memory with resourceVersion checks; `down` makes every call fail like an unreachable server. */
class MemoryLease implements LeaseClient {
  stored: StoredLease | undefined;
  down = false;
  /** While set, calls wait for it before answering (a slow network). */
  gate: Promise<void> | undefined;
  readonly calls: string[] = [];
  #version = 0;

  async read(): Promise<StoredLease | undefined> {
    await this.#answer('read');
    return this.stored;
  }
  async create(record: LeaseRecord): Promise<StoredLease> {
    await this.#answer('create');
    if (this.stored) throw new LeaseConflictError('already exists');
    return this.#write(record);
  }
  async replace(record: LeaseRecord, resourceVersion: string): Promise<StoredLease> {
    await this.#answer(`replace:${record.holderIdentity ?? ''}`);
    if (this.stored?.resourceVersion !== resourceVersion) throw new LeaseConflictError('stale resourceVersion');
    return this.#write(record);
  }
  /** Someone else writes the lease (another replica). */
  overwrite(record: LeaseRecord): void {
    this.#write(record);
  }
  #write(record: LeaseRecord): StoredLease {
    this.stored = { resourceVersion: String(++this.#version), record: { ...record } };
    return this.stored;
  }
  async #answer(call: string): Promise<void> {
    this.calls.push(call);
    await this.gate;
    if (this.down) throw new Error('connect ECONNREFUSED');
  }
}

function elector(lease: LeaseClient, clock: FakeClock, identity = 'a'): { elector: LeaderElector; events: string[] } {
  const e = new LeaderElector(lease, {
    namespace: 'ns',
    name: 'lease',
    identity,
    leaseDurationSeconds: 15,
    renewDeadlineSeconds: 10,
    retryPeriodSeconds: 2,
    clock,
  });
  const events: string[] = [];
  e.on('started-leading', () => events.push('started'));
  e.on('stopped-leading', (reason) => events.push(`stopped:${reason}`));
  return { elector: e, events };
}

test('acquires a missing lease at once and renews it every retry period', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  const { elector: e, events } = elector(lease, clock);
  e.start();
  await clock.advance(0);
  t.deepEqual(events, ['started']);
  t.true(e.isLeader());
  t.is(lease.stored?.record.holderIdentity, 'a');
  await clock.advance(4000);
  t.is(lease.stored?.record.renewTime, t0 + 4000);
  // A leader renews on top of its own last write: no read before each renewal.
  t.deepEqual(lease.calls, ['read', 'create', 'replace:a', 'replace:a']);
  await e.stop();
});

test('waits while another holder renews, then takes over once its lease expired', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  lease.overwrite({ holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: t0, acquireTime: t0, leaseTransitions: 2 });
  const { elector: e, events } = elector(lease, clock);
  e.start();
  await clock.advance(15_000);
  t.deepEqual(events, [], 'not before renewTime + leaseDuration');
  await clock.advance(2000);
  t.deepEqual(events, ['started']);
  t.like(lease.stored?.record, { holderIdentity: 'a', leaseTransitions: 3, acquireTime: t0 + 16_000 });
  await e.stop();
});

test('stops leading when it cannot renew within the renew deadline, before the lease could expire', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  const { elector: e, events } = elector(lease, clock);
  e.start();
  await clock.advance(0);
  const lastRenewal = lease.stored!.record.renewTime!;
  lease.down = true;
  await clock.advance(9999);
  t.true(e.isLeader(), 'still within the renew deadline');
  t.deepEqual(events, ['started']);
  await clock.advance(1);
  t.false(e.isLeader());
  t.deepEqual(events, ['started', 'stopped:renew-deadline-exceeded']);
  t.true(clock.now() < lastRenewal + 15_000, 'others may take over only later');
  // Back as a candidate: once the API answers again it leads again (nobody else took the lease).
  lease.down = false;
  await clock.advance(2000);
  t.deepEqual(events, ['started', 'stopped:renew-deadline-exceeded', 'started']);
  await e.stop();
});

test('isLeader turns false at the renew deadline even if the deadline timer has not run yet', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  const { elector: e } = elector(lease, clock);
  e.start();
  await clock.advance(0);
  lease.down = true;
  clock.time += 10_000; // the event loop was blocked: no timer ran
  t.false(e.isLeader());
  await e.stop();
});

test('a renewal that answers only after the renew deadline does not extend leadership', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  const { elector: e, events } = elector(lease, clock);
  e.start();
  await clock.advance(0);
  let open!: () => void;
  lease.gate = new Promise<void>((resolve) => (open = resolve));
  await clock.advance(2000); // the renewal (renewTime t0+2s) is sent and hangs
  await clock.advance(10_500);
  t.deepEqual(events, ['started', 'stopped:renew-deadline-exceeded']);
  lease.gate = undefined;
  open(); // it succeeds 10.5 s after it was sent: past its own renew deadline
  await clock.advance(0);
  t.false(e.isLeader());
  t.deepEqual(events, ['started', 'stopped:renew-deadline-exceeded']);
  await e.stop();
});

test('a conflicting write makes the leader read again and stop leading when another holder has the lease', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  const { elector: e, events } = elector(lease, clock);
  e.start();
  await clock.advance(0);
  // Another replica wrote the lease (e.g. after a long pause of ours): our next renewal gets a 409.
  lease.overwrite({ holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: t0 + 1000, leaseTransitions: 1 });
  await clock.advance(2000);
  t.deepEqual(events, ['started', 'stopped:lost-lease']);
  t.deepEqual(lease.calls.slice(-2), ['replace:a', 'read']);
  t.is(lease.stored?.record.holderIdentity, 'b');
  await e.stop();
});

test('a conflict on our own lease (written meanwhile by ourselves) is resolved by reading again', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  const { elector: e, events } = elector(lease, clock);
  e.start();
  await clock.advance(0);
  lease.overwrite({ ...lease.stored!.record }); // same holder, new resourceVersion
  await clock.advance(2000);
  t.deepEqual(events, ['started']);
  t.deepEqual(lease.calls.slice(-3), ['replace:a', 'read', 'replace:a']);
  t.is(lease.stored?.record.renewTime, t0 + 2000);
  await e.stop();
});

test('stop with release: stops leading first, then writes the lease with no holder', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  const { elector: e, events } = elector(lease, clock);
  e.on('stopped-leading', () => events.push(`lease holder then: ${lease.stored?.record.holderIdentity ?? 'none'}`));
  e.start();
  await clock.advance(0);
  await e.stop({ release: true });
  t.deepEqual(events, ['started', 'stopped:stopped', 'lease holder then: a']);
  t.is(lease.stored?.record.holderIdentity, undefined);
  t.is(lease.stored?.record.leaseTransitions, 0);
  // A successor takes it on its first attempt.
  const successor = elector(lease, clock, 'b');
  successor.elector.start();
  await clock.advance(0);
  t.deepEqual(successor.events, ['started']);
  t.is(lease.stored?.record.leaseTransitions, 1);
  await successor.elector.stop();
});

test('stop without release leaves the lease to expire', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  const { elector: e, events } = elector(lease, clock);
  e.start();
  await clock.advance(0);
  const before = lease.stored;
  await e.stop();
  await clock.advance(10_000);
  t.deepEqual(events, ['started', 'stopped:stopped']);
  t.is(lease.stored, before, 'no write after stop');
});

test('stop waits for an attempt in flight, so nothing is written after it resolves', async (t) => {
  const clock = new FakeClock(t0);
  const lease = new MemoryLease();
  let open!: () => void;
  lease.gate = new Promise<void>((resolve) => (open = resolve));
  const { elector: e, events } = elector(lease, clock);
  e.start();
  await clock.advance(0); // the first read hangs
  let stopped = false;
  const stopping = e.stop({ release: true }).then(() => (stopped = true));
  await settle();
  t.false(stopped);
  lease.gate = undefined;
  open();
  await stopping;
  // The attempt created the lease as it finished; release then gave it up; no 'started' after stop.
  t.deepEqual(events, []);
  t.is(lease.stored?.record.holderIdentity, undefined);
  const calls = lease.calls.length;
  await clock.advance(10_000);
  t.is(lease.calls.length, calls);
});

test('rejects durations that would let two leaders overlap', (t) => {
  const lease = new MemoryLease();
  t.throws(() => new LeaderElector(lease, { namespace: 'n', name: 'l', identity: 'a', leaseDurationSeconds: 10, renewDeadlineSeconds: 10 }), {
    message: /must be less than leaseDurationSeconds/,
  });
  t.throws(() => new LeaderElector(lease, { namespace: 'n', name: 'l', identity: 'a', renewDeadlineSeconds: 2, retryPeriodSeconds: 2 }), {
    message: /retryPeriodSeconds/,
  });
  t.throws(() => new LeaderElector(lease, { namespace: 'n', name: 'l', identity: '' }), { message: /identity/ });
});

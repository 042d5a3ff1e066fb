import test from 'ava';
import bcrypt from 'bcryptjs';
import { PasswordWorkerPool } from './password-worker-pool.js';

// bcrypt cost 10: about 0.1 s per verification here, long enough for checks to overlap.
const slowHash = bcrypt.hashSync('right', 10);
const quickHash = bcrypt.hashSync('right', 4);

test('verifies on worker threads: right and wrong passwords', async (t) => {
  const pool = new PasswordWorkerPool({ size: 2 });
  t.teardown(() => pool.close());
  t.true(await pool.verify('a', 'right', quickHash));
  t.false(await pool.verify('a', 'wrong', quickHash));
  t.false(await pool.verify('a', 'right', 'not a hash'));
});

test('one tenant never holds every worker, and past its pending bound it is told busy; another tenant goes through', async (t) => {
  const pool = new PasswordWorkerPool({ size: 2 });
  t.teardown(() => pool.close());
  t.is(pool.perTenantRunning, 1);
  t.is(pool.perTenantPending, 2);
  const storm = Array.from({ length: 10 }, () => pool.verify('storm', 'wrong', slowHash));
  t.deepEqual(pool.pending(), { storm: 2 });
  const stormDone = Promise.all(storm).then((verdicts) => ({ verdicts, at: performance.now() }));
  // The other tenant finds the second worker free: answered while the storm's checks still run one by one.
  t.true(await pool.verify('other', 'right', quickHash));
  const otherAt = performance.now();
  const { verdicts, at } = await stormDone;
  t.is(verdicts.filter((v) => v === 'busy').length, 8);
  t.is(verdicts.filter((v) => v === false).length, 2);
  t.true(otherAt < at, 'the other tenant did not wait for the storm');
  t.deepEqual(pool.pending(), {});
});

test('waiting checks are served round-robin across tenants', async (t) => {
  const pool = new PasswordWorkerPool({ size: 1, perTenantPending: 3 });
  t.teardown(() => pool.close());
  const order: string[] = [];
  const submit = (tenant: string) => pool.verify(tenant, 'x', quickHash).then(() => order.push(tenant));
  await Promise.all([submit('a'), submit('a'), submit('a'), submit('b'), submit('b'), submit('c')]);
  // a's first ran at once; then one of each in turn.
  t.deepEqual(order, ['a', 'a', 'b', 'c', 'a', 'b']);
});

test('close answers what waits and stops the workers', async (t) => {
  const pool = new PasswordWorkerPool({ size: 1, perTenantRunning: 1, perTenantPending: 4 });
  const pending = [pool.verify('a', 'right', slowHash), pool.verify('a', 'right', slowHash)];
  await pool.close();
  t.deepEqual(await Promise.all(pending), [false, false]);
  t.false(await pool.verify('a', 'right', quickHash));
});

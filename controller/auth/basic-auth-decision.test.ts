import { HtpasswdUsers } from '../../ir/index.js';
import { createHash } from 'node:crypto';
import test from 'ava';
import { decideBasicAuth } from './basic-auth-decision.js';
import { BasicAuthUsers } from './basic-auth-users.js';
import { parseBasicCredentials } from './basic-credentials.js';
import { VerifiedPasswords } from './verified-passwords.js';

const sha = (password: string): string => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
const basic = (text: string): string => `Basic ${Buffer.from(text).toString('base64')}`;

test('credentials: scheme in any case, split at the first colon; anything else is no credentials', (t) => {
  t.deepEqual(parseBasicCredentials(basic('alice:pa:ss')), { user: 'alice', password: 'pa:ss' });
  t.deepEqual(parseBasicCredentials(`bAsIc  ${Buffer.from('bob:').toString('base64')}`), { user: 'bob', password: '' });
  for (const header of [undefined, '', 'Basic', basic('no-colon'), 'Bearer abc', 'Basic !!!']) t.is(parseBasicCredentials(header), undefined, String(header));
});

test('decision: right password allows, anything else denies, unknown users id is unavailable (503)', async (t) => {
  const users = new Map([['alice', sha('wonderland')], ['erin', '']]);
  const cache = new VerifiedPasswords();
  t.is(await decideBasicAuth(users, basic('alice:wonderland'), cache), 'allow');
  t.is(await decideBasicAuth(users, basic('alice:wrong'), cache), 'deny');
  t.is(await decideBasicAuth(users, basic('Alice:wonderland'), cache), 'deny');
  t.is(await decideBasicAuth(users, basic('erin:'), cache), 'deny');
  t.is(await decideBasicAuth(users, undefined, cache), 'deny');
  t.is(await decideBasicAuth(undefined, basic('alice:wonderland'), cache), 'unavailable');
});

test('decision: a success is remembered per hash and password, a failure for a few seconds; changed hashes are verified again', async (t) => {
  let calls = 0;
  const verify = async (password: string, hash: string): Promise<boolean> => {
    calls += 1;
    return hash === sha(password);
  };
  let now = 0;
  const cache = new VerifiedPasswords(10_000, 5_000, () => now);
  const before = new Map([['alice', sha('one')]]);
  t.is(await decideBasicAuth(before, basic('alice:one'), cache, verify), 'allow');
  t.is(await decideBasicAuth(before, basic('alice:one'), cache, verify), 'allow');
  t.is(calls, 1);
  t.is(await decideBasicAuth(before, basic('alice:two'), cache, verify), 'deny');
  t.is(await decideBasicAuth(before, basic('alice:two'), cache, verify), 'deny');
  t.is(calls, 2, 'the repeated wrong password is answered from the negative cache');
  now += 5_001;
  t.is(await decideBasicAuth(before, basic('alice:two'), cache, verify), 'deny');
  t.is(calls, 3, 'and verified again once it expired');
  // The Secret changes: the old password no longer matches the new hash, whatever the cache holds.
  const after = new Map([['alice', sha('two')]]);
  t.is(await decideBasicAuth(after, basic('alice:one'), cache, verify), 'deny');
  t.is(await decideBasicAuth(after, basic('alice:two'), cache, verify), 'allow');
});

test('a burst of checks of the same new credentials runs one verification', async (t) => {
  let calls = 0;
  const verify = async (password: string, hash: string): Promise<boolean> => {
    calls += 1;
    await new Promise((resolve) => setTimeout(resolve, 20));
    return hash === sha(password);
  };
  const cache = new VerifiedPasswords();
  const users = new Map([['alice', sha('one')]]);
  const answers = await Promise.all(Array.from({ length: 16 }, () => decideBasicAuth(users, basic('alice:one'), cache, verify)));
  t.deepEqual(new Set(answers), new Set(['allow']));
  t.is(calls, 1);
});

test('a verification refused as busy is no failure: the same credentials are tried again at once', async (t) => {
  let busy = true;
  const verify = async (password: string, hash: string): Promise<boolean | 'busy'> => (busy ? 'busy' : hash === sha(password));
  const cache = new VerifiedPasswords();
  const users = new Map([['alice', sha('one')]]);
  t.is(await decideBasicAuth(users, basic('alice:one'), cache, verify), 'busy');
  t.is(await decideBasicAuth(users, basic('alice:nope'), cache, verify), 'busy');
  busy = false;
  t.is(await decideBasicAuth(users, basic('alice:one'), cache, verify), 'allow');
  t.is(await decideBasicAuth(users, basic('alice:nope'), cache, verify), 'deny');
});

test('cache keys are length-prefixed: moving text between hash and password never gives the same key', (t) => {
  // Joined with a NUL these two pairs were the same bytes ("a\0b\0c").
  t.not(VerifiedPasswords.keyOf('a\0b', 'c'), VerifiedPasswords.keyOf('a', 'b\0c'));
  t.not(VerifiedPasswords.keyOf('ab', ''), VerifiedPasswords.keyOf('a', 'b'));
  t.is(VerifiedPasswords.keyOf('a', 'b'), VerifiedPasswords.keyOf('a', 'b'));
});

test('the negative cache is bounded and forgets expired failures', (t) => {
  let now = 0;
  const cache = new VerifiedPasswords(2, 1_000, () => now);
  cache.addFailure('a');
  cache.addFailure('b');
  cache.addFailure('c');
  t.false(cache.failedRecently('a'), 'the oldest went past capacity');
  t.true(cache.failedRecently('b'));
  now = 1_001;
  t.false(cache.failedRecently('c'));
});

test('the cache is bounded: the least recently used success goes first', (t) => {
  const cache = new VerifiedPasswords(2);
  cache.add('a');
  cache.add('b');
  t.true(cache.has('a'));
  cache.add('c');
  t.false(cache.has('b'));
  t.true(cache.has('a'));
  t.true(cache.has('c'));
  t.is(cache.size, 2);
});

test('users registry: by id from each build; an id no build names is unknown', (t) => {
  const registry = new BasicAuthUsers();
  t.is(registry.get('default/s/auth-file'), undefined);
  registry.update([{ id: 'default/s/auth-file', users: new HtpasswdUsers(`alice:${sha('a')}\nbob:$apr1$OFG3Xybp$ckL0FHDAkoXYIlH9.cysT0\n`) }]);
  t.deepEqual([...(registry.get('default/s/auth-file') ?? [])], [['alice', sha('a')], ['bob', '$apr1$OFG3Xybp$ckL0FHDAkoXYIlH9.cysT0']]);
  registry.update(undefined);
  t.is(registry.get('default/s/auth-file'), undefined);
});

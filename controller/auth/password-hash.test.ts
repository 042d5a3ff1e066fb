import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import test from 'ava';
import bcrypt from 'bcryptjs';
import { verifyPassword } from './password-hash.js';
import { passwordCostProblem, passwordScheme } from '../translate/shared/password-scheme.js';

// dist/controller/auth/ -> repository root.
const fixture = readFileSync(new URL('../../../test/fixtures/htpasswd/htpasswd-2.4.txt', import.meta.url), 'utf8');
/** user -> hash, from the file Apache's own htpasswd wrote (README beside it); each user's password is pw-<scheme>. */
const written = new Map(fixture.split('\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]));

test('hashes written by the real htpasswd: each scheme verifies its password and refuses another', async (t) => {
  const expected: Record<string, string> = { 'apr1-user': 'apr1', 'bcrypt-user': 'bcrypt', 'sha1-user': 'sha1', 'crypt-user': 'des-crypt', 'sha256-user': 'sha256-crypt', 'sha512-user': 'sha512-crypt' };
  t.deepEqual([...written.keys()].sort(), Object.keys(expected).sort());
  for (const [user, scheme] of Object.entries(expected)) {
    const hash = written.get(user) ?? '';
    t.is(passwordScheme(hash) as string | undefined, scheme, user);
    t.true(await verifyPassword(`pw-${user.replace(/-user$/, '')}`, hash), `${user} logs in`);
    t.false(await verifyPassword('pw-wrong', hash), `${user} with a wrong password`);
    t.false(await verifyPassword('', hash), `${user} with an empty password`);
  }
});

test('the other formats nginx accepts: $1$ (openssl passwd -1), $2a$/$2b$, {SSHA}, {PLAIN}', async (t) => {
  // `openssl passwd -1 -salt abcdefgh bar`, `openssl passwd -5 -salt salt bar`.
  t.true(await verifyPassword('bar', '$1$abcdefgh$X4AQOXsoYNpzaat9Hm7iC/'));
  t.true(await verifyPassword('bar', '$5$salt$3iTUkW1J6EAmZRWC9YB2OzvDSONVXDehQC0AsJxoX54'));
  t.false(await verifyPassword('baz', '$1$abcdefgh$X4AQOXsoYNpzaat9Hm7iC/'));
  const b = bcrypt.hashSync('bar', 4);
  for (const prefix of ['$2a$', '$2b$', '$2y$']) {
    const hash = prefix + b.slice(4);
    t.is(passwordScheme(hash), 'bcrypt');
    t.true(await verifyPassword('bar', hash), prefix);
    t.false(await verifyPassword('baz', hash), prefix);
  }
  const salt = Buffer.from('s@lt!');
  const ssha = `{SSHA}${Buffer.concat([createHash('sha1').update('bar').update(salt).digest(), salt]).toString('base64')}`;
  t.is(passwordScheme(ssha), 'ssha');
  t.true(await verifyPassword('bar', ssha));
  t.false(await verifyPassword('baz', ssha));
  t.true(await verifyPassword('bar', '{PLAIN}bar'));
  t.false(await verifyPassword('baz', '{PLAIN}bar'));
});

test('SHA-crypt with rounds= verifies (glibc crypt(3) wrote these); the library threw "Invalid salt string" on them', async (t) => {
  const hashes = [
    '$5$rounds=12000$saltysalt$1pXIA6n/YfRBZZZdM058tSjao0HMnWGMHDGr9kTguq0',
    '$6$rounds=1000$saltysalt$TWJlTyZT36LO/S.1Tgd1OXlBuZ5HGRDlg/MF/lcIBKPhxChlFYrg54T8/TO0E6Esi7p1XhtGv4gI7eK6l0SG/0',
  ];
  for (const hash of hashes) {
    t.true(await verifyPassword('pw-rounds', hash), hash);
    t.false(await verifyPassword('pw-wrong', hash), hash);
  }
});

test('cost caps: bcrypt above cost 14 and SHA-crypt above 1,000,000 rounds are refused before any verification', (t) => {
  const b = bcrypt.hashSync('bar', 4).slice(7);
  t.is(passwordCostProblem(`$2y$14$${b}`), undefined);
  t.regex(passwordCostProblem(`$2y$15$${b}`) ?? '', /bcrypt cost 15 is above the cap of 14/);
  t.regex(passwordCostProblem(`$2y$31$${b}`) ?? '', /cost 31/);
  const digest = '1pXIA6n/YfRBZZZdM058tSjao0HMnWGMHDGr9kTguq0';
  t.is(passwordCostProblem(`$5$rounds=1000000$salt$${digest}`), undefined);
  t.is(passwordCostProblem(`$5$salt$${digest}`), undefined);
  t.regex(passwordCostProblem(`$5$rounds=1000001$salt$${digest}`) ?? '', /rounds=1000001 is above the cap of 1000000/);
  t.is(passwordCostProblem('$apr1$OFG3Xybp$ckL0FHDAkoXYIlH9.cysT0'), undefined);
});

test('malformed hashes are no scheme and let nobody in', async (t) => {
  for (const hash of ['', '$apr1$x$short', '$2y$05$tooShort', '{SHA}abc=', 'not a hash at all', '$7$whatever']) {
    t.is(passwordScheme(hash), undefined, hash);
    t.false(await verifyPassword('', hash));
    t.false(await verifyPassword('bar', hash));
  }
});

import test from 'ava';
import { checkExternalName } from './external-name.js';

test('DNS names and public addresses are served, lower-cased and without a trailing dot', (t) => {
  t.deepEqual(checkExternalName('API.Partner.example.net.'), { valid: true, host: 'api.partner.example.net' });
  t.deepEqual(checkExternalName('203.0.113.7'), { valid: true, host: '203.0.113.7' });
  t.deepEqual(checkExternalName('2001:db8::7'), { valid: true, host: '2001:db8::7' });
  t.deepEqual(checkExternalName('10.1.2.3'), { valid: true, host: '10.1.2.3' });
});

test('loopback, unspecified and link-local targets are refused, in every spelling', (t) => {
  for (const target of [
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '169.254.169.254',
    '::1',
    '::',
    '0:0:0:0:0:0:0:1',
    'fe80::1',
    'FEBF::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    'localhost',
    'LOCALHOST.',
    'api.localhost',
  ]) {
    const checked = checkExternalName(target);
    t.false(checked.valid, target);
    if (!checked.valid) t.regex(checked.error, /loopback or link-local/, target);
  }
});

test('what is not a DNS name is refused', (t) => {
  for (const target of [undefined, '', 'bad_name.example.com', '-a.example.com', 'a..b', `${'a'.repeat(64)}.com`]) {
    t.false(checkExternalName(target).valid, String(target));
  }
});

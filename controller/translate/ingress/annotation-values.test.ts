import test from 'ava';
import {
  parseCidr,
  parseCidrList,
  parseDurationMs,
  parseHashBy,
  parseHeaderLines,
  parseHeaderNames,
  parseInteger,
  parseOrigin,
  parsePathReplacement,
  parseServerName,
  parseSizeBytes,
} from './annotation-values.js';

test('durations: units, fractions, 0 for none; anything else is refused', (t) => {
  t.is(parseDurationMs('30s'), 30_000);
  t.is(parseDurationMs('500ms'), 500);
  t.is(parseDurationMs('1.5m'), 90_000);
  t.is(parseDurationMs('2h'), 7_200_000);
  t.is(parseDurationMs('0'), 0);
  t.is(parseDurationMs(' 10s '), 10_000);
  for (const bad of ['30', '-1s', '1d', 's', '1 s', '0.1ms', '9999h', '', '1e3s']) t.is(parseDurationMs(bad), undefined, bad);
});

test('integers: digits only, within bounds', (t) => {
  t.is(parseInteger('3', 0, 10), 3);
  t.is(parseInteger('0', 0, 10), 0);
  for (const bad of ['11', '-1', '1.0', 'x', '', '0x1']) t.is(parseInteger(bad, 0, 10), undefined, bad);
});

test('sizes: bytes or powers of 1024, up to a uint32', (t) => {
  t.is(parseSizeBytes('1024'), 1024);
  t.is(parseSizeBytes('1k'), 1024);
  t.is(parseSizeBytes('8m'), 8 * 1024 ** 2);
  t.is(parseSizeBytes('8Mi'), 8 * 1024 ** 2);
  t.is(parseSizeBytes('1G'), 1024 ** 3);
  for (const bad of ['0', '10 MB', '4g', '1.5m', 'k', '-1']) t.is(parseSizeBytes(bad), undefined, bad);
});

test('header lines: "Name: value" per line, lower-cased names, no host or pseudo-headers, no control characters', (t) => {
  t.deepEqual(parseHeaderLines('X-Env: prod\n\nX-Empty:\nX-Colon: a:b'), [
    { name: 'x-env', value: 'prod' },
    { name: 'x-empty', value: '' },
    { name: 'x-colon', value: 'a:b' },
  ]);
  for (const bad of ['no colon', ':status: 200', 'Host: a', 'X-A: b\u0001', 'Bad Name: x', '']) {
    t.is(parseHeaderLines(bad), undefined, JSON.stringify(bad));
  }
  t.deepEqual(parseHeaderNames('X-Debug, cookie'), ['x-debug', 'cookie']);
  for (const bad of ['host', 'a/b', ':path', '']) t.is(parseHeaderNames(bad), undefined, bad);
});

test('CIDRs: IPv4 and IPv6, single addresses get a full-length prefix, any bad item refuses the list', (t) => {
  t.deepEqual(parseCidr('10.0.0.0/8'), { address: '10.0.0.0', prefixLength: 8 });
  t.deepEqual(parseCidr('192.168.1.7'), { address: '192.168.1.7', prefixLength: 32 });
  t.deepEqual(parseCidr('2001:db8::/32'), { address: '2001:db8::', prefixLength: 32 });
  t.deepEqual(parseCidr('::1'), { address: '::1', prefixLength: 128 });
  for (const bad of ['10.0.0.0/33', '10.0.0/8', 'example.com', '1.2.3.4/8/1', '::/129', '1.2.3.4/']) t.is(parseCidr(bad), undefined, bad);
  t.is(parseCidrList('10.0.0.0/8, nonsense'), undefined);
  t.is(parseCidrList(' , '), undefined);
  t.is(parseCidrList('10.0.0.0/8 127.0.0.1')?.length, 2);
});

test('hash-by, origins, SNI names and path replacements', (t) => {
  t.deepEqual(parseHashBy('header:X-User'), { kind: 'header', name: 'x-user' });
  t.deepEqual(parseHashBy('cookie:Session'), { kind: 'cookie', name: 'Session' });
  t.deepEqual(parseHashBy('source-ip'), { kind: 'source-ip' });
  for (const bad of ['query:x', 'header:', 'cookie:a b', 'header']) t.is(parseHashBy(bad), undefined, bad);
  t.is(parseOrigin('*'), '*');
  t.is(parseOrigin('https://App.Example.com:8443'), 'https://app.example.com:8443');
  t.is(parseOrigin('https://*.example.com'), 'https://*.example.com');
  for (const bad of ['app.example.com', 'ftp://a.com', 'https://a.com/path', 'https://*']) t.is(parseOrigin(bad), undefined, bad);
  t.is(parseServerName('API.internal'), 'api.internal');
  for (const bad of ['not a name', '-a.com', 'a..b', '*.a.com']) t.is(parseServerName(bad), undefined, bad);
  t.is(parsePathReplacement('/'), '/');
  t.is(parsePathReplacement('/v2/'), '/v2/');
  for (const bad of ['api', '/a?b', '/a#b', '/a b', '/a\\1', '']) t.is(parsePathReplacement(bad), undefined, bad);
});

import test from 'ava';
import fc from 'fast-check';
import { estimateRe2ProgramSize, maxUserRegexProgramSize } from './re2-program-size.js';

// Program sizes RE2 itself reports for these patterns (the number Envoy's re2.program_size histogram records),
// measured with Google's RE2 (PyPI google-re2 1.1.20251105: `re2.compile(p, o).programsize`, o.max_mem = 1 << 30).
// The first ones are the nginx path regexes of ingress-nginx's own tests and docs; the `.*(?:...).*` ones canary
// header patterns.
const measured: [string, number][] = [
  ['(?i)^(?:/foo).*', 12],
  ['(?i)^(?:/foo/bar/[A-Z0-9]{3}).*', 33],
  ['(?i)^(?:/id/[0-9]+$).*', 15],
  ['(?i)^(?:/id/[0-9]{3}$).*', 16],
  ['(?i)^(?:/id/[0-9]+/post/[a-zA-Z]+$).*', 30],
  ['(?i)^(?:/api/v[0-9]+/users/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}).*', 93],
  ['(?i)^(?:/something(/|$)(.*)).*', 37],
  ['(?i)^(?:/[a-z]{1000}).*', 6012],
  ['(?i)^(?:/.{1000}).*', 8005],
  ['(?i)^(?:/[^/]{300}).*', 2412],
  ['(?i)^(?:/\\pL{100}).*', 119712],
  ['(?i)^(?:/\\p{Greek}+).*', 79],
  ['(?i)^(?:/(a|b|c)+/[[:alpha:]]{20}).*', 137],
  ['(?i)^(?:/x{2,500}).*', 1010],
  ['(?i)^(?:/k{500}).*', 2012],
  ['(?i)^(?:/(x{10}){50}).*', 612],
  ['(?i)^(?:/\\w{200}\\d{100}\\s{50}).*', 1862],
  ['(?i)^(?:/[^a-z0-9]{100}).*', 2612],
  ['(?i)^(?:/\u00e9{100}).*', 312],
  ['(?i)^(?:/\\Qa.b\\E[\\x{100}-\\x{200}]{50}).*', 1462],
  ['(?i)^(?:/api/(v1|v2|v3)/(users|groups|orgs)/[^/]+/(items|things)/[0-9]+).*', 74],
  ['.*(?:canary).*', 26],
  ['.*(?:^(always|yes|true)$).*', 37],
  ['.*(?:[A-Za-z]{500}).*', 520],
  ['.*(?:\\PL{10}).*', 12000],
  ['.*(?:(?i)[a-z]{300}).*', 1820],
];

test('the estimate never undercounts what RE2 compiles (so the cap holds)', (t) => {
  for (const [pattern, size] of measured) {
    const estimate = estimateRe2ProgramSize(pattern);
    t.true(estimate >= size, `${pattern}: estimated ${estimate}, RE2 ${size}`);
  }
});

test('realistic paths stay far below the cap; the patterns RE2 compiles beyond it are refused', (t) => {
  for (const [pattern, size] of measured) {
    const estimate = estimateRe2ProgramSize(pattern);
    // A Unicode class counts as the largest one (\PL, 1,198 instructions): \p{Greek} alone is 62.
    if (size < 100 && !pattern.includes('\\p')) t.true(estimate < maxUserRegexProgramSize / 4, `${pattern}: estimated ${estimate}`);
    if (size > maxUserRegexProgramSize) t.true(estimate > maxUserRegexProgramSize, pattern);
  }
  // A literal path of the longest length a regex path may have (1024) is accepted.
  t.true(estimateRe2ProgramSize(`(?i)^(?:/${'a'.repeat(1023)}).*`) < maxUserRegexProgramSize);
});

test('the estimate ends on any text, also text RE2 would refuse', (t) => {
  for (const text of ['(', ')', '[', '[a-', '\\', 'x{', 'x{2,', '(?', '(?P<n', '\\p{', '\\Q', '[[:', 'a)b(c']) {
    t.true(Number.isFinite(estimateRe2ProgramSize(text)), text);
  }
  const regexy = fc.string({ unit: fc.constantFrom(...'()[]{}\\|?*+.^$-:,PpQEx0123456789aik<>=!'.split('')), maxLength: 40 });
  fc.assert(fc.property(regexy, (text) => Number.isFinite(estimateRe2ProgramSize(text))));
});

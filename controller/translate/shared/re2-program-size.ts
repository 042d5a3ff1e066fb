// An upper estimate of RE2's "program size" (the number of instructions RE2 compiles a regex to: what Envoy's
// re2.max_program_size runtime limit and its re2.program_size histogram measure), for user-written regexes.
//
// Envoy's limit is lifted for every regex (envoy/layered-runtime.ts): the regexes the controller builds itself are
// small and safe. User-written ones (ingress-nginx use-regex paths, canary-by-header-pattern) are capped here
// instead, per pattern, so one Ingress cannot make every Envoy hold huge programs (about 16 bytes per instruction,
// plus a DFA cache per regex) and walk them on every request: `/[a-z]{1000}` alone is 6,000 instructions and
// `\pL{100}` 120,000, where a realistic path is under 100. re2-wasm does not expose RE2's ProgramSize(), so this
// walks the pattern with the costs RE2's compiler gives each construct (measured with RE2 itself: the table in
// re2-program-size.test.ts), rounding up where RE2's simplifier may do better. It never undercounts the
// constructs that grow programs (counted repetition, Unicode classes, case-folded classes), so the cap holds.

/** Instructions RE2 adds to every program (fail, match, the unanchored-search loop). */
const programOverhead = 4;

/** The cap for user-written regexes, in estimated RE2 instructions. See docs/guides/security.md. */
export const maxUserRegexProgramSize = 2000;

interface Cursor {
  pattern: string;
  at: number;
  ignoreCase: boolean;
}

/** `.`, a negated class or one reaching beyond ASCII: a UTF-8 automaton (RE2: 8-11 instructions). */
const utf8ClassCost = 12;
/** `\p{...}`, `\pL`, `\PL`: RE2 compiles up to about 1,200 instructions for one (`\PL`). */
const unicodeClassCost = 1300;

const isLetter = (c: string): boolean => /^[A-Za-z]$/.test(c);

/** The index just after the next `text` from `from`, or the end: every step moves forward, whatever the input. */
function after(pattern: string, text: string, from: number): number {
  const at = pattern.indexOf(text, from);
  return at < 0 ? pattern.length : at + text.length;
}

function literalCost(c: string, ignoreCase: boolean): number {
  const bytes = Buffer.byteLength(c, 'utf8');
  if (bytes > 1) return bytes + 1;
  // Case folding adds the Kelvin sign to k and the long s to s (non-ASCII, so UTF-8 branches).
  if (ignoreCase && /^[ks]$/i.test(c)) return 4;
  return 1;
}

/** Cost of a class given its items; `letters` when a case-insensitive class folds letters. */
function classCost(items: number, negated: boolean, wide: boolean, letters: boolean): number {
  // Case folding adds the Kelvin sign and the long s: ranges beyond ASCII.
  const folded = letters ? 2 * items + 2 : items;
  if (negated || wide) return utf8ClassCost + 10 * folded;
  return letters ? 3 * items + 3 : Math.max(1, items);
}

/** After a backslash outside a class: the cost of the escape. */
function escapeCost(cur: Cursor): number {
  const c = cur.pattern[cur.at++] ?? '';
  switch (c) {
    case 'p':
    case 'P':
      if (cur.pattern[cur.at] === '{') cur.at = after(cur.pattern, '}', cur.at);
      else cur.at++;
      return unicodeClassCost;
    case 'd':
      return 1;
    case 'w':
      return classCost(4, false, false, cur.ignoreCase);
    case 's':
      return 5;
    case 'D':
    case 'W':
    case 'S':
      return utf8ClassCost;
    case 'b':
    case 'B':
    case 'A':
    case 'z':
      return 1;
    case 'Q': {
      const end = after(cur.pattern, '\\E', cur.at);
      const text = cur.pattern.slice(cur.at, end === cur.pattern.length ? end : end - 2);
      cur.at = end;
      return [...text].reduce((n, ch) => n + literalCost(ch, cur.ignoreCase), 0);
    }
    case 'x':
      if (cur.pattern[cur.at] === '{') {
        const end = after(cur.pattern, '}', cur.at);
        const code = Number.parseInt(cur.pattern.slice(cur.at + 1, end - 1), 16);
        cur.at = end;
        return Number.isFinite(code) ? literalCost(String.fromCodePoint(Math.min(code, 0x10ffff)), cur.ignoreCase) : 1;
      }
      cur.at += 2;
      return 2;
    default:
      return literalCost(c, cur.ignoreCase);
  }
}

/** After `[`: the class up to its `]`. */
function classAtomCost(cur: Cursor): number {
  const { pattern } = cur;
  let negated = false;
  if (pattern[cur.at] === '^') {
    negated = true;
    cur.at++;
  }
  let items = 0;
  let wide = false;
  let letters = false;
  let first = true;
  while (cur.at < pattern.length && (pattern[cur.at] !== ']' || first)) {
    first = false;
    const c = pattern[cur.at] as string;
    if (c === '[' && pattern[cur.at + 1] === ':') {
      const end = after(pattern, ':]', cur.at + 2);
      const name = pattern.slice(cur.at + 2, end - 2);
      cur.at = end;
      items += 2;
      if (/alpha|alnum|upper|lower|word/.test(name)) letters = true;
      if (name.startsWith('^')) wide = true;
      continue;
    }
    if (c === '\\') {
      const e = pattern[cur.at + 1] ?? '';
      cur.at += 2;
      if (e === 'p' || e === 'P') {
        if (pattern[cur.at] === '{') cur.at = after(pattern, '}', cur.at);
        else cur.at++;
        return unicodeClassCost;
      }
      if (e === 'D' || e === 'W' || e === 'S') wide = true;
      if (e === 'w') letters = true;
      if (e === 'x') {
        if (pattern[cur.at] === '{') cur.at = after(pattern, '}', cur.at);
        else cur.at += 2;
        wide = true;
      }
      items += e === 'w' ? 4 : e === 's' ? 5 : 1;
      continue;
    }
    const point = pattern.codePointAt(cur.at) ?? 0;
    const ch = String.fromCodePoint(point);
    cur.at += ch.length;
    if (point > 0x7f) wide = true;
    if (isLetter(ch)) letters = true;
    // A range counts once: skip "-x".
    if (pattern[cur.at] === '-' && pattern[cur.at + 1] !== ']' && cur.at + 1 < pattern.length) {
      cur.at++;
      const end = pattern[cur.at] === '\\' ? 2 : String.fromCodePoint(pattern.codePointAt(cur.at) ?? 0).length;
      const last = pattern.codePointAt(pattern[cur.at] === '\\' ? cur.at + 1 : cur.at) ?? 0;
      if (last > 0x7f) wide = true;
      cur.at += end;
    }
    items++;
  }
  cur.at++; // ]
  return classCost(items, negated, wide, letters && cur.ignoreCase);
}

/** Applies a quantifier after an atom of cost `inner`, if one follows. */
function quantified(cur: Cursor, inner: number): number {
  const { pattern } = cur;
  const c = pattern[cur.at];
  let cost = inner;
  if (c === '*' || c === '+' || c === '?') {
    cur.at++;
    cost = inner + 1;
  } else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(cur.at));
    if (m === null) return inner;
    cur.at += m[0].length;
    const min = Number(m[1]);
    if (m[2] === undefined) cost = min * inner;
    else if (m[3] === '' || m[3] === undefined) cost = min * inner + 1;
    else cost = min * inner + (Math.max(Number(m[3]), min) - min) * (inner + 1);
  } else {
    return inner;
  }
  if (pattern[cur.at] === '?') cur.at++; // lazy
  // A quantifier may follow another only inside RE2's repetition limits (checked by compiling); count it again.
  return quantified(cur, cost);
}

/** Alternatives up to `)` or the end. */
function alternation(cur: Cursor): number {
  const saved = cur.ignoreCase;
  let total = 0;
  let branches = 1;
  let branch = 0;
  while (cur.at < cur.pattern.length) {
    const c = cur.pattern[cur.at] as string;
    if (c === ')') break;
    if (c === '|') {
      cur.at++;
      total += branch;
      branch = 0;
      branches++;
      continue;
    }
    branch += atom(cur);
  }
  cur.ignoreCase = saved;
  return total + branch + (branches - 1);
}

function atom(cur: Cursor): number {
  const { pattern } = cur;
  const c = pattern[cur.at] as string;
  cur.at++;
  let cost: number;
  switch (c) {
    case '(': {
      let capture = true;
      if (pattern[cur.at] === '?') {
        const flags = /^\?(P?<[^>]*>|[imsU-]*[:)])/.exec(pattern.slice(cur.at));
        const text = flags?.[1] ?? '';
        cur.at += 1 + text.length;
        if (text.endsWith(')')) {
          // (?i) changes the rest of the enclosing group.
          if (/i/.test(text.split('-')[0] ?? '')) cur.ignoreCase = true;
          if (/i/.test(text.split('-')[1] ?? '')) cur.ignoreCase = false;
          return 0;
        }
        if (text.endsWith(':')) {
          capture = false;
          const saved = cur.ignoreCase;
          if (/i/.test(text.split('-')[0] ?? '')) cur.ignoreCase = true;
          cost = alternation(cur);
          cur.ignoreCase = saved;
          cur.at++; // )
          return quantified(cur, cost);
        }
      }
      cost = alternation(cur) + (capture ? 2 : 0);
      cur.at++; // )
      break;
    }
    case '[':
      cost = classAtomCost(cur);
      break;
    case '\\':
      cost = escapeCost(cur);
      break;
    case '.':
      cost = utf8ClassCost;
      break;
    case '^':
    case '$':
      return 1;
    default: {
      // A whole code point (a surrogate pair is one character).
      const point = pattern.codePointAt(cur.at - 1) ?? 0;
      if (point > 0xffff) cur.at++;
      cost = literalCost(String.fromCodePoint(point), cur.ignoreCase);
    }
  }
  return quantified(cur, cost);
}

/**
 * Estimated RE2 program size of `pattern` (one RE2 compiles; callers check that first): at least what RE2
 * reports for the constructs that make programs large, usually somewhat more (literal prefixes, which RE2 takes
 * out of the program, are counted).
 */
export function estimateRe2ProgramSize(pattern: string): number {
  const cur: Cursor = { pattern, at: 0, ignoreCase: false };
  let total = 0;
  // A stray `)` cannot occur in a pattern RE2 compiled; the loop still ends on any input.
  while (cur.at < pattern.length) {
    total += alternation(cur);
    if (cur.at < pattern.length) cur.at++;
  }
  return total + programOverhead;
}

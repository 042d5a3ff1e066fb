// Regex paths (ingress-nginx use-regex): an Ingress path read as a regular expression, checked with RE2 itself (the
// engine Envoy's safe_regex uses, here compiled to WebAssembly by the re2-wasm package), so a pattern Envoy would
// refuse is reported on its Ingress instead of making Envoy reject the whole route configuration.
import type { PathMatchIR } from '../../../ir/index.js';
import { estimateRe2ProgramSize, maxUserRegexProgramSize } from '../shared/re2-program-size.js';
import { cacheSize, compileRe2, RecentCache, withRe2 } from '../shared/re2.js';

export { compileRe2 } from '../shared/re2.js';

export type RegexPathMatch = Extract<PathMatchIR, { kind: 'regex' }>;

export type ParsedRegexPath = { valid: true; match: RegexPathMatch } | { valid: false; error: string; tooLarge?: true };

/** Longer regex paths are refused: an Ingress path of this size is a mistake, and RE2 programs grow with it. */
export const maxRegexPathLength = 1024;

/**
 * ingress-nginx writes a regex path as `location ~* "^<path>"`: case-insensitive, anchored at the start only.
 * Envoy's safe_regex must match the whole path, hence the trailing `.*`; the group keeps a top-level `|` of the
 * path inside the anchor (ingress-nginx would anchor only its first alternative).
 */
export function nginxPathRegex(path: string): string {
  return `(?i)^(?:${path}).*`;
}

const parsedPaths = new RecentCache<ParsedRegexPath>(cacheSize);


/**
 * Checks a pattern on its own and counts its capture groups in one compilation: `pattern|` compiles exactly when
 * the pattern does (parentheses must balance; a trailing backslash, which would escape the `|`, is refused before)
 * and its empty alternative matches "", which yields every group.
 */
function checkAlone(pattern: string): { ok: true; groups: number } | { ok: false; error: string } {
  if (/(^|[^\\])(\\\\)*\\$/.test(pattern)) return { ok: false, error: 'trailing \\' };
  return withRe2(`${pattern}|`, (re) => (re.ok() ? { ok: true, groups: re.match('', 0, true).groups.length } : { ok: false, error: re.error() }));
}
const alone = new RecentCache<ReturnType<typeof checkAlone>>(cacheSize);

/** Capture groups of a pattern (0 for one RE2 refuses). */
export function captureGroupCount(pattern: string): number {
  const checked = alone.get(pattern, checkAlone);
  return checked.ok ? checked.groups : 0;
}

/** JavaScript regex forms RE2 does not have, refused with a hint at the RE2 spelling. */
function javascriptOnlySyntax(path: string): string | undefined {
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '\\') {
      const next = path[i + 1];
      if (next === 'c' || next === 'u') return `\\${next} escapes are JavaScript syntax, not RE2 (write \\x{HHHH})`;
      i++;
    } else if (c === '(' && path.startsWith('(?<', i) && path[i + 3] !== '=' && path[i + 3] !== '!') {
      return 'named groups are written (?P<name>...) in RE2';
    }
  }
  return undefined;
}

/**
 * Reads an Ingress path as an ingress-nginx regex path, whatever its pathType (ingress-nginx ignores the pathType
 * of regex paths). It must start with "/", be printable ASCII and compile with RE2 (no backreferences, no
 * lookaround).
 */
export function parseRegexPath(path: string | undefined): ParsedRegexPath {
  return parsedPaths.get(path === undefined || path === '' ? '/' : path, checkRegexPath);
}

function checkRegexPath(value: string): ParsedRegexPath {
  const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}...` : JSON.stringify(value);
  if (!value.startsWith('/')) return { valid: false, error: `regex path ${shown} must start with "/"` };
  if (value.length > maxRegexPathLength) return { valid: false, error: `regex path ${shown} is longer than ${maxRegexPathLength} characters` };
  if (!/^[\x21-\x7e]*$/.test(value)) return { valid: false, error: `regex path ${shown} must be printable ASCII without spaces` };
  const jsOnly = javascriptOnlySyntax(value);
  if (jsOnly !== undefined) return { valid: false, error: `regex path ${shown} is not valid RE2: ${jsOnly}` };
  // Alone first: `a)|(b` only compiles inside the group below, where it would mean something else.
  const checked = alone.get(value, checkAlone);
  if (!checked.ok) return { valid: false, error: `regex path ${shown} is not valid RE2: ${checked.error}` };
  const full = compileRe2(nginxPathRegex(value));
  if (!full.ok) return { valid: false, error: `regex path ${shown} is not valid RE2: ${full.error}` };
  const size = estimateRe2ProgramSize(nginxPathRegex(value));
  if (size > maxUserRegexProgramSize) return { valid: false, error: tooLargeError(`regex path ${shown}`, size), tooLarge: true };
  return { valid: true, match: { kind: 'regex', path: value, regex: nginxPathRegex(value) } };
}

/** Why a user-written regex is refused for its size (re2-program-size.ts). */
export function tooLargeError(what: string, size: number): string {
  return `${what} is too large: RE2 would compile it to about ${size} instructions, more than the ${maxUserRegexProgramSize} allowed for a user-written regex (counted repetitions like {1000} and Unicode classes like \\pL grow it)`;
}

/** Whether the whole request path matches, as Envoy's safe_regex route match decides (for explain). */
export function regexMatchesPath(match: RegexPathMatch, path: string): boolean {
  return withRe2(`^(?:${match.regex})$`, (re) => re.ok() && re.match(path, 0, false).index >= 0);
}

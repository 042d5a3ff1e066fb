// Value checks and request-matching patterns for the ingress-nginx canary annotations (nginx-canary.ts). Every
// pattern built here is RE2 (what Envoy's safe_regex runs), checked with the same RE2 library compiled to wasm.
import type { HeaderMatchIR } from '../../../../ir/index.js';
import { compileRe2, tooLargeError } from '../path-match-regex.js';
import { estimateRe2ProgramSize, maxUserRegexProgramSize } from '../../shared/re2-program-size.js';

/** Go's strconv.ParseBool, which ingress-nginx reads boolean annotations with. */
export function parseGoBool(text: string): boolean | undefined {
  const v = text.trim();
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** A cookie name (an RFC 6265 token). */
export function parseCookieName(text: string): string | undefined {
  const name = text.trim();
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/.test(name) ? name : undefined;
}

/**
 * A header value to compare with: visible ASCII and inner spaces. Leading or trailing blanks could never match,
 * since HTTP strips them from header values before anyone compares.
 */
export function parseHeaderValue(text: string): string | undefined {
  return /^[\x21-\x7e](?:[\x20-\x7e]{0,1022}[\x21-\x7e])?$/.test(text) ? text : undefined;
}

/**
 * Whether `pattern` compiles as RE2 (Envoy would reject the whole route table otherwise), checked with RE2 itself
 * (path-match-regex.ts). `\u` and `\c` escapes are refused: re2-wasm turns these JavaScript forms into RE2 ones,
 * Envoy's RE2 gets the text as written.
 */
export function isRe2(pattern: string): boolean {
  if (/\\[uc]/.test(pattern.replaceAll('\\\\', ''))) return false;
  return compileRe2(pattern).ok;
}

export type ParsedPattern = { valid: true; regex: string } | { valid: false; error: string };

/**
 * canary-by-header-pattern -> an RE2 over the whole header value. ingress-nginx searches the value with PCRE
 * (ngx.re.match, unanchored), so the pattern may match anywhere: `.*(?:pattern).*`. PCRE-only syntax (look-around,
 * back-references, possessive quantifiers) has no RE2 equivalent and is refused.
 */
export function headerPatternRegex(pattern: string): ParsedPattern {
  if (pattern.length === 0 || pattern.length > 1024) return { valid: false, error: 'a pattern of 1 to 1024 characters' };
  if (!isRe2(pattern)) return { valid: false, error: 'an RE2 regular expression (look-around and back-references are PCRE only)' };
  const regex = `.*(?:${pattern}).*`;
  if (!isRe2(regex)) return { valid: false, error: 'a self-contained RE2 regular expression' };
  const size = estimateRe2ProgramSize(regex);
  if (size > maxUserRegexProgramSize) return { valid: false, error: `a smaller pattern: ${tooLargeError('this one', size)}` };
  return { valid: true, regex };
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/** `Canary` -> `[cC][aA][nN][aA][rR][yY]`: case-insensitive in RE2 and in JavaScript alike (no inline flags). */
function caseInsensitive(text: string): string {
  return [...text].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeRegex(c))).join('');
}

/**
 * A condition on the Cookie header: a cookie `name` whose value is exactly `value`. Cookies are `name=value` pairs
 * separated by `;` and optional blanks (RFC 6265 section 5.4; Envoy joins the cookie headers of an HTTP/2 request
 * with `; `). The name compares case-insensitively and may be followed by blanks before `=`, as nginx's
 * $cookie_NAME lookup does (ngx_http_parse_multi_header_lines); the value compares exactly, as ingress-nginx's Lua.
 */
export function cookieHeaderMatch(name: string, value: string): HeaderMatchIR {
  return {
    name: 'cookie',
    kind: 'regex',
    value: `^(?:.*;)?[ \\t]*${caseInsensitive(name)}[ \\t]*=${escapeRegex(value)}[ \\t]*(?:;.*)?$`,
  };
}

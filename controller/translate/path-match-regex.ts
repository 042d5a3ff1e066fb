// Regex paths (ingress-nginx use-regex): an Ingress path read as a regular expression, checked with RE2 itself (the
// engine Envoy's safe_regex uses, here compiled to WebAssembly by the re2-wasm package), so a pattern Envoy would
// refuse is reported on its Ingress instead of making Envoy reject the whole route configuration.
import { RE2 } from 're2-wasm';
import type { PathMatchIR } from './ir.js';

export type RegexPathMatch = Extract<PathMatchIR, { kind: 'regex' }>;

export type ParsedRegexPath =
  | { valid: true; match: RegexPathMatch; /** Capture groups of the path (for rewrite-target `$N`). */ groups: number }
  | { valid: false; error: string };

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

/** Deletes the WebAssembly object behind an RE2 (re2-wasm frees nothing itself: its 16 MiB heap would run out). */
function release(re: RE2): void {
  (re as unknown as { wrapper?: { delete?: () => void } }).wrapper?.delete?.();
}

type Compiled = { ok: true; groups: number } | { ok: false; error: string };

/** Results by pattern: translation runs on every change and the same few patterns come back each time. */
const compiled = new Map<string, Compiled>();
const maxCached = 2000;

/** Compiles `pattern` with RE2 once; the number of capture groups, or RE2's complaint. */
export function compileRe2(pattern: string): Compiled {
  const known = compiled.get(pattern);
  if (known !== undefined) return known;
  let result: Compiled;
  let re: RE2 | undefined;
  try {
    // An empty alternative matches the empty string, so exec always yields the full group array.
    re = new RE2(`(?:${pattern})|`, 'u');
    result = { ok: true, groups: (re.exec('')?.length ?? 1) - 1 };
    release(re);
    re = undefined;
    // The pattern alone must compile too: `a)|(b` is only valid inside the wrapper above.
    re = new RE2(pattern, 'u');
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    result = { ok: false, error: text.replace(/^Invalid regular expression: \/.*\/u: /s, '') };
  } finally {
    if (re !== undefined) release(re);
  }
  if (compiled.size >= maxCached) compiled.clear();
  compiled.set(pattern, result);
  return result;
}

/** re2-wasm rewrites these JavaScript forms into RE2 ones; Envoy's RE2 gets the text as written, so they are refused. */
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
  const value = path === undefined || path === '' ? '/' : path;
  const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}...` : JSON.stringify(value);
  if (!value.startsWith('/')) return { valid: false, error: `regex path ${shown} must start with "/"` };
  if (value.length > maxRegexPathLength) return { valid: false, error: `regex path ${shown} is longer than ${maxRegexPathLength} characters` };
  if (!/^[\x21-\x7e]*$/.test(value)) return { valid: false, error: `regex path ${shown} must be printable ASCII without spaces` };
  const jsOnly = javascriptOnlySyntax(value);
  if (jsOnly !== undefined) return { valid: false, error: `regex path ${shown} is not valid RE2: ${jsOnly}` };
  const alone = compileRe2(value);
  if (!alone.ok) return { valid: false, error: `regex path ${shown} is not valid RE2: ${alone.error}` };
  const regex = nginxPathRegex(value);
  const full = compileRe2(regex);
  if (!full.ok) return { valid: false, error: `regex path ${shown} is not valid RE2: ${full.error}` };
  return { valid: true, match: { kind: 'regex', path: value, regex }, groups: alone.groups };
}

/** Whether the whole request path matches, as Envoy's safe_regex route match decides (for explain). */
export function regexMatchesPath(match: RegexPathMatch, path: string): boolean {
  let re: RE2 | undefined;
  try {
    re = new RE2(`^(?:${match.regex})$`, 'u');
    return re.test(path);
  } catch {
    return false;
  } finally {
    if (re !== undefined) release(re);
  }
}

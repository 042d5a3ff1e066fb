// Ingress path + pathType -> PathMatchIR, and the order routes are tried in.
import { compareStrings, type PathMatchIR, type RouteIR } from '../../../ir/index.js';

export type ParsedPath = { valid: true; match: PathMatchIR } | { valid: false; error: string };

/**
 * RFC 3986 path characters: unreserved, sub-delims, ':' '@', '/' and percent-encodings. Anything else (space,
 * '?', '#', quotes, brackets, control or non-ASCII characters) cannot appear in a request path as sent.
 */
const pathCharacters = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;

/**
 * Sequences Kubernetes rejects in Exact and Prefix paths; we reject them for every pathType because Envoy
 * normalises request paths, so a route containing them could never match.
 */
const forbiddenSequences = ['//', '/./', '/../', '%2f', '%2F'];
const forbiddenSuffixes = ['/..', '/.'];

/**
 * Translates one HTTPIngressPath. A missing path means `/`. ImplementationSpecific (and a missing pathType,
 * the pre-v1 default) is treated as Prefix: it is the only prefix semantics Envoy offers that matches the
 * spec's element-wise rule. Prefix paths lose their trailing slashes (`/foo/` -> `/foo`; `/` stays `/`),
 * since an element-wise `/foo` prefix already matches `/foo/` and everything below it.
 * With `nginx` (an Ingress read with the nginx layer), ImplementationSpecific is what ingress-nginx makes of it:
 * an nginx prefix location, a character prefix as written (`/` stays the root prefix, which is the same thing).
 */
export function parsePath(path: string | undefined, pathType: string | undefined, nginx = false): ParsedPath {
  const value = path === undefined || path === '' ? '/' : path;
  let kind: PathMatchIR['kind'];
  switch (pathType) {
    case 'Exact':
      kind = 'exact';
      break;
    case 'Prefix':
    case 'ImplementationSpecific':
    case undefined:
      kind = 'prefix';
      break;
    default:
      return {
        valid: false,
        error: `unknown pathType ${JSON.stringify(pathType)}; accepted: "Exact", "Prefix", "ImplementationSpecific"`,
      };
  }
  if (!value.startsWith('/')) return { valid: false, error: `path ${JSON.stringify(value)} must start with "/"` };
  if (!pathCharacters.test(value)) {
    return { valid: false, error: `path ${JSON.stringify(value)} contains characters not allowed in a URL path` };
  }
  for (const sequence of forbiddenSequences) {
    if (value.includes(sequence)) {
      return { valid: false, error: `path ${JSON.stringify(value)} must not contain ${JSON.stringify(sequence)}` };
    }
  }
  for (const suffix of forbiddenSuffixes) {
    if (value.endsWith(suffix)) {
      return { valid: false, error: `path ${JSON.stringify(value)} must not end with ${JSON.stringify(suffix)}` };
    }
  }
  if (kind === 'exact') return { valid: true, match: { kind, path: value } };
  if (nginx && pathType !== 'Prefix' && value !== '/') return { valid: true, match: { kind: 'character-prefix', path: value } };
  const trimmed = value.replace(/\/+$/, '');
  if (trimmed === '') return { valid: true, match: { kind, path: '/' } };
  return { valid: true, match: trimmed === value ? { kind, path: trimmed } : { kind, path: trimmed, trailingSlash: true } };
}

/** Identity of a match within one host: two routes with the same key claim the same requests. */
export function matchKey(match: PathMatchIR): string {
  return `${match.kind} ${writtenPath(match)}`;
}

/** The path as the Ingress wrote it, up to repeated trailing slashes (`/foo/` for a Prefix written so). */
function writtenPath(match: PathMatchIR): string {
  return match.kind === 'prefix' && match.trailingSlash === true ? `${match.path}/` : match.path;
}

const matchKindNames: Record<PathMatchIR['kind'], string> = { exact: 'Exact', prefix: 'Prefix', 'character-prefix': 'ImplementationSpecific', regex: 'Regex' };

/** Human-readable form for messages, e.g. `Prefix /foo` or `Regex /foo/.*`. */
export function describeMatch(match: PathMatchIR): string {
  return `${matchKindNames[match.kind]} ${writtenPath(match)}`;
}

/**
 * At equal path length: Exact, then Prefix, then character prefixes (ingress-nginx makes Prefix `/foo` the
 * locations `/foo/` and `= /foo`, which nginx prefers over the shorter `/foo` of an ImplementationSpecific
 * path), then regex paths.
 */
const matchKindRank: Record<PathMatchIR['kind'], number> = { exact: 0, prefix: 1, 'character-prefix': 2, regex: 3 };

/**
 * Route precedence within a virtual host: longest path first (so the most specific prefix wins), Exact before
 * Prefix before regex at equal length, then route name so the order never depends on input order. Regex paths
 * are ordered by the length of the path as written, among the others, and two regex paths of one length by the
 * path, the greater first: ingress-nginx sorts its locations by path descending, then (stable) by length
 * descending (controller.go getBackendServers), and nginx tries regex locations in that order.
 * Prefix `/foo/` and `/foo` match the same requests element-wise; the one written with the slash is the longer
 * path the spec gives priority to, so it comes first (an Exact `/foo` still wins `/foo` itself).
 * Character prefixes longest first is nginx's own rule for prefix locations: the longest matching one wins.
 */
export function compareRoutePrecedence(a: RouteIR, b: RouteIR): number {
  if (a.match.path.length !== b.match.path.length) return b.match.path.length - a.match.path.length;
  if (a.match.kind !== b.match.kind) return matchKindRank[a.match.kind] - matchKindRank[b.match.kind];
  if (a.match.kind === 'regex' && a.match.path !== b.match.path) return a.match.path > b.match.path ? -1 : 1;
  const slashA = a.match.kind === 'prefix' && a.match.trailingSlash === true;
  const slashB = b.match.kind === 'prefix' && b.match.trailingSlash === true;
  if (slashA !== slashB) return slashA ? -1 : 1;
  return compareStrings(a.name, b.name);
}

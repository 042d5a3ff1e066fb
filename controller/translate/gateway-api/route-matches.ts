// One HTTPRoute match -> the IR's path, header, method and query conditions (or why it cannot be served).
import type { HeaderMatchIR, PathMatchIR, QueryParamMatchIR } from '../../../ir/index.js';
import type { HTTPRouteMatch } from '../shared/kube-objects.js';
import { regexError } from './regex-check.js';
import type { RankedMatch } from './route-precedence.js';

export interface MatchIR {
  path: PathMatchIR;
  headers: HeaderMatchIR[];
  queryParams: QueryParamMatchIR[];
  /** The precedence's view of the path (route-precedence.ts). */
  rankedPath: RankedMatch['path'];
}

export type TranslatedMatch = { valid: true; match: MatchIR } | { valid: false; error: string };

/** A rule without matches matches every request: a PathPrefix `/` (the spec's default). */
export const defaultMatch: HTTPRouteMatch = { path: { type: 'PathPrefix', value: '/' } };

export function translateMatch(match: HTTPRouteMatch): TranslatedMatch {
  const type = match.path?.type ?? 'PathPrefix';
  const value = match.path?.value ?? '/';
  let path: PathMatchIR;
  if (type === 'RegularExpression') {
    const error = regexError(value);
    if (error !== undefined) return { valid: false, error: `path ${error}` };
    path = { kind: 'regex', path: value, regex: value };
  } else {
    if (!value.startsWith('/')) return { valid: false, error: `path ${JSON.stringify(value)} does not start with "/"` };
    if (type === 'Exact') path = { kind: 'exact', path: value };
    else if (value === '/') path = { kind: 'prefix', path: '/' };
    // The spec ignores a trailing slash of a prefix: `/foo/` matches what `/foo` does.
    else if (value.endsWith('/')) path = { kind: 'prefix', path: value.replace(/\/+$/, ''), trailingSlash: true };
    else path = { kind: 'prefix', path: value };
  }
  const headers: HeaderMatchIR[] = [];
  // The spec: of several matches of one header name, the first counts.
  const seenHeaders = new Set<string>();
  for (const header of match.headers ?? []) {
    const name = header.name.toLowerCase();
    if (seenHeaders.has(name)) continue;
    seenHeaders.add(name);
    const kind = header.type === 'RegularExpression' ? 'regex' : 'exact';
    if (kind === 'regex') {
      const error = regexError(header.value);
      if (error !== undefined) return { valid: false, error: `header ${header.name}: ${error}` };
    }
    headers.push({ name, kind, value: header.value });
  }
  if (match.method !== undefined) headers.push({ name: ':method', kind: 'exact', value: match.method });
  const queryParams: QueryParamMatchIR[] = [];
  const seenParams = new Set<string>();
  for (const param of match.queryParams ?? []) {
    // Query parameter names are case-sensitive (the spec), unlike header names.
    if (seenParams.has(param.name)) continue;
    seenParams.add(param.name);
    const kind = param.type === 'RegularExpression' ? 'regex' : 'exact';
    if (kind === 'regex') {
      const error = regexError(param.value);
      if (error !== undefined) return { valid: false, error: `query parameter ${param.name}: ${error}` };
    }
    queryParams.push({ name: param.name, kind, value: param.value });
  }
  return { valid: true, match: { path, headers, queryParams, rankedPath: { type, value } } };
}

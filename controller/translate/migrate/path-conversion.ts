// An Ingress path -> the HTTPRoute path match that selects the same requests on this controller: Exact and Prefix
// as they are; on Ingresses read with the nginx layer an ImplementationSpecific path is an nginx character prefix,
// and every path of a use-regex / rewrite-target host is ingress-nginx's case-insensitive prefix regex, both as a
// RegularExpression match (RE2, whole path, as this controller and Envoy read it).
import type { HTTPIngressPath, HTTPPathMatch } from '../shared/kube-objects.js';
import { parsePath } from '../ingress/path-match.js';
import { parseRegexPath } from '../ingress/path-match-regex.js';

export type ConvertedPath = { valid: true; match: HTTPPathMatch; regex: boolean } | { valid: false; error: string };

/** RE2 syntax characters escaped, so the text matches itself. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

export function convertPath(path: HTTPIngressPath, nginx: boolean, regexHost: boolean): ConvertedPath {
  if (regexHost) {
    const parsed = parseRegexPath(path.path);
    if (!parsed.valid) return { valid: false, error: parsed.error };
    return { valid: true, match: { type: 'RegularExpression', value: parsed.match.regex }, regex: true };
  }
  const parsed = parsePath(path.path, path.pathType, nginx);
  if (!parsed.valid) return { valid: false, error: parsed.error };
  const match = parsed.match;
  switch (match.kind) {
    case 'exact':
      return { valid: true, match: { type: 'Exact', value: match.path }, regex: false };
    case 'prefix':
      return { valid: true, match: { type: 'PathPrefix', value: match.path }, regex: false };
    case 'character-prefix':
      return { valid: true, match: { type: 'RegularExpression', value: `${escapeRegex(match.path)}.*` }, regex: true };
    default:
      return { valid: false, error: `path kind ${match.kind} has no Gateway API match` };
  }
}

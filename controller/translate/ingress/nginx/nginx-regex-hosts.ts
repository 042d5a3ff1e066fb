// Which paths ingress-nginx matches as regular expressions. Its template writes EVERY location of a server (one
// host) as `location ~* "^<path>"` as soon as one location of that host, from any Ingress, has use-regex "true" or
// a rewrite-target other than its own path (template.go enforceRegexModifier / needsRewrite): the other Ingresses'
// Exact and Prefix paths then become case-insensitive character-prefix regexes too, and regex characters in them
// are operators (docs/user-guide/ingress-path-matching.md, "IMPORTANT NOTES"). The same happens here, among the
// Ingresses whose nginx annotations are honoured: an Ingress of a class without the nginx layer keeps its
// Ingress-spec paths even on such a host (it was not written for ingress-nginx).
import type { Ingress } from '../../shared/kube-objects.js';
import { ruleHost } from '../ingress-rules.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { parseGoBool } from './nginx-canary-values.js';

/**
 * The characters ingress-nginx's validator allows in rewrite-target (parser.RegexPathWithCapture); any other
 * value is dropped there ("defaulting to empty"): no rewrite, and no regex paths from it.
 */
export function isNginxRewriteTarget(target: string): boolean {
  return /^\/?[-._~a-zA-Z0-9/:$]*$/.test(target);
}

/** use-regex as ingress-nginx reads it (Go's strconv.ParseBool). */
export function nginxUseRegex(ingress: Ingress): boolean {
  const value = ingress.metadata.annotations?.[`${nginxAnnotationPrefix}use-regex`];
  return value !== undefined && parseGoBool(value) === true;
}

/** ingress-nginx's needsRewrite: a (valid) rewrite-target other than the location's own path. */
export function needsNginxRewrite(target: string | undefined, path: string | undefined): boolean {
  if (target === undefined || !isNginxRewriteTarget(target)) return false;
  return target !== '' && target !== (path === undefined || path === '' ? '/' : path);
}

/** Whether `ingress` makes the locations of rule `rule`'s host regexes in ingress-nginx. */
function enforcesRegex(ingress: Ingress, paths: readonly { path?: string }[]): boolean {
  if (paths.length === 0) return false;
  if (nginxUseRegex(ingress)) return true;
  const target = ingress.metadata.annotations?.[`${nginxAnnotationPrefix}rewrite-target`];
  return paths.some((p) => needsNginxRewrite(target, p.path));
}

/** The hosts (as collectRules names them, `*` for host-less rules) where ingress-nginx enforces regex paths. */
export function nginxRegexHosts(ingresses: readonly Ingress[], nginxEnabled: (ingress: Ingress) => boolean): Set<string> {
  const hosts = new Set<string>();
  for (const ingress of ingresses) {
    // The annotations first: most Ingresses have neither, and the class lookup costs more.
    const annotations = ingress.metadata.annotations;
    if (annotations?.[`${nginxAnnotationPrefix}use-regex`] === undefined && annotations?.[`${nginxAnnotationPrefix}rewrite-target`] === undefined) continue;
    if (!nginxEnabled(ingress)) continue;
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      // Invalid hosts are reported by collectRules.
      const host = ruleHost(rule, i, () => undefined);
      if (host !== undefined && enforcesRegex(ingress, rule.http?.paths ?? [])) hosts.add(host);
    });
  }
  return hosts;
}

/** Whether the paths of `ingress` on `host` are ingress-nginx regex paths (collectRules' question). */
export function nginxRegexPaths(ingresses: readonly Ingress[], nginxEnabled: (ingress: Ingress) => boolean): (ingress: Ingress, host: string) => boolean {
  const hosts = nginxRegexHosts(ingresses, nginxEnabled);
  if (hosts.size === 0) return () => false;
  const enabled = new Map<Ingress, boolean>();
  return (ingress, host) => {
    if (!hosts.has(host)) return false;
    let on = enabled.get(ingress);
    if (on === undefined) enabled.set(ingress, (on = nginxEnabled(ingress)));
    return on;
  };
}

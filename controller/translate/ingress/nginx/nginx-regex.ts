// ingress-nginx use-regex, rewrite-target with capture groups, and app-root (opt-in with --nginx-annotations).
//
// - use-regex "true", or any rewrite-target other than the path itself, makes every path of the host a regular
//   expression, as ingress-nginx writes them: `location ~* "^<path>"` (case-insensitive, anchored at the start
//   only), whatever the pathType and whichever Ingress of the host the path comes from (nginx-regex-hosts.ts).
//   Routes are ordered by path length, then path, as ingress-nginx orders its locations (path-match.ts).
// - rewrite-target with `$N`: nginx `rewrite "(?i)<path>" <target> break` replaces the whole path with the target,
//   `$N` being the path's capture groups (empty when the path has fewer); here an Envoy regex_rewrite of the
//   route's own regex with `\N`.
// - app-root: ingress-nginx's server-level `if ($uri = /) { return 302 $scheme://$http_host<app-root>; }`: on every
//   host the Ingress has rules for, exactly `/` redirects (302) to the app root, before any route is tried.
import { catchAllHost, type RedirectIR, type RedirectQueryIR, type RouteActionIR, type RouteIR, type VirtualHostIR } from '../../../../ir/index.js';
import type { IngressAnnotations } from '../annotations.js';
import { changedRoute, type RoutePass } from '../collected-routes.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { parseHost } from '../../shared/hostname.js';
import { type Ingress, refKey, refOf } from '../../shared/kube-objects.js';
import { captureGroupCount, parseRegexPath } from '../path-match-regex.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { parseGoBool } from './nginx-canary-values.js';
import { isNginxRewriteTarget } from './nginx-regex-hosts.js';
import { namespaceOf } from '../../shared/kinds.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

/** Names (after the prefix) this module reads besides rewrite-target, which nginx-annotations.ts lists. */
export const nginxRegexAnnotations = ['use-regex', 'app-root'] as const;

/** app-root: `/` redirects to a path (and query) on the same host. */
export type PathRedirectIR = RedirectIR & { path: { kind: 'replace'; path: string }; query: RedirectQueryIR };

/** What use-regex, rewrite-target (with capture groups) and app-root of one Ingress amount to. */
export interface NginxRegexSettings {
  /** rewrite-target with `$N`: the target as written and the highest group it uses. */
  captureRewrite?: { target: string; maxGroup: number };
  /** app-root: `/` on the Ingress's hosts redirects here. */
  appRoot?: PathRedirectIR;
}

/** Whether a rewrite-target uses capture groups (ingress-nginx then needs regex paths). */
export function usesCaptureGroups(target: string): boolean {
  return /\$\d/.test(target);
}

function report(ingress: Ingress, diagnostics: Diagnostic[], reason: string, message: string): void {
  diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message });
}

function invalid(ingress: Ingress, diagnostics: Diagnostic[], name: string, value: string, accepted: string, fallback: string): void {
  const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}...` : JSON.stringify(value);
  report(ingress, diagnostics, Reason.InvalidAnnotation, `annotation ${n(name)} has invalid value ${shown}; accepted values: ${accepted}; ${fallback}`);
}

/** A path as nginx `return`/`rewrite` accept it: printable ASCII from "/", no fragment, no backslash. */
const targetPath = /^\/[\x21-\x7e]{0,1023}$/;

function parseCaptureRewrite(ingress: Ingress, diagnostics: Diagnostic[], target: string): NginxRegexSettings['captureRewrite'] {
  const fallback = 'the path is sent unchanged';
  const value = target;
  if (!targetPath.test(value) || /[?#\\]/.test(value) || !isNginxRewriteTarget(value)) {
    invalid(ingress, diagnostics, 'rewrite-target', target, 'a path starting with "/" of letters, digits, "-._~/:" and $1..$9 for capture groups, e.g. "/$2"', fallback);
    return undefined;
  }
  // Only the path's capture groups: other nginx variables ($host, $arg_x, ...) have no equivalent in a path rewrite.
  const variable = /\$(?!\d)[A-Za-z_{]*/.exec(value);
  if (variable !== null) {
    invalid(ingress, diagnostics, 'rewrite-target', target, `only $1..$9 (capture groups of the path), not ${variable[0]}`, fallback);
    return undefined;
  }
  const groups = [...value.matchAll(/\$(\d)/g)].map((m) => Number(m[1]));
  const maxGroup = Math.max(...groups);
  if (groups.includes(0)) {
    invalid(ingress, diagnostics, 'rewrite-target', target, '$1..$9 ($0 is not a capture group in nginx)', fallback);
    return undefined;
  }
  // A group the path lacks is empty in nginx's rewrite; reported, as it is most likely a mistake.
  (ingress.spec?.rules ?? []).forEach((rule, i) => {
    (rule.http?.paths ?? []).forEach((path, j) => {
      const parsed = parseRegexPath(path.path);
      // An invalid path is reported where paths are read (InvalidPath).
      if (!parsed.valid) return;
      const has = captureGroupCount(parsed.match.path);
      if (has < maxGroup) {
        report(
          ingress,
          diagnostics,
          Reason.InvalidAnnotation,
          `annotation ${n('rewrite-target')} ${JSON.stringify(target)} uses $${maxGroup} but rule ${i} path ${j} ${JSON.stringify(parsed.match.path)} has ${has} capture group(s); the missing ones are empty for that path, as in nginx`,
        );
      }
    });
  });
  return { target: value, maxGroup };
}

/** app-root: a path (optionally with a query) on the same host; ingress-nginx refuses absolute URLs. */
function parseAppRoot(ingress: Ingress, diagnostics: Diagnostic[], raw: string): PathRedirectIR | undefined {
  const value = raw.trim();
  const accepted = 'a path starting with "/", optionally with "?query", e.g. "/app1"';
  const m = /^(\/(?!\/)[^?#\\]{0,1023})(?:\?([^#\\]{0,1023}))?$/.exec(value);
  if (m === null || !/^[\x21-\x7e]*$/.test(value) || m[1] === '/') {
    invalid(ingress, diagnostics, 'app-root', raw, `${accepted} (not "/" itself)`, '/ is served by the routes');
    return undefined;
  }
  // The request's query is dropped; the app-root's own, if any, is sent instead.
  const query: RedirectQueryIR = m[2] !== undefined && m[2] !== '' ? { kind: 'replace', query: m[2] } : { kind: 'drop' };
  return { kind: 'redirect', statusCode: 302, path: { kind: 'replace', path: m[1] as string }, query };
}

/** Reads use-regex, rewrite-target with capture groups and app-root; undefined when none of them is set. */
export function mapNginxRegex(ingress: Ingress, diagnostics: Diagnostic[]): NginxRegexSettings | undefined {
  const annotations = ingress.metadata.annotations ?? {};
  const useRegex = annotations[n('use-regex')];
  const target = annotations[n('rewrite-target')];
  const appRoot = annotations[n('app-root')];
  if (useRegex === undefined && appRoot === undefined && (target === undefined || !usesCaptureGroups(target))) return undefined;
  if (useRegex !== undefined && parseGoBool(useRegex) === undefined) {
    invalid(ingress, diagnostics, 'use-regex', useRegex, '"true", "false"', 'paths are not regular expressions');
  }
  const captures = target !== undefined && usesCaptureGroups(target);
  const settings: NginxRegexSettings = {};
  if (captures) {
    const rewrite = parseCaptureRewrite(ingress, diagnostics, target);
    if (rewrite !== undefined) settings.captureRewrite = rewrite;
  }
  if (appRoot !== undefined) {
    const redirect = parseAppRoot(ingress, diagnostics, appRoot);
    if (redirect !== undefined) settings.appRoot = redirect;
  }
  return settings;
}

/** An Ingress's parsed annotations, with what this module read (nginx-annotations.ts puts it there). */
export type WithNginxRegex = IngressAnnotations & { nginxRegex?: NginxRegexSettings };

/** `$N` -> RE2's `\N` for the groups the path has; nginx leaves a missing group empty. */
function substitutionFor(target: string, groups: number): string {
  return target.replace(/\$(\d)/g, (_, d: string) => (Number(d) <= groups ? `\\${d}` : ''));
}

/**
 * rewrite-target with capture groups: each regex route of such an Ingress rewrites the whole path with its own
 * regex (a new route), unless our rewrite-prefix already set a rewrite (ours win).
 */
export function nginxCaptureRewritePass(annotations: ReadonlyMap<string, WithNginxRegex>): RoutePass {
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward' || route.match.kind !== 'regex') return route;
    const rewrite = annotations.get(refKey(route.source))?.nginxRegex?.captureRewrite;
    if (rewrite === undefined || route.policy?.rewrite !== undefined) return route;
    const substitution = substitutionFor(rewrite.target, captureGroupCount(route.match.path));
    return changedRoute(route, { policy: { ...route.policy, rewrite: { kind: 'regex', pattern: route.match.regex, substitution } } });
  };
}

export function appRootRouteName(ingress: Ingress): string {
  const ref = refOf(ingress);
  return appRootRouteNameOf(ref.namespace, ref.name);
}

function appRootRouteNameOf(namespace: string, name: string): string {
  return `ingress/${namespace}/${name}/app-root`;
}

/** Whether `route` is the app-root redirect of its Ingress (nginx runs it before its https redirect). */
export function isAppRootRoute(route: RouteIR): boolean {
  return route.source !== undefined && route.action.kind === 'redirect' && route.name === appRootRouteNameOf(route.source.namespace, route.source.name);
}

/**
 * app-root: puts the redirect of `/` first on every virtual host the Ingress has rule routes on (nginx runs it
 * before choosing a location, so no path of any Ingress can take `/` from it). `ingresses` oldest first: when two
 * set app-root on one host, the older wins and the other gets RuleConflict. Returns the virtual hosts with those
 * hosts replaced by new ones (`virtualHosts` itself when no Ingress sets app-root).
 */
export function withNginxAppRoots(
  virtualHosts: ReadonlyMap<string, VirtualHostIR>,
  ingresses: readonly Ingress[],
  annotations: ReadonlyMap<Ingress, WithNginxRegex>,
  diagnostics: Diagnostic[],
): ReadonlyMap<string, VirtualHostIR> {
  const owners = new Map<string, Ingress>();
  let withAppRoots: Map<string, VirtualHostIR> | undefined;
  for (const ingress of ingresses) {
    const appRoot = annotations.get(ingress)?.nginxRegex?.appRoot;
    if (appRoot === undefined) continue;
    const ref = refOf(ingress);
    const hosts = new Set<string>();
    // forEach: rules refused by host ownership are holes (host-ownership.ts).
    (ingress.spec?.rules ?? []).forEach((rule) => {
      const parsed = rule.host === undefined || rule.host === '' ? { valid: true as const, host: catchAllHost } : parseHost(rule.host);
      if (parsed.valid) hosts.add(parsed.host);
    });
    for (const host of [...hosts].sort()) {
      const vhost = (withAppRoots ?? virtualHosts).get(host);
      // Only where the Ingress really serves a path (not a host all of whose paths were refused).
      if (vhost === undefined || !vhost.routes.some((r) => r.rulePath !== undefined && r.source !== undefined && refKey(r.source) === refKey(ref))) continue;
      const owner = owners.get(host);
      if (owner !== undefined) {
        report(
          ingress,
          diagnostics,
          Reason.RuleConflict,
          `annotation ${n('app-root')} ignored on host ${host}: Ingress ${namespaceOf(owner.metadata)}/${owner.metadata.name} is older and already sets it`,
        );
        continue;
      }
      owners.set(host, ingress);
      const redirect: RouteIR = { name: appRootRouteName(ingress), match: { kind: 'exact', path: '/' }, action: { ...appRoot }, source: ref };
      (withAppRoots ??= new Map(virtualHosts)).set(host, { ...vhost, routes: [redirect, ...vhost.routes] });
    }
  }
  return withAppRoots ?? virtualHosts;
}

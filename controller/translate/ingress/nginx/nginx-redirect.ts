// ingress-nginx redirects (internal/ingress/annotations/redirect, rootfs/etc/nginx/lua/lua_ingress.lua):
// permanent-redirect / temporal-redirect with their codes and relative-redirects (nginx `return CODE URL`, the URL
// as written), and the shape of the https redirect of ssl-redirect / force-ssl-redirect (the ConfigMap's
// http-redirect-code, 308 by default; no port; a trailing slash dropped unless preserve-trailing-slash).
import type { RedirectIR, RouteActionIR, RouteIR, VirtualHostIR } from '../../../../ir/index.js';
import { type HttpsRedirectIR, httpsRedirect, isHttpsRedirect, stripsTrailingSlash } from '../https-redirect.js';
import { isAppRootRoute } from './nginx-regex.js';
import { changedRoute, type RoutePass } from '../collected-routes.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refKey, refOf } from '../../shared/kube-objects.js';
import type { TranslateOptions } from '../../shared/options.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;


/** Names (after the prefix) this module reads. */
export const nginxRedirectAnnotations = [
  'permanent-redirect',
  'permanent-redirect-code',
  'temporal-redirect',
  'temporal-redirect-code',
  'relative-redirects',
  'preserve-trailing-slash',
] as const;

/** ingress-nginx's http-redirect-code default (its ConfigMap may set 301, 302, 307 or 308). */
export const defaultNginxHttpRedirectCode = 308;

/** What the redirect annotations of one Ingress read through the nginx layer amount to. */
export interface NginxRedirectSettings {
  /** permanent-redirect / temporal-redirect: every route of the Ingress answers with this. */
  /** permanent-redirect / temporal-redirect: what every route of the Ingress answers instead (nginxReturnUrl). */
  redirect?: RouteActionIR;
  /** preserve-trailing-slash "true": the https redirect keeps a trailing slash. */
  preserveTrailingSlash: boolean;
  /** ssl-redirect (ours or the nginx one, ours winning), default true; force-ssl-redirect, default false. */
  sslRedirect: boolean;
  forceSslRedirect: boolean;
}

/** The characters ingress-nginx's validator accepts in a redirect URL (parser.URLIsValidRegex). */
const urlCharacters = /^[-._~a-zA-Z0-9/:,?&=]*$/;

function report(ingress: Ingress, diagnostics: Diagnostic[], message: string): void {
  diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message });
}

/** nginx's boolean annotations: exactly "true" or "false" (strconv.ParseBool also takes 1, t, TRUE...). */
function readBoolean(ingress: Ingress, diagnostics: Diagnostic[], name: string): boolean {
  const value = ingress.metadata.annotations?.[n(name)];
  if (value === undefined) return false;
  if (/^(1|t|T|TRUE|true|True)$/.test(value)) return true;
  if (!/^(0|f|F|FALSE|false|False)$/.test(value)) report(ingress, diagnostics, `annotation ${n(name)} has invalid value ${JSON.stringify(value)}; accepted values: "true", "false"; it is ignored`);
  return false;
}

/**
 * A code annotation as ingress-nginx reads it (strconv.Atoi): undefined when absent, null when not a number (then
 * ingress-nginx drops the whole redirect), else the code, `fallback` outside [300, max].
 */
function readCode(ingress: Ingress, diagnostics: Diagnostic[], name: string, max: number, fallback: number): number | null | undefined {
  const value = ingress.metadata.annotations?.[n(name)];
  if (value === undefined) return undefined;
  if (!/^[+-]?\d{1,9}$/.test(value)) {
    report(ingress, diagnostics, `annotation ${n(name)} has invalid value ${JSON.stringify(value)}; accepted values: a number (300 to ${max}); the redirect is ignored, as ingress-nginx ignores it`);
    return null;
  }
  const code = Number(value);
  if (code < 300 || code > max) {
    report(ingress, diagnostics, `annotation ${n(name)} ${JSON.stringify(value)} is outside 300 to ${max}: ${fallback} is used, as in ingress-nginx`);
    return fallback;
  }
  return code;
}

function readUrl(ingress: Ingress, diagnostics: Diagnostic[], name: string): string | undefined {
  const value = ingress.metadata.annotations?.[n(name)];
  if (value === undefined || value === '') return undefined;
  if (!urlCharacters.test(value) || value.length > 2048) {
    report(ingress, diagnostics, `annotation ${n(name)} has invalid value ${JSON.stringify(value.slice(0, 100))}; accepted values: a URL of letters, digits and - . _ ~ / : , ? & = (as ingress-nginx validates it); it is ignored`);
    return undefined;
  }
  return value;
}

/**
 * permanent-redirect / temporal-redirect as ingress-nginx's redirect parser reads them: temporal first (its code
 * 300-307, else 302; the URL must be http(s)), then permanent (its code 300-308, else 301; any URL, a path too).
 */
function readUrlRedirect(ingress: Ingress, diagnostics: Diagnostic[], relative: boolean): RouteActionIR | undefined {
  const temporal = readUrl(ingress, diagnostics, 'temporal-redirect');
  const permanent = readUrl(ingress, diagnostics, 'permanent-redirect');
  const build = (location: string, statusCode: number): RouteActionIR => nginxReturnUrl(statusCode, location, relative);
  if (temporal !== undefined) {
    const code = readCode(ingress, diagnostics, 'temporal-redirect-code', 307, 302);
    if (code === null) return undefined;
    if (!/^https?:/.test(temporal)) {
      report(ingress, diagnostics, `annotation ${n('temporal-redirect')} ${JSON.stringify(temporal)} is not an http:// or https:// URL; no redirect is made, as in ingress-nginx`);
      return undefined;
    }
    if (permanent !== undefined) report(ingress, diagnostics, `annotation ${n('permanent-redirect')} ignored: ${n('temporal-redirect')} is set and takes precedence`);
    return build(temporal, code ?? 302);
  }
  const code = readCode(ingress, diagnostics, 'permanent-redirect-code', 308, 301);
  if (code === null || permanent === undefined) return undefined;
  return build(permanent, code ?? 301);
}

/** The Ingress's own redirect settings; sslRedirect and forceSslRedirect are filled in from the parsed annotations. */
export function readNginxRedirect(ingress: Ingress, diagnostics: Diagnostic[]): Omit<NginxRedirectSettings, 'sslRedirect' | 'forceSslRedirect'> {
  const relative = readBoolean(ingress, diagnostics, 'relative-redirects');
  const redirect = readUrlRedirect(ingress, diagnostics, relative);
  return { ...(redirect !== undefined ? { redirect } : {}), preserveTrailingSlash: readBoolean(ingress, diagnostics, 'preserve-trailing-slash') };
}

/** The https redirect ingress-nginx makes: http-redirect-code, no port unless the listener's is not 443. */
export function nginxHttpsRedirect(options: TranslateOptions, preserveTrailingSlash: boolean): HttpsRedirectIR {
  return httpsRedirect(options.nginxHttpRedirectCode ?? defaultNginxHttpRedirectCode, options.httpsRedirectPort, !preserveTrailingSlash);
}

/**
 * nginx `return CODE URL` (permanent-redirect, temporal-redirect): the Location header for 301, 302, 303, 307 and 308,
 * the body for other codes (300-306), as nginx sends them. A location starting with "/" is made absolute on the
 * request's scheme and host (nginx absolute_redirect: a redirect to that path) unless `relative`
 * (relative-redirects); the request's query is never added.
 */
export function nginxReturnUrl(statusCode: number, location: string, relative: boolean): RouteActionIR {
  if (!isRedirectCode(statusCode)) return { kind: 'direct', status: statusCode, body: location };
  if (location.startsWith('/') && !relative) {
    const at = location.indexOf('?');
    const path = at < 0 ? location : location.slice(0, at);
    return { kind: 'redirect', statusCode, path: { kind: 'replace', path }, query: at < 0 ? { kind: 'drop' } : { kind: 'replace', query: location.slice(at + 1) } };
  }
  return { kind: 'direct', status: statusCode, headers: [{ name: 'location', value: location }] };
}

function isRedirectCode(code: number): code is RedirectIR['statusCode'] {
  return code === 301 || code === 302 || code === 303 || code === 307 || code === 308;
}

/**
 * The plain-HTTP virtual host of a host with ingress-nginx's https redirects where the Ingresses behind it are read
 * through the nginx layer (`nginxRedirects`, by Ingress key). `plain` is what the host would otherwise serve on
 * plain HTTP: `routes` route for route (redirected, served or denied), or the single redirect of a TLS host.
 * As in ingress-nginx the decision is per location (lua_ingress.lua): a route redirects when its Ingress has
 * force-ssl-redirect, or the host has a certificate (`hasTls`) and its Ingress keeps ssl-redirect on; the host's
 * fallback follows the oldest Ingress of the host (ingress-nginx gives the server's root location its annotations);
 * app-root answers first (a server-level rewrite). Routes of Ingresses not read through the layer keep ours.
 */
export function withNginxHttpsRedirects(
  plain: VirtualHostIR,
  routes: readonly RouteIR[] | undefined,
  contributors: readonly Ingress[],
  hasTls: boolean,
  nginxRedirects: ReadonlyMap<string, NginxRedirectSettings>,
  options: TranslateOptions,
): VirtualHostIR {
  const oldest = contributors[0] === undefined ? undefined : nginxRedirects.get(refKey(refOf(contributors[0])));
  if (!contributors.some((ingress) => nginxRedirects.has(refKey(refOf(ingress))))) return plain;
  /** The nginx treatment of a route: a redirect, 'serve', or undefined when its Ingress is not read by the layer. */
  const decide = (route: RouteIR | undefined): HttpsRedirectIR | 'serve' | undefined => {
    const settings = route?.source === undefined ? oldest : nginxRedirects.get(refKey(route.source));
    if (settings === undefined) return undefined;
    if (route !== undefined && isAppRootRoute(route)) return 'serve'; // app-root
    // no-tls-redirect-locations (the ConfigMap): a location whose path starts with one is served on plain HTTP.
    if (route !== undefined && options.nginxNoTlsRedirectLocations?.some((location) => route.match.path.startsWith(location)) === true) return 'serve';
    return settings.forceSslRedirect || (hasTls && settings.sslRedirect) ? nginxHttpsRedirect(options, settings.preserveTrailingSlash) : 'serve';
  };
  if (routes === undefined) {
    // A TLS host without rules: its single redirect.
    const action = decide(undefined);
    return action === undefined || action === 'serve' ? plain : withRootRedirect(plain, plain.routes.map((r) => ({ ...r, match: { ...r.match }, action })), options);
  }
  const single = plain.routes.length !== routes.length;
  const built = routes.map((route, i): RouteIR => {
    const ours = (single ? plain.routes[0] : plain.routes[i]) as RouteIR;
    const treatment = decide(route);
    const redirect = (action: RouteActionIR): RouteIR => ({
      name: `${route.name}/https-redirect`,
      match: { ...route.match },
      ...(route.headers === undefined ? {} : { headers: route.headers.map((h) => ({ ...h })) }),
      action: { ...action },
      // nginx's CORS block runs before its https redirect: the redirect carries the CORS headers (nginx-cors.ts).
      ...(route.policy?.corsResponse === undefined ? {} : { policy: { corsResponse: structuredClone(route.policy.corsResponse) } }),
    });
    if (treatment === undefined) return isHttpsRedirect(ours.action) && single ? redirect(ours.action) : ours;
    if (treatment === 'serve') return isHttpsRedirect(ours.action) ? route : ours;
    // https-only (403) wins over a redirect, as in our own layer.
    return ours.action.kind === 'direct' && !single ? ours : redirect(treatment);
  });
  return withRootRedirect(plain, built, options);
}

/**
 * ingress-nginx redirects `/` to `https://host`, without a path; Envoy's redirect always sends one, so a route for
 * exactly `/` (no query: `/?q` keeps its slash in nginx too) answers with that Location, before the route that
 * redirects `/` with the trailing slash dropped. The host is the virtual host's own name (the Host header without
 * its port, as nginx takes it); for a wildcard or the catch-all, the request's Host as sent.
 */
function withRootRedirect(plain: VirtualHostIR, redirects: RouteIR[], options: TranslateOptions): VirtualHostIR {
  // nginx drops the last character of the request URI if it is "/": with a query, the path keeps its slash.
  const routes = redirects.flatMap((route): RouteIR[] => {
    if (!stripsTrailingSlash(route.action)) return [route];
    const { path: _, ...kept } = route.action;
    const withQuery: RouteIR = {
      name: `${route.name}/query`,
      match: { ...route.match },
      headers: [...(route.headers ?? []).map((h) => ({ ...h })), { name: ':path', kind: 'regex', value: '[^?]*\\?.*' }],
      action: kept,
      ...(route.policy === undefined ? {} : { policy: structuredClone(route.policy) }),
    };
    return [withQuery, route];
  });
  const vhost = { name: plain.name, hostnames: [...plain.hostnames], routes };
  const index = routes.findIndex((r) => (r.match.kind === 'exact' || r.match.kind === 'prefix') && r.match.path === '/' && stripsTrailingSlash(r.action));
  const root = routes[index];
  if (root === undefined || !stripsTrailingSlash(root.action)) return vhost;
  const host = plain.name.includes('*') ? '%REQ(:authority)%' : plain.name;
  const port = options.httpsRedirectPort === 443 ? '' : `:${options.httpsRedirectPort}`;
  const redirect: RouteIR = {
    name: `${root.name}/root`,
    match: { kind: 'exact', path: '/' },
    headers: [{ name: ':path', kind: 'exact', value: '/' }],
    action: nginxReturnUrl(root.action.statusCode, `https://${host}${port}`, false),
    ...(root.policy === undefined ? {} : { policy: structuredClone(root.policy) }),
  };
  return { ...vhost, routes: [...routes.slice(0, index), redirect, ...routes.slice(index)] };
}

/**
 * permanent-redirect / temporal-redirect: every route of such an Ingress (forwarding or failing) answers with the
 * redirect instead (a new route, without the policy). Undefined when no Ingress has such a redirect.
 */
export function nginxUrlRedirectPass(nginxRedirects: ReadonlyMap<string, NginxRedirectSettings>): RoutePass | undefined {
  if (![...nginxRedirects.values()].some((settings) => settings.redirect !== undefined)) return undefined;
  return (route) => {
    if (route.source === undefined) return route;
    const redirect = nginxRedirects.get(refKey(route.source))?.redirect;
    if (redirect === undefined) return route;
    return changedRoute(route, { action: { ...redirect }, policy: undefined });
  };
}

/** The redirect settings of the Ingresses read through the nginx layer, by Ingress key. */
export function nginxRedirectsByIngress(
  annotations: ReadonlyMap<string, { nginxRedirects?: Omit<NginxRedirectSettings, 'sslRedirect' | 'forceSslRedirect'>; sslRedirect: boolean; forceSslRedirect: boolean }>,
): Map<string, NginxRedirectSettings> {
  const settings = new Map<string, NginxRedirectSettings>();
  for (const [key, parsed] of annotations) {
    if (parsed.nginxRedirects !== undefined) settings.set(key, { ...parsed.nginxRedirects, sslRedirect: parsed.sslRedirect, forceSslRedirect: parsed.forceSslRedirect });
  }
  return settings;
}

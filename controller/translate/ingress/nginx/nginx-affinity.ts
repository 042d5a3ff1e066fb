// ingress-nginx session affinity (affinity: cookie and the session-cookie-* family), read as ingress-nginx's
// sessionaffinity parser reads it and served as its balancer/sticky.lua serves it (envoy/affinity-cookie.ts): the
// cookie `NAME=KEY|BACKEND` with Expires, Max-Age, Domain, Path (the location's path unless session-cookie-path),
// Secure (session-cookie-secure "true", or the connection is TLS), HttpOnly and SameSite (left out for the user
// agents that reject None with session-cookie-conditional-samesite-none). BACKEND is ingress-nginx's own backend key
// (md5(md5(name) .. name) of `namespace-service-port`), so a cookie ingress-nginx made keeps its side of a canary.
import type { AffinityCookieIR, ClusterIR, PathMatchIR } from '../../../../ir/index.js';
import { changedRoute, type RoutePass } from '../collected-routes.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refKey, refOf } from '../../shared/kube-objects.js';
import { nginxBackendKey } from '../../shared/nginx-backend-key.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { parseGoBool } from './nginx-canary-values.js';


/** Names (after the prefix) this module reads. */
export const nginxAffinityAnnotations = [
  'affinity',
  'affinity-mode',
  'session-cookie-name',
  'session-cookie-path',
  'session-cookie-expires',
  'session-cookie-max-age',
  'session-cookie-domain',
  'session-cookie-samesite',
  'session-cookie-conditional-samesite-none',
  'session-cookie-secure',
] as const;

/** The cookie settings of an Ingress; the Path (when not given) and the backends are per route. */
export type NginxAffinitySettings = Omit<AffinityCookieIR, 'path' | 'backends'> & { path?: string };

/** Parsed annotations of an Ingress with cookie affinity. */
export interface WithNginxAffinity {
  nginxAffinity?: NginxAffinitySettings;
}

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;
const defaultCookieName = 'INGRESSCOOKIE';

function annotation(ingress: Ingress, name: string): string | undefined {
  return ingress.metadata.annotations?.[n(name)];
}

/** Reads affinity and session-cookie-*; a bad value is reported and left out, as ingress-nginx does. */
export function readNginxAffinity(ingress: Ingress, diagnostics: Diagnostic[]): NginxAffinitySettings | undefined {
  const report = (message: string): void => {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message });
  };
  const invalid = (name: string, value: string, accepted: string, effect: string): void => {
    const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}...` : JSON.stringify(value);
    report(`annotation ${n(name)} has invalid value ${shown}; accepted values: ${accepted}; ${effect}`);
  };
  const affinity = annotation(ingress, 'affinity');
  const family = nginxAffinityAnnotations.filter((name) => name !== 'affinity' && annotation(ingress, name) !== undefined);
  if (affinity === undefined || affinity.trim() !== 'cookie') {
    if (affinity !== undefined) invalid('affinity', affinity, '"cookie"', 'no session affinity');
    for (const name of family) report(`annotation ${n(name)} ignored: it needs ${n('affinity')} "cookie"`);
    return undefined;
  }
  const nameText = annotation(ingress, 'session-cookie-name');
  let name = defaultCookieName;
  if (nameText !== undefined) {
    // ingress-nginx's BasicCharsRegex (spaces removed), and a cookie name.
    const trimmed = nameText.replaceAll(' ', '');
    if (/^[A-Za-z0-9\-._~:]{1,256}$/.test(trimmed)) name = trimmed;
    else invalid('session-cookie-name', nameText, 'a cookie name (letters, digits, "-", ".", "_", "~")', `using ${defaultCookieName}`);
  }
  const settings: NginxAffinitySettings = { name };
  const path = annotation(ingress, 'session-cookie-path');
  if (path !== undefined) {
    if (/^\/[A-Za-z0-9\-._~/:?&=,]{0,1023}$/.test(path.replaceAll(' ', ''))) settings.path = path.replaceAll(' ', '');
    else invalid('session-cookie-path', path, 'a path starting with "/"', 'the Path is the Ingress path');
  }
  const seconds = (key: 'session-cookie-expires' | 'session-cookie-max-age'): number | undefined => {
    const text = annotation(ingress, key);
    if (text === undefined) return undefined;
    if (/^\d{1,10}$/.test(text.trim()) && Number(text.trim()) < 2 ** 31) return Number(text.trim());
    invalid(key, text, 'a whole number of seconds', 'the attribute is left out');
    return undefined;
  };
  const expires = seconds('session-cookie-expires');
  if (expires !== undefined) settings.expiresSeconds = expires;
  const maxAge = seconds('session-cookie-max-age');
  if (maxAge !== undefined) settings.maxAgeSeconds = maxAge;
  const domain = annotation(ingress, 'session-cookie-domain');
  if (domain !== undefined) {
    if (/^[A-Za-z0-9\-._~]{1,253}$/.test(domain.replaceAll(' ', ''))) settings.domain = domain.replaceAll(' ', '');
    else invalid('session-cookie-domain', domain, 'a domain name', 'the cookie has no Domain');
  }
  const sameSite = annotation(ingress, 'session-cookie-samesite');
  if (sameSite !== undefined) {
    // Checked case-insensitively and sent as written, as ingress-nginx does.
    if (['none', 'lax', 'strict'].includes(sameSite.trim().toLowerCase())) settings.sameSite = sameSite.trim();
    else invalid('session-cookie-samesite', sameSite, '"None", "Lax" or "Strict"', 'the cookie has no SameSite');
  }
  const flag = (key: 'session-cookie-conditional-samesite-none' | 'session-cookie-secure'): boolean => {
    const text = annotation(ingress, key);
    if (text === undefined) return false;
    const value = parseGoBool(text);
    if (value === undefined) invalid(key, text, '"true", "false"', 'using "false"');
    return value === true;
  };
  if (flag('session-cookie-conditional-samesite-none')) settings.conditionalSameSiteNone = true;
  // "false" is the default: Secure only over TLS.
  if (flag('session-cookie-secure')) settings.secure = true;
  const mode = annotation(ingress, 'affinity-mode');
  if (mode !== undefined && !['balanced', 'persistent'].includes(mode.trim())) invalid('affinity-mode', mode, '"balanced", "persistent"', 'using "balanced"');
  if (mode?.trim() === 'persistent') settings.persistent = true;
  return settings;
}

/** The Path nginx gives the cookie without session-cookie-path: the location's path, as written. */
function locationPath(match: PathMatchIR): string {
  return match.path;
}

/**
 * Puts the affinity cookie on each forwarding route of an Ingress with cookie affinity (after its policy and
 * cluster are set): that route's cluster is the only backend until a canary joins (nginx-canary.ts).
 */
export function nginxAffinityPass(annotations: ReadonlyMap<string, unknown>, clusters: ReadonlyMap<string, ClusterIR>): RoutePass {
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward') return route;
    const settings = (annotations.get(refKey(route.source)) as WithNginxAffinity | undefined)?.nginxAffinity;
    const cluster = clusters.get(route.action.cluster);
    if (settings === undefined || cluster === undefined) return route;
    const cookie: AffinityCookieIR = { ...settings, path: settings.path ?? locationPath(route.match), backends: [{ cluster: cluster.name, key: nginxBackendKey(cluster.service) }] };
    return changedRoute(route, { policy: { ...route.policy, affinityCookie: cookie } });
  };
}

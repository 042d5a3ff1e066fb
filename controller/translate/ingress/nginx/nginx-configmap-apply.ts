// What the ingress-nginx ConfigMap (nginx-configmap.ts) does to the Ingresses of the nginx layer: its values are the
// defaults of their nginx annotations (an Ingress's own annotation wins, as in ingress-nginx), and their TLS hosts
// send Strict-Transport-Security over HTTPS. Pure; the Ingresses handed back are copies.
import type { ListenerSettingsIR } from '../../../../ir/index.js';
import { changedRoute, type RoutePass } from '../collected-routes.js';
import { type Ingress, refKey, refOf } from '../../shared/kube-objects.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { isNginxCanary } from './nginx-canary.js';
import { hstsHeaderValue, type NginxConfigMapSettings, nginxConfigMapAnnotationDefaults } from './nginx-configmap.js';

/**
 * `ingresses` with the ConfigMap's defaults under their annotations, for those whose nginx annotations are read
 * (`enabled`); canaries take every setting from their main Ingress and are left as they are.
 */
export function withNginxConfigMapDefaults(ingresses: readonly Ingress[], enabled: (ingress: Ingress) => boolean, settings: NginxConfigMapSettings): Ingress[] {
  // ingress-nginx's custom error pages go to its default backend: here a spec.defaultBackend, or the Ingress's own.
  const globalDefaultBackend = ingresses.some((ingress) => ingress.spec?.defaultBackend !== undefined);
  return ingresses.map((ingress) => {
    if (!enabled(ingress) || isNginxCanary(ingress)) return ingress;
    const own = ingress.metadata.annotations ?? {};
    const hashes = own[`${nginxAnnotationPrefix}affinity`] !== undefined || own[`${nginxAnnotationPrefix}upstream-hash-by`] !== undefined;
    const defaults = nginxConfigMapAnnotationDefaults(settings, globalDefaultBackend || own[`${nginxAnnotationPrefix}default-backend`] !== undefined, hashes);
    return { ...ingress, metadata: { ...ingress.metadata, annotations: { ...defaults, ...own } } };
  });
}

const hstsHeader = 'Strict-Transport-Security';

/**
 * ingress-nginx's hsts: every HTTPS response of a host with a certificate carries Strict-Transport-Security,
 * replacing the backend's (lua_ingress.lua header()). Here on the forwarding routes of the nginx-layer Ingresses
 * (`enabled`, by refKey) of each TLS host (new routes). Where a TLS host also serves plain HTTP (ssl-redirect
 * "false") the plain-HTTP answers carry it too (browsers ignore it there, RFC 6797 8.1).
 */
export function nginxHstsPass(tlsHosts: ReadonlySet<string>, enabled: ReadonlySet<string>, settings: NginxConfigMapSettings): RoutePass | undefined {
  if (settings.hsts === undefined) return undefined;
  const header = { name: hstsHeader, value: hstsHeaderValue(settings.hsts) };
  return (route, host) => {
    if (host === undefined || !tlsHosts.has(host)) return route;
    if (route.source === undefined || route.action.kind !== 'forward' || !enabled.has(refKey(route.source))) return route;
    const policy = route.policy ?? {};
    const responseHeaders = policy.responseHeaders ?? { set: [], remove: [] };
    // An Ingress's own response-headers-set of the same header wins.
    if (responseHeaders.set.some((h) => h.name.toLowerCase() === hstsHeader.toLowerCase())) return route;
    return changedRoute(route, { policy: { ...policy, responseHeaders: { set: [...responseHeaders.set, header], remove: responseHeaders.remove } } });
  };
}

/** refKeys of the Ingresses whose nginx annotations are read. */
export function enabledRefs(ingresses: readonly Ingress[], enabled: (ingress: Ingress) => boolean): Set<string> {
  return new Set(ingresses.filter(enabled).map((ingress) => refKey(refOf(ingress))));
}

/**
 * ingress-nginx's use-gzip (http-level gzip in nginx.conf): the forwarding routes of the nginx-layer Ingresses
 * (`enabled`, by refKey) compress their answers (new routes).
 */
export function nginxGzipPass(enabled: ReadonlySet<string>, settings: NginxConfigMapSettings): RoutePass | undefined {
  const gzip = settings.gzip;
  if (gzip === undefined) return undefined;
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward' || !enabled.has(refKey(route.source))) return route;
    return changedRoute(route, { policy: { ...route.policy, compression: { level: gzip.level, minLength: gzip.minLength, contentTypes: [...gzip.contentTypes] } } });
  };
}

/**
 * ingress-nginx's server-tokens "false" (its default): nginx clears the Server header of every answer
 * (more_clear_headers Server). Here the listeners stop writing Envoy's own (ListenerSettingsIR
 * serverHeaderPassThrough, for every Ingress: the connection manager is shared: nginxServerTokensOff) and the
 * forwarding routes of the nginx-layer Ingresses remove the backend's (new routes). "true": Envoy's `Server: envoy`.
 */
export function nginxServerTokensPass(enabled: ReadonlySet<string>, settings: NginxConfigMapSettings): RoutePass | undefined {
  if (settings.serverTokens) return undefined;
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward' || !enabled.has(refKey(route.source))) return route;
    const policy = route.policy ?? {};
    const responseHeaders = policy.responseHeaders ?? { set: [], remove: [] };
    if (responseHeaders.remove.includes('server') || responseHeaders.set.some((h) => h.name.toLowerCase() === 'server')) return route;
    return changedRoute(route, { policy: { ...policy, responseHeaders: { set: responseHeaders.set, remove: [...responseHeaders.remove, 'server'] } } });
  };
}

/**
 * ingress-nginx's use-forwarded-headers "true": the client (a proxy in front) is believed. The listeners trust one
 * hop (ListenerSettingsIR trustForwardedHeaders: X-Forwarded-For gives the client address, X-Forwarded-Proto the
 * scheme, for every Ingress: the connection manager is shared), and the forwarding routes of the nginx-layer
 * Ingresses keep a client's X-Forwarded-Host and send it as the Host (nginx's $best_http_host), unless
 * upstream-vhost sets the Host (new routes).
 */
export function nginxForwardedHeadersPass(enabled: ReadonlySet<string>, settings: NginxConfigMapSettings): RoutePass | undefined {
  if (!settings.useForwardedHeaders) return undefined;
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward' || !enabled.has(refKey(route.source))) return route;
    const policy = { ...route.policy, forwardedHost: true, forwardedHostFromClient: true };
    if (policy.hostRewrite === undefined && policy.hostRewriteFromHeader === undefined) policy.hostRewriteFromHeader = 'x-forwarded-host';
    return changedRoute(route, { policy });
  };
}

/** The connection manager settings the ConfigMap decides (both listeners, every Ingress), if any. */
export function nginxConfigMapListener(settings: NginxConfigMapSettings): ListenerSettingsIR | undefined {
  const serverHeaderPassThrough = !settings.serverTokens;
  const trustForwardedHeaders = settings.useForwardedHeaders;
  if (!serverHeaderPassThrough && !trustForwardedHeaders) return undefined;
  return { ...(serverHeaderPassThrough ? { serverHeaderPassThrough } : {}), ...(trustForwardedHeaders ? { trustForwardedHeaders } : {}) };
}

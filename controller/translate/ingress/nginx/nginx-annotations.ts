// Compatibility layer for ingress-nginx users (opt-in: TranslateOptions.nginxAnnotations, --nginx-annotations).
// Each `nginx.ingress.kubernetes.io/*` annotation we support is turned into the equivalent of our own annotations
// and read by the same parser, so it fills the same IR with the same validation. When an Ingress sets both ours
// and the nginx one for the same setting, ours wins. Snippets are refused (NginxSnippetRefused); every other
// nginx annotation we do not map gets UnsupportedNginxAnnotation. Neither ever breaks the rest of the Ingress.
import type { CookieRewriteIR, CorsResponseIR, PathRewriteIR, RetryPolicyIR } from '../../../../ir/index.js';
import { Annotation, type IngressAnnotations, parseAnnotations } from '../annotations.js';
import { parseCidrList, parseHeaderName, splitList } from '../annotation-values.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refOf } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationCatalog, nginxAnnotationPrefix, nginxCatalogEntry } from './catalog.js';
import { isNginxRewriteTarget } from './nginx-regex-hosts.js';
import { mapNginxRegex, type NginxRegexSettings, nginxRegexAnnotations, usesCaptureGroups } from './nginx-regex.js';
import { checkNginxEdgeValues, nginxEdgeAnnotations } from './nginx-edge.js';
import { type NginxAuthSettings, type NginxLayerOptions, nginxAuthAnnotations, readNginxAuth, type WithNginxAuth } from './nginx-auth.js';
import { isNginxCanary, nginxCanaryAnnotations, readNginxCanary, reportCanaryAnnotationsOfMain } from './nginx-canary.js';
import { type NginxRedirectSettings, nginxRedirectAnnotations, readNginxRedirect } from './nginx-redirect.js';
import { type NginxServerNames, nginxServerNameAnnotations, readNginxServerNames } from './nginx-server-names.js';
import { nginxCorsAnnotations, readNginxCors } from './nginx-cors.js';
import { nginxProxyCookieAnnotations, readNginxProxyCookie } from './nginx-proxy-cookie.js';
import { applyNginxLimits, nginxLimitAnnotations, type NginxLimits, readNginxLimits } from './nginx-limits.js';
import { nginxNextUpstreamAnnotations, readNginxNextUpstream } from './nginx-next-upstream.js';
import { type NginxMirrorSettings, type WithNginxMirror, nginxMirrorAnnotations, readNginxMirror } from './nginx-mirror.js';
import { nginxServiceUpstreamAnnotations, readNginxServiceUpstream, type WithNginxServiceUpstream } from './nginx-service-upstream.js';
import { type NginxBalancing, nginxBalancingAnnotations, readNginxBalancing } from './nginx-balancing.js';
import { nginxAuthTlsAnnotations, readNginxAuthTls, type NginxAuthTlsSettings, type WithNginxAuthTls } from './nginx-auth-tls.js';
import { nginxProxySslAnnotations, readNginxProxySsl, type NginxProxySslSettings, type WithNginxProxySsl } from './nginx-proxy-ssl.js';
import { nginxAffinityAnnotations, type NginxAffinitySettings, readNginxAffinity, type WithNginxAffinity } from './nginx-affinity.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;
/** Go's strconv.ParseBool. */
const goBool = (v: string): boolean | undefined => (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v) ? true : ['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v) ? false : undefined);

/** What the nginx annotations of one Ingress amount to. */
export interface NginxMapping {
  /** Our annotations (full keys) with the values the nginx ones mean. */
  own: Record<string, string>;
  /** rewrite-target: ingress-nginx replaces the whole path (nginx `rewrite`), which our rewrite-prefix cannot say. */
  rewrite?: PathRewriteIR;
  /** upstream-vhost: the Host header sent to the backend (we have no annotation of our own for it). */
  hostRewrite?: string;
  /** permanent-redirect / temporal-redirect, preserve-trailing-slash (nginx-redirect.ts). */
  redirects?: Omit<NginxRedirectSettings, 'sslRedirect' | 'forceSslRedirect'>;
  /** server-alias, from-to-www-redirect (nginx-server-names.ts). */
  serverNames?: NginxServerNames;
  /** use-regex, rewrite-target with capture groups, app-root (nginx-regex.ts). */
  regex?: NginxRegexSettings;
  /** auth-type basic / auth-url (nginx-auth.ts): resolved against Secrets and Services once the IR is built. */
  auth?: NginxAuthSettings;
  /** enable-cors and cors-* (nginx-cors.ts). */
  cors?: CorsResponseIR;
  /** enable-access-log "false": the Ingress's requests are not logged. */
  accessLogOff?: true;
  /** proxy-cookie-domain / proxy-cookie-path (nginx-proxy-cookie.ts). */
  cookieRewrite?: CookieRewriteIR;
  /** limit-*, denylist-source-range, proxy-connect-timeout (nginx-limits.ts). */
  limits?: NginxLimits;
  /** affinity cookie and session-cookie-* (nginx-affinity.ts). */
  affinity?: NginxAffinitySettings;
  /** upstream-hash-by, load-balance (nginx-balancing.ts). */
  balancing?: NginxBalancing;
  /** proxy-next-upstream, proxy-next-upstream-tries (nginx-next-upstream.ts). */
  retry?: RetryPolicyIR;
  /** service-upstream (nginx-service-upstream.ts). */
  serviceUpstream?: true;
  /** mirror-target, mirror-host, mirror-request-body (nginx-mirror.ts). */
  mirror?: NginxMirrorSettings;
  /** auth-tls-* (nginx-auth-tls.ts): resolved per host once the IR is built. */
  authTls?: NginxAuthTlsSettings;
  /** proxy-ssl-* (nginx-proxy-ssl.ts): resolved per route's cluster. */
  proxySsl?: NginxProxySslSettings;
}

/** Our annotations plus what only the nginx layer sets. */
export interface NginxIngressAnnotations extends IngressAnnotations, WithNginxAuth {
  /** Set on every Ingress read through the nginx layer (its https redirects are ingress-nginx's). */
  nginxRedirects?: Omit<NginxRedirectSettings, 'sslRedirect' | 'forceSslRedirect'>;
  nginxRegex?: NginxRegexSettings;
}

/** Names (after the prefix) this module reads; every supported catalog entry must be one of them. */
export const mappedNginxAnnotations: ReadonlySet<string> = new Set([
  'ssl-redirect',
  'force-ssl-redirect',
  'backend-protocol',
  'proxy-body-size',
  'proxy-read-timeout',
  'proxy-send-timeout',
  'whitelist-source-range',
  'allowlist-source-range',
  ...nginxCorsAnnotations,
  ...nginxProxyCookieAnnotations,
  ...nginxBalancingAnnotations,
  ...nginxNextUpstreamAnnotations,
  ...nginxServiceUpstreamAnnotations,
  ...nginxMirrorAnnotations,
  'rewrite-target',
  'x-forwarded-prefix',
  'connection-proxy-header',
  'enable-access-log',
  'upstream-vhost',
  ...nginxRedirectAnnotations,
  ...nginxServerNameAnnotations,
  ...nginxRegexAnnotations,
  ...nginxEdgeAnnotations,
  ...nginxAuthAnnotations,
  ...nginxAuthTlsAnnotations,
  ...nginxProxySslAnnotations,
  ...nginxCanaryAnnotations,
  ...nginxLimitAnnotations,
  ...nginxAffinityAnnotations,
  // Read from a canary Ingress (nginx-canary.ts); on a main Ingress it means nothing, as in ingress-nginx.
  'affinity-canary-behavior',
]);

const backendProtocols: Record<string, string> = { HTTP: 'http', HTTPS: 'https', GRPC: 'h2c', GRPCS: 'h2', H2C: 'h2c' };

class NginxReader {
  readonly own: Record<string, string> = {};
  constructor(
    private readonly ingress: Ingress,
    private readonly diagnostics: Diagnostic[],
  ) {}

  raw(name: string): string | undefined {
    return this.ingress.metadata.annotations?.[n(name)];
  }

  report(reason: string, message: string): void {
    this.diagnostics.push({ object: refOf(this.ingress), severity: 'Warning', reason, message });
  }

  invalid(name: string, value: string, accepted: string): void {
    const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}...` : JSON.stringify(value);
    this.report(Reason.InvalidAnnotation, `annotation ${n(name)} has invalid value ${shown}; accepted values: ${accepted}; it is ignored`);
  }

  /** Sets our annotation from the nginx one when the value converts; reports it otherwise. */
  map(name: string, ownKey: string, convert: (value: string) => string | undefined, accepted: string): void {
    const value = this.raw(name);
    if (value === undefined) return;
    const converted = convert(value);
    if (converted === undefined) this.invalid(name, value, accepted);
    else this.own[ownKey] = converted;
  }
}

const booleanText = (v: string): string | undefined => (v.trim() === 'true' || v.trim() === 'false' ? v.trim() : undefined);
/** nginx seconds: a whole number (ingress-nginx reads these annotations as integers). */
const seconds = (v: string): number | undefined => (/^\d{1,7}$/.test(v.trim()) ? Number(v.trim()) : undefined);



function mapRewrite(r: NginxReader): PathRewriteIR | undefined {
  const target = r.raw('rewrite-target');
  if (target === undefined) return undefined;
  // Capture groups need regex paths: nginx-regex.ts reads such a target.
  if (usesCaptureGroups(target)) return undefined;
  if (!/^\/[^\s?#\\\x00-\x1f\x7f]{0,1023}$/.test(target) || !isNginxRewriteTarget(target)) {
    r.invalid('rewrite-target', target, 'a path starting with "/" of letters, digits and "-._~/:"');
    return undefined;
  }
  // nginx `rewrite` replaces the whole URI with the target once the location matched; the query string is kept.
  return { kind: 'regex', pattern: '^.*$', substitution: target };
}

/** Reads the nginx annotations of one Ingress, reporting refused, unsupported and invalid ones. */
export function mapNginxAnnotations(ingress: Ingress, diagnostics: Diagnostic[], layer: NginxLayerOptions = {}): NginxMapping {
  // A canary's own settings are only its canary-* ones (nginx-canary.ts); the rest are the main Ingress's.
  if (isNginxCanary(ingress)) {
    readNginxCanary(ingress, diagnostics);
    return { own: {} };
  }
  reportCanaryAnnotationsOfMain(ingress, diagnostics);
  const r = new NginxReader(ingress, diagnostics);
  for (const key of Object.keys(ingress.metadata.annotations ?? {}).sort()) {
    const entry = nginxCatalogEntry(key);
    if (entry === undefined) continue;
    if (entry.status === 'refused') {
      r.report(Reason.NginxSnippetRefused, `annotation ${key} is refused: ${entry.note ?? 'no safe equivalent'}`);
    } else if (entry.status === 'unsupported' && !mappedNginxAnnotations.has(key.slice(nginxAnnotationPrefix.length))) {
      r.report(Reason.UnsupportedNginxAnnotation, `annotation ${key} is not supported and is ignored: ${entry.note ?? ''}`.trimEnd());
    }
  }
  checkNginxEdgeValues(ingress, (name, value, accepted) => r.invalid(name, value, accepted));
  r.map('ssl-redirect', Annotation.sslRedirect, booleanText, '"true", "false"');
  r.map('force-ssl-redirect', Annotation.forceSslRedirect, booleanText, '"true", "false"');
  r.map('backend-protocol', Annotation.backendProtocol, (v) => backendProtocols[v.trim().toUpperCase()], Object.keys(backendProtocols).join(', '));

  const body = r.raw('proxy-body-size');
  if (body !== undefined) {
    const m = /^(\d{1,10})([kKmMgG]?)$/.exec(body.trim());
    if (m === null) r.invalid('proxy-body-size', body, 'a size like "1m", "512k", "1g" or "0" (no limit)');
    else if (Number(m[1]) !== 0) r.own[Annotation.maxRequestBodySize] = `${m[1] as string}${(m[2] as string).toLowerCase()}`;
  }

  const read = r.raw('proxy-read-timeout');
  const send = r.raw('proxy-send-timeout');
  const readSeconds = read === undefined ? undefined : seconds(read);
  const sendSeconds = send === undefined ? undefined : seconds(send);
  if (read !== undefined && readSeconds === undefined) r.invalid('proxy-read-timeout', read, 'a whole number of seconds, e.g. "120"');
  if (send !== undefined && sendSeconds === undefined) r.invalid('proxy-send-timeout', send, 'a whole number of seconds, e.g. "120"');
  const idle = Math.max(readSeconds ?? -1, sendSeconds ?? -1);
  if (idle >= 0) r.own[Annotation.idleTimeout] = idle === 0 ? '0' : `${idle}s`;

  // allowlist-source-range is the newer name of whitelist-source-range; ingress-nginx prefers it.
  const cidrsName = r.raw('allowlist-source-range') !== undefined ? 'allowlist-source-range' : 'whitelist-source-range';
  r.map(cidrsName, Annotation.allowedSourceCidrs, (v) => (parseCidrList(v) === undefined ? undefined : splitList(v).join(', ')), 'a comma-separated list of CIDRs');


  /** A request header an nginx annotation sets (proxy_set_header), merged into our request-headers-set. */
  const setRequestHeader = (name: string, value: string): void => {
    const existing = r.own[Annotation.requestHeadersSet] ?? ingress.metadata.annotations?.[Annotation.requestHeadersSet];
    const oursSetsIt = ingress.metadata.annotations?.[Annotation.requestHeadersSet]
      ?.split(/\r?\n/)
      .some((line) => parseHeaderName(line.split(':')[0] ?? '') === name.toLowerCase());
    // Ours wins for the same header; other headers of ours are kept beside it.
    if (oursSetsIt !== true) r.own[Annotation.requestHeadersSet] = [existing, `${name}: ${value}`].filter((l) => l !== undefined).join('\n');
  };
  const prefix = r.raw('x-forwarded-prefix');
  if (prefix !== undefined) {
    // An empty value sets nothing (ingress-nginx leaves the header out).
    if (/^[\x21-\x7e][\x20-\x7e]{0,1023}$/.test(prefix.trim())) setRequestHeader('X-Forwarded-Prefix', prefix.trim());
    else if (prefix.trim() !== '') r.invalid('x-forwarded-prefix', prefix, 'a header value (visible ASCII)');
  }
  // proxy_set_header Connection: ingress-nginx accepts exactly these two values.
  const connection = r.raw('connection-proxy-header');
  if (connection !== undefined) {
    if (connection === 'close' || connection === 'keep-alive') setRequestHeader('Connection', connection);
    else r.invalid('connection-proxy-header', connection, '"close", "keep-alive"');
  }
  const mapping: NginxMapping = { own: r.own };
  const rewrite = mapRewrite(r);
  if (rewrite !== undefined) mapping.rewrite = rewrite;
  const vhost = r.raw('upstream-vhost');
  if (vhost !== undefined) {
    // A host name or address, optionally with a port (nginx variables such as $host are not mapped).
    const value = vhost.trim();
    if (/^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})(:\d{1,5})?$/.test(value) || /^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/.test(value)) mapping.hostRewrite = value.toLowerCase();
    else r.invalid('upstream-vhost', vhost, 'a host name, optionally with ":port", e.g. "api.internal"');
  }
  mapping.redirects = readNginxRedirect(ingress, diagnostics);
  const serverNames = readNginxServerNames(ingress, diagnostics);
  if (serverNames !== undefined) mapping.serverNames = serverNames;
  const regex = mapNginxRegex(ingress, diagnostics);
  if (regex !== undefined) mapping.regex = regex;
  const auth = readNginxAuth(ingress, diagnostics, layer);
  if (auth !== undefined) mapping.auth = auth;
  const cors = readNginxCors(ingress, diagnostics);
  if (cors !== undefined) mapping.cors = cors;
  const accessLog = r.raw('enable-access-log');
  if (accessLog !== undefined && goBool(accessLog) === undefined) r.invalid('enable-access-log', accessLog, '"true", "false"');
  if (accessLog !== undefined && goBool(accessLog) === false) mapping.accessLogOff = true;
  const cookieRewrite = readNginxProxyCookie(ingress, diagnostics);
  if (cookieRewrite !== undefined) mapping.cookieRewrite = cookieRewrite;
  mapping.limits = readNginxLimits(r);
  const affinity = readNginxAffinity(ingress, diagnostics);
  if (affinity !== undefined) mapping.affinity = affinity;
  mapping.balancing = readNginxBalancing(ingress, diagnostics, affinity !== undefined);
  const retry = readNginxNextUpstream(ingress, diagnostics);
  if (retry !== undefined) mapping.retry = retry;
  if (readNginxServiceUpstream(ingress, diagnostics)) mapping.serviceUpstream = true;
  const mirror = readNginxMirror(ingress, diagnostics);
  if (mirror !== undefined) mapping.mirror = mirror;
  const authTls = readNginxAuthTls(ingress, diagnostics, layer);
  if (authTls !== undefined) mapping.authTls = authTls;
  const proxySsl = readNginxProxySsl(ingress, diagnostics, layer);
  if (proxySsl !== undefined) mapping.proxySsl = proxySsl;
  return mapping;
}

/**
 * Our annotations of an Ingress, with its nginx annotations mapped in when `nginx` is on. Our own annotations win
 * over nginx ones that set the same thing (rewrite-prefix over rewrite-target included).
 */
export function parseAnnotationsWithNginx(ingress: Ingress, diagnostics: Diagnostic[], nginx: boolean, layer: NginxLayerOptions = {}): NginxIngressAnnotations {
  if (!nginx) return parseAnnotations(ingress, diagnostics);
  const mapping = mapNginxAnnotations(ingress, diagnostics, layer);
  const annotations = { ...mapping.own, ...ingress.metadata.annotations };
  // x-forwarded-prefix merges into our request-headers-set rather than being shadowed by it.
  const merged = mapping.own[Annotation.requestHeadersSet];
  if (merged !== undefined) annotations[Annotation.requestHeadersSet] = merged;
  const parsed = parseAnnotations({ ...ingress, metadata: { ...ingress.metadata, annotations } }, diagnostics);
  if (mapping.rewrite !== undefined && parsed.route.rewrite === undefined) parsed.route.rewrite = mapping.rewrite;
  if (mapping.hostRewrite !== undefined) parsed.route.hostRewrite = mapping.hostRewrite;
  // ingress-nginx sends X-Forwarded-Host to every backend (with upstream-vhost, the only trace of the client's Host).
  parsed.route.forwardedHost = true;
  if (mapping.accessLogOff === true) parsed.route.accessLog = false;
  if (mapping.cookieRewrite !== undefined) parsed.route.cookieRewrite = mapping.cookieRewrite;
  // ... and the client's X-Request-ID ($req_id), which the default and error backends read too.
  parsed.route.keepClientRequestId = true;
  if (mapping.cors !== undefined) {
    // Ours wins: Envoy's CORS filter and nginx's CORS headers on one route would answer preflights twice over.
    if (parsed.route.cors === undefined) parsed.route.corsResponse = mapping.cors;
    else diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message: `annotation ${n('enable-cors')} ignored: ${Annotation.corsAllowOrigins} is set and takes precedence` });
  }
  if (mapping.regex !== undefined) Object.assign(parsed, { nginxRegex: mapping.regex });
  if (mapping.auth !== undefined) Object.assign(parsed, { nginxAuth: mapping.auth });
  if (mapping.serverNames !== undefined) Object.assign(parsed, { nginxServerNames: mapping.serverNames });
  if (mapping.limits !== undefined) applyNginxLimits(parsed, mapping.limits);
  if (mapping.serviceUpstream === true) Object.assign(parsed, { nginxServiceUpstream: true } satisfies WithNginxServiceUpstream);
  if (mapping.mirror !== undefined) Object.assign(parsed, { nginxMirror: mapping.mirror } satisfies WithNginxMirror);
  if (mapping.authTls !== undefined) Object.assign(parsed, { nginxAuthTls: mapping.authTls } satisfies WithNginxAuthTls);
  if (mapping.proxySsl !== undefined) Object.assign(parsed, { nginxProxySsl: mapping.proxySsl } satisfies WithNginxProxySsl);
  // Our own retry-* win over proxy-next-upstream*.
  if (mapping.retry !== undefined && parsed.route.retry === undefined) parsed.route.retry = structuredClone(mapping.retry);
  // Our own hash-by and load-balancer win over upstream-hash-by and load-balance.
  const balancing = mapping.balancing ?? {};
  if (balancing.hashPolicies !== undefined && parsed.route.hashPolicies === undefined && ingress.metadata.annotations?.[Annotation.loadBalancer] === undefined) {
    parsed.route.hashPolicies = balancing.hashPolicies.map((p) => ({ ...p }));
  }
  if (balancing.loadBalancer !== undefined && parsed.cluster.loadBalancer === undefined) parsed.cluster.loadBalancer = balancing.loadBalancer;
  if (mapping.affinity !== undefined) {
    Object.assign(parsed, { nginxAffinity: mapping.affinity } satisfies WithNginxAffinity);
    // The cookie's key picks the endpoint (ring hash), unless our own load-balancer says otherwise; in persistent
    // mode the key is the endpoint itself and a new client gets any endpoint (round robin).
    if (parsed.cluster.loadBalancer === undefined && mapping.affinity.persistent !== true) parsed.cluster.loadBalancer = 'ring-hash';
  }
  return mapping.redirects === undefined ? parsed : { ...parsed, nginxRedirects: mapping.redirects };
}

/** Every nginx annotation name in the catalog (for reports). */
export const catalogedNginxAnnotations: readonly string[] = Object.keys(nginxAnnotationCatalog);

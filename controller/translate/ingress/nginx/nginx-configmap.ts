// The ingress-nginx ConfigMap (--nginx-configmap NAMESPACE/NAME): the keys that change what annotations do or what
// every Ingress of the nginx layer gets, read with ingress-nginx's defaults for the keys it does not set (as
// ingress-nginx reads its own: internal/ingress/controller/template/configmap.go, config/config.go). A value that
// cannot be read is reported on the ConfigMap and the default is kept; keys this controller does not honour are
// listed in one diagnostic (nginx-configmap-keys.ts has each one's reason). Pure.
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { ClusterState, ConfigMap, ObjectRef } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { nginxConfigMapKey } from './nginx-configmap-keys.js';
import { namespaceOf } from '../../shared/kinds.js';

export type RedirectCode = 301 | 302 | 307 | 308;

export interface HstsSettings {
  maxAgeSeconds: string;
  includeSubdomains: boolean;
  preload: boolean;
}

export interface GzipSettings {
  /** 1 (fastest) to 9 (smallest). */
  level: number;
  /** Responses with a Content-Length below this are sent as they are. */
  minLength: number;
  /** Content types (`type/subtype`, lower case) that are compressed. */
  contentTypes: string[];
}

/** What the ConfigMap amounts to, every field with ingress-nginx's default when the key is absent or invalid. */
export interface NginxConfigMapSettings {
  /** Where it came from (diagnostics name it). */
  source: ObjectRef;
  sslRedirect: boolean;
  forceSslRedirect: boolean;
  httpRedirectCode: RedirectCode;
  /** Absent: hsts "false". */
  hsts?: HstsSettings;
  useForwardedHeaders: boolean;
  /** An nginx size (`1m`), the form the proxy-body-size annotation takes. */
  proxyBodySize: string;
  proxyConnectTimeoutSeconds: number;
  proxyReadTimeoutSeconds: number;
  proxySendTimeoutSeconds: number;
  customHttpErrors: number[];
  /** Path prefixes whose routes are not redirected to https. */
  noTlsRedirectLocations: string[];
  allowSnippetAnnotations: boolean;
  /** The default of the service-upstream annotation. */
  serviceUpstream: boolean;
  /** The default of the load-balance annotation. */
  loadBalance: 'round_robin' | 'ewma';
  /** Annotations may name Secrets of other namespaces (as --nginx-allow-cross-namespace-resources). */
  allowCrossNamespaceResources: boolean;
  serverTokens: boolean;
  /** Absent: use-gzip "false". */
  gzip?: GzipSettings;
  /** Defaults of annotations, kept as written when valid (absent: the key is not set): proxy-next-upstream,
   * proxy-next-upstream-tries (the annotations' reader, nginx-next-upstream.ts, uses them). */
  annotationDefaults: Record<string, string>;
}

/** ingress-nginx's defaults (config.go NewDefault, defaults/main.go). */
export const nginxConfigMapDefaults = {
  sslRedirect: true,
  forceSslRedirect: false,
  httpRedirectCode: 308,
  hsts: true,
  hstsMaxAge: '31536000',
  hstsIncludeSubdomains: true,
  hstsPreload: false,
  useForwardedHeaders: false,
  proxyBodySize: '1m',
  proxyConnectTimeout: 5,
  proxyReadTimeout: 60,
  proxySendTimeout: 60,
  noTlsRedirectLocations: '/.well-known/acme-challenge',
  allowSnippetAnnotations: false,
  serviceUpstream: false,
  loadBalance: 'round_robin',
  allowCrossNamespaceResources: false,
  serverTokens: false,
  useGzip: false,
  gzipLevel: 1,
  gzipMinLength: 256,
  gzipTypes:
    'application/atom+xml application/javascript application/x-javascript application/json application/rss+xml application/vnd.ms-fontobject application/x-font-ttf application/x-web-app-manifest+json application/xhtml+xml application/xml font/opentype image/svg+xml image/x-icon text/css text/javascript text/plain text/x-component',
} as const;

/** The ConfigMap `options` names, or undefined when it names none or the ConfigMap is not in the state. */
export function findNginxConfigMap(state: ClusterState, ref: { namespace: string; name: string }): ConfigMap | undefined {
  return state.configMaps?.find((c) => namespaceOf(c.metadata) === ref.namespace && c.metadata.name === ref.name);
}

class ConfigMapReader {
  constructor(
    readonly data: Readonly<Record<string, string>>,
    private readonly source: ObjectRef,
    private readonly diagnostics: Diagnostic[],
  ) {}

  invalid(key: string, value: string, accepted: string, kept: string): void {
    const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}...` : JSON.stringify(value);
    this.diagnostics.push({
      object: this.source,
      severity: 'Warning',
      reason: Reason.InvalidNginxConfigMapValue,
      message: `key ${key} has invalid value ${shown}; accepted values: ${accepted}; ingress-nginx's default ${kept} is used`,
    });
  }

  /** The value converted, the default when the key is absent, or the default (reported) when it cannot be read. */
  read<T>(key: string, fallback: T, convert: (value: string) => T | undefined, accepted: string): T {
    const value = this.data[key];
    if (value === undefined) return fallback;
    const converted = convert(value);
    if (converted !== undefined) return converted;
    this.invalid(key, value, accepted, JSON.stringify(String(fallback)));
    return fallback;
  }

  bool(key: string, fallback: boolean): boolean {
    return this.read(key, fallback, parseNginxBool, '"true", "false"');
  }

  seconds(key: string, fallback: number): number {
    return this.read(key, fallback, (v) => parseNginxInt(v, 0, 31_536_000), 'a whole number of seconds, e.g. "60"');
  }
}

/** Go's strconv.ParseBool, which ingress-nginx's weakly typed decoding uses ("" decodes to false). */
export function parseNginxBool(text: string): boolean | undefined {
  const v = text.trim();
  if (['1', 't', 'T', 'TRUE', 'true', 'True', ''].includes(v)) return v !== '';
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** A decimal integer within [min, max] ("50k" is not one: ingress-nginx keeps its default for it). */
export function parseNginxInt(text: string, min: number, max: number): number | undefined {
  const v = text.trim();
  if (!/^\+?\d{1,10}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
}

const nginxSize = /^\d{1,10}[kKmMgG]?$/;
const mimeType = /^[a-z0-9!#$&^_.+-]{1,127}\/[a-z0-9!#$&^_.+*-]{1,127}$/;

function parseStatusList(text: string): { statuses: number[]; invalid: string[] } {
  const statuses: number[] = [];
  const invalid: string[] = [];
  for (const item of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const n = parseNginxInt(item, 300, 599);
    if (n === undefined) invalid.push(item);
    else if (!statuses.includes(n)) statuses.push(n);
  }
  return { statuses, invalid };
}

/**
 * The settings of the ConfigMap `configMap` (undefined: it does not exist; every default applies, and that is
 * reported). Diagnostics go on the ConfigMap.
 */
export function readNginxConfigMap(configMap: ConfigMap | undefined, ref: { namespace: string; name: string }, diagnostics: Diagnostic[]): NginxConfigMapSettings {
  const source: ObjectRef = { kind: 'ConfigMap', namespace: ref.namespace, name: ref.name };
  if (configMap === undefined) {
    diagnostics.push({
      object: source,
      severity: 'Warning',
      reason: Reason.NginxConfigMapNotFound,
      message: `ConfigMap ${ref.namespace}/${ref.name} (--nginx-configmap) does not exist; ingress-nginx's defaults apply until it does`,
    });
  }
  const r = new ConfigMapReader(configMap?.data ?? {}, source, diagnostics);
  const d = nginxConfigMapDefaults;
  const settings: NginxConfigMapSettings = {
    source,
    sslRedirect: r.bool('ssl-redirect', d.sslRedirect),
    forceSslRedirect: r.bool('force-ssl-redirect', d.forceSslRedirect),
    httpRedirectCode: r.read<RedirectCode>(
      'http-redirect-code',
      d.httpRedirectCode,
      (v) => ([301, 302, 307, 308] as const).find((code) => code === parseNginxInt(v, 0, 999)),
      '301, 302, 307 or 308',
    ),
    useForwardedHeaders: r.bool('use-forwarded-headers', d.useForwardedHeaders),
    proxyBodySize: r.read('proxy-body-size', d.proxyBodySize, (v) => (nginxSize.test(v.trim()) ? v.trim().toLowerCase() : undefined), 'a size like "1m", "512k", "1g" or "0" (no limit)'),
    proxyConnectTimeoutSeconds: r.seconds('proxy-connect-timeout', d.proxyConnectTimeout),
    proxyReadTimeoutSeconds: r.seconds('proxy-read-timeout', d.proxyReadTimeout),
    proxySendTimeoutSeconds: r.seconds('proxy-send-timeout', d.proxySendTimeout),
    customHttpErrors: [],
    // As ingress-nginx: a comma-separated list of path prefixes, blanks around each ignored, empty items skipped.
    noTlsRedirectLocations: r.read(
      'no-tls-redirect-locations',
      d.noTlsRedirectLocations.split(','),
      (v) => {
        const items = v.split(',').map((item) => item.trim()).filter((item) => item !== '');
        return items.every((item) => /^\/[\x21-\x7e]{0,1023}$/.test(item)) ? items : undefined;
      },
      'path prefixes starting with "/", comma-separated',
    ),
    allowSnippetAnnotations: r.bool('allow-snippet-annotations', d.allowSnippetAnnotations),
    allowCrossNamespaceResources: r.bool('allow-cross-namespace-resources', d.allowCrossNamespaceResources),
    serviceUpstream: r.bool('service-upstream', d.serviceUpstream),
    loadBalance: r.read<'round_robin' | 'ewma'>('load-balance', d.loadBalance, (v) => (v.trim() === 'round_robin' || v.trim() === 'ewma' ? v.trim() : undefined) as 'round_robin' | 'ewma' | undefined, '"round_robin", "ewma"'),
    serverTokens: r.bool('server-tokens', d.serverTokens),
    annotationDefaults: {},
  };
  if (settings.proxyConnectTimeoutSeconds === 0) {
    // nginx refuses a 0 connect timeout (the config would not load); Envoy would read it as "none".
    r.invalid('proxy-connect-timeout', r.data['proxy-connect-timeout'] ?? '0', 'a whole number of seconds from 1', String(d.proxyConnectTimeout));
    settings.proxyConnectTimeoutSeconds = d.proxyConnectTimeout;
  }
  const errors = r.data['custom-http-errors'];
  if (errors !== undefined) {
    // As ingress-nginx: each unreadable code is dropped (and reported), the others are kept.
    const { statuses, invalid } = parseStatusList(errors);
    settings.customHttpErrors = statuses;
    for (const item of invalid) r.invalid('custom-http-errors', item, 'HTTP statuses from 300 to 599, comma-separated', 'of leaving that code out');
  }
  if (r.bool('hsts', d.hsts)) {
    settings.hsts = {
      maxAgeSeconds: r.read('hsts-max-age', d.hstsMaxAge, (v) => (/^\d{1,10}$/.test(v.trim()) ? v.trim() : undefined), 'a whole number of seconds'),
      includeSubdomains: r.bool('hsts-include-subdomains', d.hstsIncludeSubdomains),
      preload: r.bool('hsts-preload', d.hstsPreload),
    };
  }
  if (r.bool('use-gzip', d.useGzip)) {
    settings.gzip = {
      level: r.read('gzip-level', d.gzipLevel, (v) => parseNginxInt(v, 1, 9), 'a whole number from 1 to 9'),
      minLength: r.read('gzip-min-length', d.gzipMinLength, (v) => parseNginxInt(v, 0, 1_000_000_000), 'a whole number of bytes'),
      contentTypes: r.read(
        'gzip-types',
        d.gzipTypes.split(' '),
        (v) => {
          const types = v.trim().toLowerCase().split(/\s+/).filter((t) => t !== '');
          return types.length > 0 && types.every((t) => mimeType.test(t)) ? types : undefined;
        },
        'content types separated by spaces, e.g. "text/html application/json"',
      ),
    };
  }
  // Keys that are only defaults of annotations (an Ingress's own wins), checked here so a bad value is reported on
  // the ConfigMap and not on every Ingress.
  const annotationDefaultKeys: [string, (v: string) => boolean, string][] = [
    ['proxy-next-upstream', (v) => /^\s*(?:(?:error|timeout|invalid_header|http_50[0234]|http_40[34]|http_429|non_idempotent|off)(?:\s+|$))+$/.test(v), 'error, timeout, invalid_header, http_500, http_502, http_503, http_504, http_403, http_404, http_429, non_idempotent, off (space-separated)'],
    ['proxy-next-upstream-tries', (v) => parseNginxInt(v, 0, 9999) !== undefined, 'a whole number (0: no limit)'],
  ];
  for (const [key, valid, accepted] of annotationDefaultKeys) {
    const value = r.data[key];
    if (value === undefined) continue;
    if (valid(value)) settings.annotationDefaults[key] = value.trim();
    else r.invalid(key, value, accepted, '(not set)');
  }
  if (settings.allowSnippetAnnotations) {
    diagnostics.push({
      object: source,
      severity: 'Warning',
      reason: Reason.NginxSnippetRefused,
      message: 'allow-snippet-annotations is "true", but snippet annotations (configuration-snippet, server-snippet, ...) stay refused: raw nginx configuration has no safe equivalent',
    });
  }
  const ignoredKeys = Object.keys(r.data)
    .filter((key) => nginxConfigMapKey(key).status === 'ignored')
    .sort();
  if (ignoredKeys.length > 0) {
    diagnostics.push({
      object: source,
      severity: 'Warning',
      reason: Reason.NginxConfigMapKeysIgnored,
      message: `keys not honoured, ignored: ${ignoredKeys.join(', ')} (envoy-ingress migrate-check gives the reason for each)`,
    });
  }
  return settings;
}

/** Strict-Transport-Security as ingress-nginx's lua_ingress.lua writes it. */
export function hstsHeaderValue(hsts: HstsSettings): string {
  return `max-age=${hsts.maxAgeSeconds}${hsts.includeSubdomains ? '; includeSubDomains' : ''}${hsts.preload ? '; preload' : ''}`;
}

/**
 * The ConfigMap settings that are defaults of nginx annotations, as those annotations (full keys): an Ingress's own
 * annotation wins over them, as in ingress-nginx. custom-http-errors only for an Ingress with a default backend
 * (`hasDefaultBackend`): ingress-nginx sends those errors to its own default backend, which here is a Service the
 * Ingress or a spec.defaultBackend names. load-balance "ewma" only for an Ingress that hashes nothing
 * (`hashes`: affinity or upstream-hash-by, which take precedence over it).
 */
export function nginxConfigMapAnnotationDefaults(settings: NginxConfigMapSettings, hasDefaultBackend: boolean, hashes = false): Record<string, string> {
  const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;
  const defaults: Record<string, string> = {
    [n('ssl-redirect')]: String(settings.sslRedirect),
    [n('force-ssl-redirect')]: String(settings.forceSslRedirect),
    [n('proxy-body-size')]: settings.proxyBodySize,
    [n('proxy-read-timeout')]: String(settings.proxyReadTimeoutSeconds),
  };
  // Both timeouts map to one idle timeout (the larger): ingress-nginx's default send timeout would hide a shorter read
  // timeout (an Ingress's or the ConfigMap's), while nginx answers 504 after the read timeout whatever the send one.
  if (settings.proxySendTimeoutSeconds !== nginxConfigMapDefaults.proxySendTimeout) defaults[n('proxy-send-timeout')] = String(settings.proxySendTimeoutSeconds);
  // 5 s is Envoy's own connect timeout too: no per-Ingress cluster variant for the default.
  if (settings.proxyConnectTimeoutSeconds !== nginxConfigMapDefaults.proxyConnectTimeout) {
    defaults[n('proxy-connect-timeout')] = String(settings.proxyConnectTimeoutSeconds);
  }
  if (settings.serviceUpstream) defaults[n('service-upstream')] = 'true';
  if (settings.loadBalance !== nginxConfigMapDefaults.loadBalance && !hashes) defaults[n('load-balance')] = settings.loadBalance;
  if (settings.customHttpErrors.length > 0 && hasDefaultBackend) defaults[n('custom-http-errors')] = settings.customHttpErrors.join(',');
  for (const [key, value] of Object.entries(settings.annotationDefaults)) defaults[n(key)] = value;
  return defaults;
}

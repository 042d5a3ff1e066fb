// What the ingress-nginx annotations of one Ingress become on an HTTPRoute, read through the nginx layer's own
// parser (mapNginxAnnotations), so the converter honours exactly what `run --nginx-annotations` honours: the
// filters the Gateway API can say, and every honoured annotation it cannot say, by its catalog name.
import type { HTTPRouteFilter } from '../shared/kube-objects.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import type { Ingress } from '../shared/kube-objects.js';
import { Annotation } from '../ingress/annotations.js';
import { nginxAnnotationPrefix, nginxCatalogEntry } from '../ingress/nginx/catalog.js';
import { mapNginxAnnotations, type NginxMapping } from '../ingress/nginx/nginx-annotations.js';
import { nginxCorsAnnotations } from '../ingress/nginx/nginx-cors.js';
import type { ReportedDifference } from './gateway-migration-report.js';

/** nginx annotations (after the prefix) whose meaning the converted routes carry, whole or with a named difference. */
export const carriedNginxAnnotations: ReadonlySet<string> = new Set([
  'ssl-redirect',
  'force-ssl-redirect',
  'preserve-trailing-slash',
  'rewrite-target',
  'use-regex',
  'app-root',
  'upstream-vhost',
  'x-forwarded-prefix',
  'connection-proxy-header',
  'permanent-redirect',
  'permanent-redirect-code',
  'temporal-redirect',
  'temporal-redirect-code',
  'server-alias',
  // GRPC / GRPCS: GRPCRoute rules; what no route carries (TLS, H2C) is reported by migrate-ingresses.ts.
  'backend-protocol',
  // A TLS listener in Passthrough mode and a TLSRoute to the backend of the host's `/` path (else its first).
  'ssl-passthrough',
  // A RequestMirror filter to the in-cluster Service the target names; what differs is reported (mirror-conversion.ts).
  'mirror-target',
  'mirror-host',
  // A BackendTLSPolicy for HTTPS / GRPCS backends (backend-tls-conversion.ts reports what it does otherwise); for a
  // plain-HTTP backend they do nothing on either side.
  'proxy-ssl-secret',
  'proxy-ssl-verify',
  'proxy-ssl-name',
  'proxy-ssl-server-name',
  // timeouts.backendRequest; the difference in meaning is reported by migrate-ingresses.ts.
  'proxy-read-timeout',
  'proxy-send-timeout',
  // A CORS filter (cors-conversion.ts reports what it does otherwise).
  ...nginxCorsAnnotations,
  // A canary Ingress's own: merged into the main Ingress's rules as header / cookie matches and weights.
  'canary',
  'canary-by-header',
  'canary-by-header-value',
  'canary-by-header-pattern',
  'canary-by-cookie',
  'canary-weight',
  'canary-weight-total',
]);

/** What to do about an honoured annotation the Gateway API cannot carry, where the catalog's text is not enough. */
const actions: Readonly<Record<string, string>> = {
  'proxy-read-timeout': 'Gateway API timeouts (request, backendRequest) bound the whole request, not the time between two reads: set rules[].timeouts if a bound on the whole request fits',
  'proxy-send-timeout': 'as proxy-read-timeout: rules[].timeouts bounds the whole request',
  'proxy-body-size': 'no Gateway API field; keep the limit in the backend',
  canary: 'express the canary as weighted backendRefs or a header-matched rule on the main HTTPRoute',
  'auth-url': 'name the authorization Service in a RoutePolicy externalAuth (gateway.envoy-ingress.io), or keep external authentication in front of the backend',
  'auth-type': 'write the users into a RoutePolicy basicAuth (gateway.envoy-ingress.io), or keep authentication in front of the backend',
};

/** The differences of an Ingress's honoured nginx annotations that the converted routes do not carry. */
export function uncarriedNginxAnnotations(ingress: Ingress, diagnostics: readonly Diagnostic[], alsoCarried: ReadonlySet<string> = new Set()): ReportedDifference[] {
  const differences: ReportedDifference[] = [];
  for (const key of Object.keys(ingress.metadata.annotations ?? {}).sort()) {
    const entry = nginxCatalogEntry(key);
    if (entry === undefined) continue;
    const name = key.slice(nginxAnnotationPrefix.length);
    // Not honoured by the Ingress either (unsupported, refused, or an invalid value the layer reported).
    if (entry.status !== 'supported' && entry.status !== 'supported-with-difference') continue;
    if (diagnostics.some((d) => d.message.startsWith(`annotation ${key} `))) continue;
    // alsoCarried: what this Ingress's RoutePolicy carries (route-policy-conversion.ts).
    if (carriedNginxAnnotations.has(name) || alsoCarried.has(name)) continue;
    differences.push({
      id: name,
      message: `${name} is not carried by the HTTPRoute: the Gateway API has no field for what it does here (${entry.equivalent ?? entry.note ?? 'see the nginx catalog'})`,
      action: actions[name] ?? 'keep this behaviour elsewhere (the backend, or a policy of the implementation) or accept its loss',
    });
  }
  return differences;
}

/** Request headers the nginx layer sets with fixed values (x-forwarded-prefix, connection-proxy-header). */
export function nginxRequestHeaders(mapping: NginxMapping): { name: string; value: string }[] {
  const lines = mapping.own[Annotation.requestHeadersSet]?.split(/\r?\n/) ?? [];
  return lines.flatMap((line) => {
    const at = line.indexOf(':');
    if (at <= 0) return [];
    return [{ name: line.slice(0, at).trim(), value: line.slice(at + 1).trim() }];
  });
}

export interface NginxReading {
  mapping: NginxMapping;
  diagnostics: Diagnostic[];
}

export function readNginx(ingress: Ingress): NginxReading {
  const diagnostics: Diagnostic[] = [];
  const mapping = mapNginxAnnotations(ingress, diagnostics);
  return { mapping, diagnostics };
}

export type { HTTPRouteFilter };

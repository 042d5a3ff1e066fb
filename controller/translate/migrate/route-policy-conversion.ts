// ingress-nginx's source ranges and authentication as our RoutePolicy (gateway.envoy-ingress.io/v1alpha1), which
// the Gateway API translator serves with the same route policy fields the nginx layer builds
// (gateway-api/route-policies.ts): whitelist-/allowlist-/denylist-source-range -> sourceRanges, auth-type basic +
// auth-secret (+ auth-secret-type, auth-realm) -> basicAuth, auth-url to a Service of the Ingress's namespace
// (+ auth-response-headers) -> externalAuth. Read with the nginx layer's own parsers, so an annotation the Ingress
// does not honour is not converted either. What the policy does otherwise is reported; where the Ingress's paths
// answer 503 because an authentication cannot be set up, the policy denies every client (403), never opens them.
import { readUsers } from '../shared/basic-auth-users.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import type { Ingress, RoutePolicy, Secret, Service } from '../shared/kube-objects.js';
import { parseCidrList, splitList } from '../ingress/annotation-values.js';
import { nginxAnnotationPrefix } from '../ingress/nginx/catalog.js';
import { nginxAffinityAnnotations, readNginxAffinity } from '../ingress/nginx/nginx-affinity.js';
import { readNginxAuth } from '../ingress/nginx/nginx-auth.js';
import type { ReportedDifference } from './gateway-migration-report.js';

export type RoutePolicySpec = Omit<NonNullable<RoutePolicy['spec']>, 'targetRefs'>;

export interface RoutePolicyConversion {
  /** What the policy says (no targetRefs yet: the caller names the Ingress's HTTPRoutes and GRPCRoutes); absent: no policy. */
  spec?: RoutePolicySpec;
  /** The annotations (after the prefix) the policy carries, so they are not reported as lost. */
  carried: Set<string>;
  differences: ReportedDifference[];
}

const everybody = ['0.0.0.0/0', '::/0'];

/** In-cluster Service names of one namespace: `name.namespace.svc` and `name.namespace.svc.cluster.local`. */
const serviceHost = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(\.cluster\.local)?$/;

export function routePolicyConversion(ingress: Ingress, services: ReadonlyMap<string, Service>, secrets: readonly Secret[]): RoutePolicyConversion {
  const raw = (name: string): string | undefined => ingress.metadata.annotations?.[`${nginxAnnotationPrefix}${name}`];
  const namespace = namespaceOf(ingress.metadata);
  const spec: RoutePolicySpec = {};
  const carried = new Set<string>();
  const differences: ReportedDifference[] = [];
  let closed = false;
  /** The Ingress answers 503 on every path: the policy denies every client instead of leaving the route open. */

  // Source ranges, as nginx-annotations.ts (allowlist- wins over whitelist-) and nginx-limits.ts (a broken deny-list
  // denies everybody) read them.
  const allowName = raw('allowlist-source-range') !== undefined ? 'allowlist-source-range' : 'whitelist-source-range';
  const allowText = raw(allowName);
  const allow = allowText === undefined ? undefined : parseCidrList(allowText);
  const denyText = raw('denylist-source-range');
  const deny = denyText === undefined ? undefined : (parseCidrList(denyText) ?? 'everybody');
  if (allow !== undefined) {
    spec.sourceRanges = { allow: splitList(allowText ?? '') };
    carried.add('whitelist-source-range').add('allowlist-source-range');
  }
  if (deny !== undefined) {
    spec.sourceRanges = { ...spec.sourceRanges, deny: deny === 'everybody' ? [...everybody] : splitList(denyText ?? '') };
    carried.add('denylist-source-range');
  }

  const authDiagnostics: Diagnostic[] = [];
  const auth = readNginxAuth(ingress, authDiagnostics);
  if (auth?.refused !== undefined) {
    closed = true;
    differences.push({
      id: 'auth-type',
      message: `the authentication annotations cannot be honoured (${auth.refused}): the Ingress's paths answer 503; the RoutePolicy denies every client (403) instead, so the route is not served open`,
      action: 'fix the annotation, or write the authentication into the RoutePolicy',
    });
  } else if (auth !== undefined) {
    if (auth.basic !== undefined) {
      const { secret, secretType, realm } = auth.basic;
      spec.basicAuth = { secretRef: { name: secret.name }, ...(secretType === 'auth-file' ? {} : { secretType }), ...(realm === '' ? {} : { realm }) };
      for (const name of ['auth-type', 'auth-secret', 'auth-secret-type', 'auth-realm']) carried.add(name);
      const found = secrets.find((s) => namespaceOf(s.metadata) === secret.namespace && s.metadata.name === secret.name);
      const users = found === undefined ? undefined : readUsers(found, secretType);
      if (users === undefined || 'error' in users) {
        differences.push({
          id: 'auth-secret',
          message: `auth-secret ${secret.namespace}/${secret.name} ${users === undefined ? 'is not found' : 'has no usable users'}: the Ingress's paths answer 503, the RoutePolicy is not accepted and its rules answer 500`,
          action: 'fix the Secret (both stay closed until then)',
        });
      }
    }
    if (auth.external !== undefined) {
      const url = auth.external.url;
      const host = serviceHost.exec(url.hostname.toLowerCase());
      const port = url.port === '' ? 80 : Number(url.port);
      const service = host === null ? undefined : services.get(`${host[3] ?? ''}/${host[1] ?? ''}`);
      if (url.protocol === 'http:' && host !== null && (host[3] ?? '') === namespace && service !== undefined && service.spec?.type !== 'ExternalName') {
        spec.externalAuth = {
          backendRef: { name: host[1] ?? '', port },
          ...(url.pathname === '/' ? {} : { path: url.pathname }),
          ...(auth.external.responseHeaders.length === 0 ? {} : { responseHeaders: [...auth.external.responseHeaders] }),
        };
        carried.add('auth-url').add('auth-response-headers');
        if (!(service.spec?.ports ?? []).some((p) => p.port === port)) {
          differences.push({ id: 'auth-url', message: `auth-url ${url.href}: Service ${namespace}/${host[1] ?? ''} has no port ${port}: the Ingress's paths answer 503, the RoutePolicy's rules 500`, action: 'fix the URL or the Service' });
        }
      } else {
        // Another namespace, outside the cluster, https, an ExternalName or missing Service: a policy names a Service
        // port of its own namespace only. Closed rather than served without the authentication.
        closed = true;
        differences.push({
          id: 'auth-url',
          message: `auth-url ${url.href} is not a Service of namespace ${namespace} reached over http, which a RoutePolicy's externalAuth needs: the RoutePolicy denies every client (403) instead of serving the route without the authentication`,
          action: `run the authorization service as a Service of namespace ${namespace} and name it in the RoutePolicy's externalAuth`,
        });
      }
    }
    if (auth.satisfyAny === true || (auth.anyWithAllowList === true && spec.sourceRanges?.allow !== undefined && spec.basicAuth !== undefined)) {
      differences.push({ id: 'satisfy', message: 'satisfy "any" (one check passing is enough) is not carried: the RoutePolicy requires every check it holds', action: 'none, unless clients pass one check only' });
    }
  }
  // Cookie affinity, read as nginx-affinity.ts reads it (a bad value is left out on both sides).
  const affinity = readNginxAffinity(ingress, []);
  if (affinity !== undefined) {
    const { name, path, expiresSeconds, maxAgeSeconds, domain, sameSite, conditionalSameSiteNone, secure, persistent } = affinity;
    spec.sessionAffinity = {
      ...(persistent === true ? { mode: 'persistent' } : {}),
      cookie: {
        name,
        ...(path === undefined ? {} : { path }),
        ...(expiresSeconds === undefined ? {} : { expiresSeconds }),
        ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }),
        ...(domain === undefined ? {} : { domain }),
        ...(sameSite === undefined ? {} : { sameSite }),
        ...(conditionalSameSiteNone === true ? { conditionalSameSiteNone } : {}),
        ...(secure === true ? { secure } : {}),
      },
    };
    for (const annotation of nginxAffinityAnnotations) carried.add(annotation);
  }
  if (closed) return { spec: { sourceRanges: { deny: [...everybody] } }, carried: new Set([...carried, 'auth-type', 'auth-secret', 'auth-secret-type', 'auth-realm', 'auth-url', 'auth-response-headers']), differences };
  return { ...(Object.keys(spec).length === 0 ? {} : { spec }), carried, differences };
}

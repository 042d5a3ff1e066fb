// This controller's own Ingress annotations (envoy-ingress.io/*): migrate converts ingress-nginx's, and carries of its
// own only the https redirects (ssl-redirect, force-ssl-redirect). Every other one the Ingress has is a behaviour the
// HTTPRoute lacks, so it is named on each of the Ingress's paths rather than reported `same`.
import { Annotation } from '../ingress/annotations.js';
import type { Ingress } from '../shared/kube-objects.js';
import type { ReportedDifference } from './gateway-migration-report.js';

const carried: ReadonlySet<string> = new Set([Annotation.sslRedirect, Annotation.forceSslRedirect]);
const own: ReadonlySet<string> = new Set(Object.values(Annotation));

export function uncarriedOwnAnnotations(ingress: Ingress): ReportedDifference[] {
  return Object.keys(ingress.metadata.annotations ?? {})
    .filter((key) => own.has(key) && !carried.has(key))
    .sort()
    .map((key) => ({
      id: 'own-annotation',
      message: `${key} is not carried by the HTTPRoute: migrate converts ingress-nginx annotations, and of this controller's own only the https redirects`,
      action: 'write it on the route by hand (timeouts, retry, header modifiers, URL rewrite, CORS filter; source ranges in a RoutePolicy) or accept its loss',
    }));
}

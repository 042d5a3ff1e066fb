// When the cluster source watches Opaque Secrets (cluster-source.ts opaqueSecrets): the users of basic auth live in
// them, for ingress-nginx's auth-secret (while one of our IngressClasses opts in to the nginx annotations) and for a
// RoutePolicy's basicAuth (while one asks for it). Other Opaque Secrets are never read.
import type { IngressClass, RoutePolicy } from '../translate/shared/kube-objects.js';
import { nginxAnnotationsInUse } from '../translate/ingress/nginx/nginx-annotations-in-use.js';
import type { TranslateOptions } from '../translate/shared/options.js';

export function opaqueSecretsWanted(options: TranslateOptions): (ingressClasses: readonly IngressClass[], routePolicies: readonly RoutePolicy[]) => boolean {
  return (classes, policies) => nginxAnnotationsInUse(classes, options) || policies.some((p) => p.spec?.basicAuth !== undefined);
}

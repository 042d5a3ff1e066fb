// Whether any Ingress of ours can have its nginx annotations read: the --nginx-annotations flag, or one of our
// IngressClasses opting in. Kubernetes mode watches Opaque Secrets (basic-auth users) only while this holds.
import type { ClassOptions } from '../ingress-class.js';
import { classNginxSetting } from '../ingress-class-nginx.js';
import type { IngressClass } from '../../shared/kube-objects.js';
import type { TranslateOptions } from '../../shared/options.js';

export function nginxAnnotationsInUse(
  ingressClasses: readonly IngressClass[],
  options: ClassOptions & Pick<TranslateOptions, 'nginxAnnotations'>,
): boolean {
  if (options.nginxAnnotations === true) return true;
  return ingressClasses.some((c) => c.spec?.controller === options.controllerName && classNginxSetting(c) === true);
}

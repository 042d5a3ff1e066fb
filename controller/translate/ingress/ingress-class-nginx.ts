// Per-IngressClass opt-in to the ingress-nginx compatibility layer: an IngressClass annotated
// `envoy-ingress.io/nginx-annotations: "true"` has the nginx annotations of its Ingresses honoured (and "false"
// switches them off for its Ingresses even under --nginx-annotations), so a cluster can move one class of
// ingress-nginx Ingresses over while its other classes keep only our own annotations.
import type { Diagnostic } from '../shared/diagnostics.js';
import { type ClassOptions, ingressClassOf } from './ingress-class.js';
import { type Ingress, type IngressClass, refOf } from '../shared/kube-objects.js';
import { annotationPrefix, type TranslateOptions } from '../shared/options.js';
import { Reason } from '../shared/reasons.js';

/** The IngressClass annotation that switches the nginx compatibility layer on ("true") or off ("false"). */
export const nginxAnnotationsClassAnnotation = `${annotationPrefix}nginx-annotations`;

/** The class's own setting: true, false, or undefined (absent or invalid: the controller flag decides). */
export function classNginxSetting(ingressClass: IngressClass): boolean | undefined {
  const value = ingressClass.metadata.annotations?.[nginxAnnotationsClassAnnotation]?.trim();
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** Whether the nginx annotations of this Ingress (one we serve) are read: its class's setting, else the flag. */
export function nginxAnnotationsEnabled(
  ingress: Ingress,
  ingressClasses: readonly IngressClass[],
  options: ClassOptions & Pick<TranslateOptions, 'nginxAnnotations'>,
): boolean {
  const ingressClass = ingressClassOf(ingress, ingressClasses, options);
  const setting = ingressClass === undefined ? undefined : classNginxSetting(ingressClass);
  return setting ?? options.nginxAnnotations === true;
}

/** InvalidAnnotation for each of our IngressClasses whose setting is neither "true" nor "false". */
export function checkClassNginxSettings(ingressClasses: readonly IngressClass[], options: ClassOptions, diagnostics: Diagnostic[]): void {
  for (const ingressClass of ingressClasses) {
    if (ingressClass.spec?.controller !== options.controllerName) continue;
    const value = ingressClass.metadata.annotations?.[nginxAnnotationsClassAnnotation];
    if (value === undefined || classNginxSetting(ingressClass) !== undefined) continue;
    diagnostics.push({
      object: refOf(ingressClass),
      severity: 'Warning',
      reason: Reason.InvalidAnnotation,
      message: `annotation ${nginxAnnotationsClassAnnotation} has invalid value ${JSON.stringify(value.slice(0, 100))}; accepted values: "true", "false"; the --nginx-annotations flag decides for this class`,
    });
  }
}

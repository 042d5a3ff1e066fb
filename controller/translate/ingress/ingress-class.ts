// Which Ingresses this controller serves (networking/v1 IngressClass semantics).
import type { Ingress, IngressClass } from '../shared/kube-objects.js';
import type { TranslateOptions } from '../shared/options.js';

/** Legacy (pre-IngressClass) way to pick a controller; still honoured when spec.ingressClassName is unset. */
export const legacyIngressClassAnnotation = 'kubernetes.io/ingress.class';
/** Marks an IngressClass as the one for Ingresses that name no class. */
export const defaultIngressClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';

export type ClassOptions = Pick<TranslateOptions, 'ingressClassName' | 'controllerName'>;

function isOurClass(ingressClass: IngressClass, options: ClassOptions): boolean {
  return ingressClass.spec?.controller === options.controllerName;
}

function isDefaultClass(ingressClass: IngressClass): boolean {
  return ingressClass.metadata.annotations?.[defaultIngressClassAnnotation] === 'true';
}

/**
 * True when the Ingress belongs to this controller:
 * - spec.ingressClassName names an IngressClass whose spec.controller is ours (whatever the class is called);
 * - else the legacy annotation equals our class name (--ingress-class), or names an IngressClass whose
 *   spec.controller is ours (a class `nginx` created for migrated ingress-nginx Ingresses, which still carry
 *   `kubernetes.io/ingress.class: nginx`; networking/v1 asks controllers to keep honouring the annotation);
 * - else (no class at all) one of our IngressClasses is marked default.
 * An Ingress naming a missing class or another controller's class is not ours.
 */
export function isServedByUs(
  ingress: Ingress,
  ingressClasses: readonly IngressClass[],
  options: ClassOptions,
): boolean {
  const className = ingress.spec?.ingressClassName;
  if (className !== undefined && className !== '') {
    const named = ingressClasses.find((c) => c.metadata.name === className);
    return named !== undefined && isOurClass(named, options);
  }
  const legacy = ingress.metadata.annotations?.[legacyIngressClassAnnotation];
  if (legacy !== undefined) {
    return legacy === options.ingressClassName || ingressClasses.some((c) => c.metadata.name === legacy && isOurClass(c, options));
  }
  return ingressClasses.some((c) => isOurClass(c, options) && isDefaultClass(c));
}

/**
 * The IngressClass an Ingress of ours belongs to: the one spec.ingressClassName names, else the one the legacy
 * annotation names (if it exists), else our default class (the first by name when several are marked default).
 */
export function ingressClassOf(ingress: Ingress, ingressClasses: readonly IngressClass[], options: ClassOptions): IngressClass | undefined {
  const className = ingress.spec?.ingressClassName;
  const named = className !== undefined && className !== '' ? className : ingress.metadata.annotations?.[legacyIngressClassAnnotation];
  if (named !== undefined) return ingressClasses.find((c) => c.metadata.name === named && isOurClass(c, options));
  return ingressClasses
    .filter((c) => isOurClass(c, options) && isDefaultClass(c))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))[0];
}

// This controller's own Ingress annotations.
import type { Diagnostic } from './diagnostics.js';
import { type Ingress, refOf } from './kube-objects.js';
import { annotationPrefix } from './options.js';
import { Reason } from './reasons.js';

/** "false" keeps plain-HTTP routes for hosts that have TLS instead of redirecting them to https. */
export const sslRedirectAnnotation = `${annotationPrefix}ssl-redirect`;

export interface IngressAnnotations {
  sslRedirect: boolean;
}

function parseBoolean(
  ingress: Ingress,
  key: string,
  defaultValue: boolean,
  diagnostics: Diagnostic[],
): boolean {
  const value = ingress.metadata.annotations?.[key];
  if (value === undefined) return defaultValue;
  if (value === 'true') return true;
  if (value === 'false') return false;
  diagnostics.push({
    object: refOf(ingress),
    severity: 'Warning',
    reason: Reason.InvalidAnnotation,
    message:
      `annotation ${key} has invalid value ${JSON.stringify(value)}; accepted values: "true", "false"; ` +
      `using the default "${String(defaultValue)}"`,
  });
  return defaultValue;
}

/** Reads the annotations, reporting invalid values and falling back to their defaults. */
export function parseAnnotations(ingress: Ingress, diagnostics: Diagnostic[]): IngressAnnotations {
  return { sslRedirect: parseBoolean(ingress, sslRedirectAnnotation, true, diagnostics) };
}

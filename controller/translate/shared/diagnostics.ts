import type { ObjectRef } from './kube-objects.js';

/**
 * A problem found while translating, attached to the object that caused it. `reason` is a stable CamelCase
 * string (used as the Kubernetes Event reason and as a metric label); `message` is for humans.
 */
export interface Diagnostic {
  object: ObjectRef;
  severity: 'Warning' | 'Normal';
  reason: string;
  message: string;
}

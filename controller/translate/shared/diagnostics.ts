import type { SourceRef } from '../../../ir/index.js';

/**
 * A problem found while translating, attached to the object that caused it. `reason` is a stable CamelCase
 * string (used as the Kubernetes Event reason and as a metric label); `message` is for humans.
 */
export interface Diagnostic {
  /** Any kind's object (the translators report on Ingresses, their Services and Secrets, and Gateway API objects). */
  object: SourceRef;
  severity: 'Warning' | 'Normal';
  reason: string;
  message: string;
}

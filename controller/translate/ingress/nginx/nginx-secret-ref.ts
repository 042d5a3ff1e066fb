// The Secret an ingress-nginx annotation names (`namespace/name`, or `name` in the Ingress's namespace), and the
// tenant rule for it: an Ingress may only name Secrets of its own namespace unless the controller allows more
// (--nginx-allow-cross-namespace-resources, as ingress-nginx's allow-cross-namespace-resources).
import { namespaceOf } from '../../shared/kinds.js';
import type { Ingress } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import type { NginxLayerOptions } from './nginx-auth.js';

/** A Secret name (DNS subdomain). */
const objectName = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export type NginxSecretRef = { namespace: string; name: string } | { reason: string; problem: string };

/** The Secret `value` names, or why it may not be used (`problem` names the Secret, never anything it holds). */
export function readNginxSecretRef(ingress: Ingress, value: string, layer: NginxLayerOptions): NginxSecretRef {
  const own = namespaceOf(ingress.metadata);
  const parts = value.trim().split('/');
  const [namespace, name] = parts.length === 2 ? [parts[0] === '' ? own : parts[0], parts[1]] : [own, parts[0]];
  if (parts.length > 2 || namespace === undefined || name === undefined || !objectName.test(namespace) || !objectName.test(name)) {
    return { reason: Reason.InvalidAnnotation, problem: `has invalid value ${JSON.stringify(value.slice(0, 100))}; accepted: a Secret name or "namespace/name"` };
  }
  if (namespace !== own && layer.allowCrossNamespace !== true) {
    // The Secret is not looked up: the answer is the same whether it exists or not.
    return {
      reason: Reason.SecretNamespaceRefused,
      problem: `names Secret ${namespace}/${name} of namespace ${JSON.stringify(namespace)}; an Ingress may only use Secrets of its own namespace (unless the controller runs with --nginx-allow-cross-namespace-resources)`,
    };
  }
  return { namespace, name };
}

// A Gateway's backend client certificate (spec.tls.backend.clientCertificateRef): the certificate and key it
// presents to the backends it reaches over TLS (those a BackendTLSPolicy targets). A Secret of the Gateway's
// namespace, or of another one whose ReferenceGrant lets Gateways of that namespace refer to it, holding a usable
// kubernetes.io/tls certificate. What is wrong becomes the Gateway's ResolvedRefs condition (the spec's reasons),
// saying what is wrong and never what the Secret holds.
import type { TlsSecretIR } from '../../../ir/index.js';
import { namespaceOf } from '../shared/kinds.js';
import type { Gateway } from '../shared/kube-objects.js';
import { secretResourceName, validateTlsSecret } from '../shared/tls-secret.js';
import { gatewayGroup } from './backend-refs.js';
import type { CertificateContext } from './listener-certificates.js';
import { GatewayReason } from './reasons.js';
import { isGranted } from './reference-grants.js';

export type GatewayClientCertificate =
  | { certificate: TlsSecretIR }
  /** `reason`: InvalidClientCertificateRef or RefNotPermitted (the spec's Gateway ResolvedRefs reasons). */
  | { problem: { reason: string; message: string } };

/** undefined: the Gateway names no backend client certificate. */
export function resolveGatewayClientCertificate(gateway: Gateway, context: CertificateContext): GatewayClientCertificate | undefined {
  const ref = gateway.spec?.tls?.backend?.clientCertificateRef;
  if (ref === undefined) return undefined;
  const gatewayNamespace = namespaceOf(gateway.metadata);
  const namespace = ref.namespace ?? gatewayNamespace;
  const name = secretResourceName(namespace, ref.name);
  const what = `tls.backend.clientCertificateRef (${name})`;
  const group = ref.group ?? '';
  const kind = ref.kind ?? 'Secret';
  const problem = (reason: string, message: string): GatewayClientCertificate => ({ problem: { reason, message: `${what}: ${message}` } });
  if (group !== '' || kind !== 'Secret') return problem(GatewayReason.InvalidClientCertificateRef, `kind ${kind}${group === '' ? '' : `.${group}`} is not supported; use a Secret`);
  if (namespace !== gatewayNamespace && !isGranted(context.grants, { from: { group: gatewayGroup, kind: 'Gateway', namespace: gatewayNamespace }, to: { group: '', kind: 'Secret', namespace, name: ref.name } })) {
    return problem(GatewayReason.RefNotPermitted, `no ReferenceGrant in ${namespace} lets Gateways of ${gatewayNamespace} refer to it`);
  }
  context.referenced.add(name);
  const secret = context.secrets.get(name);
  if (secret === undefined) return problem(GatewayReason.InvalidClientCertificateRef, 'secret not found (a kubernetes.io/tls Secret with tls.crt and tls.key)');
  const validated = validateTlsSecret(secret);
  if (!validated.valid) return problem(GatewayReason.InvalidClientCertificateRef, validated.error);
  return { certificate: validated.secret };
}

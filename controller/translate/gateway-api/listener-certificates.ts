// The certificate of a terminating listener (HTTPS; TLS with mode Terminate): the first of its certificateRefs that is
// a Secret it may read (its Gateway's namespace, or another one whose ReferenceGrant lets Gateways of that namespace
// refer to it) holding a usable kubernetes.io/tls certificate (the Ingress side's checks). Each refused ref is
// reported with the spec's reason, saying what is wrong and never what the Secret holds.
import type { TlsSecretIR } from '../../../ir/index.js';
import { namespaceOf } from '../shared/kinds.js';
import type { Gateway, GatewayListener, ListenerSet, ReferenceGrant, Secret } from '../shared/kube-objects.js';
import { secretResourceName, validateTlsSecret } from '../shared/tls-secret.js';
import { gatewayGroup } from './backend-refs.js';
import type { ListenerRefusal } from './listener-protocols.js';
import { GatewayReason } from './reasons.js';
import { isGranted } from './reference-grants.js';

export interface CertificateContext {
  /** Secrets by `namespace/name`. */
  secrets: ReadonlyMap<string, Secret>;
  grants: readonly ReferenceGrant[];
  /** Every Secret a permitted ref names (existing or not), so a Secret that comes later makes a new build. */
  referenced: Set<string>;
}

export interface ResolvedCertificate {
  /** Absent: no usable certificate, the listener is not served. */
  certificate?: TlsSecretIR;
  /** ResolvedRefs=False problems, in ref order (InvalidCertificateRef, RefNotPermitted). */
  problems: ListenerRefusal[];
}

export function indexSecrets(secrets: readonly Secret[]): Map<string, Secret> {
  return new Map(secrets.map((s) => [secretResourceName(namespaceOf(s.metadata), s.metadata.name), s]));
}

/** `holder`: the Gateway or ListenerSet the listener is written in; its namespace and kind are what a ReferenceGrant names. */
export function resolveCertificate(holder: Gateway | ListenerSet, listener: GatewayListener, context: CertificateContext): ResolvedCertificate {
  const gatewayNamespace = namespaceOf(holder.metadata);
  const refs = listener.tls?.certificateRefs ?? [];
  const refused: { reason: string; message: string }[] = [];
  let certificate: TlsSecretIR | undefined;
  for (const [i, ref] of refs.entries()) {
    const namespace = ref.namespace ?? gatewayNamespace;
    const name = secretResourceName(namespace, ref.name);
    const what = `certificateRefs[${i}] (${name})`;
    if ((ref.group ?? '') !== '' || (ref.kind ?? 'Secret') !== 'Secret') {
      refused.push({ reason: GatewayReason.InvalidCertificateRef, message: `${what}: kind ${ref.kind ?? 'Secret'}${(ref.group ?? '') === '' ? '' : `.${ref.group}`} is not supported; use a Secret` });
      continue;
    }
    if (namespace !== gatewayNamespace && !isGranted(context.grants, { from: { group: gatewayGroup, kind: holder.kind, namespace: gatewayNamespace }, to: { group: '', kind: 'Secret', namespace, name: ref.name } })) {
      refused.push({ reason: GatewayReason.RefNotPermitted, message: `${what}: no ReferenceGrant in ${namespace} lets ${holder.kind}s of ${gatewayNamespace} refer to it` });
      continue;
    }
    context.referenced.add(name);
    const secret = context.secrets.get(name);
    if (secret === undefined) {
      refused.push({ reason: GatewayReason.InvalidCertificateRef, message: `${what}: secret not found` });
      continue;
    }
    const validated = validateTlsSecret(secret);
    if (!validated.valid) {
      refused.push({ reason: GatewayReason.InvalidCertificateRef, message: `${what}: ${validated.error}` });
      continue;
    }
    certificate ??= validated.secret;
  }
  if (refs.length === 0) refused.push({ reason: GatewayReason.InvalidCertificateRef, message: 'a terminating listener needs tls.certificateRefs' });
  const where = `listener ${listener.name} (port ${listener.port})`;
  const problems = refused.map((r) => ({
    condition: 'ResolvedRefs' as const,
    reason: r.reason,
    message: `${where}: ${r.message}; ${certificate === undefined ? 'the listener is not served' : 'the listener uses another certificate'}`,
  }));
  return { ...(certificate === undefined ? {} : { certificate }), problems };
}

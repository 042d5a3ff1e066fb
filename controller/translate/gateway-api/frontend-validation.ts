// Client-certificate validation on a Gateway's HTTPS listeners (spec.tls.frontend, GEP-91): the configuration of a
// listener's port (its perPort entry, else `default`) with its caCertificateRefs resolved into one trusted CA bundle
// (ConfigMaps' `ca.crt`; in another namespace only with a ReferenceGrant there), as the TLS server's
// ClientValidationIR: AllowValidOnly -> `require` (the handshake fails without a certificate the CAs signed),
// AllowInsecureFallback -> `request` (asked for, never required: the backend decides). The configuration is per port
// because one connection may carry requests for every listener of its port (HTTP/2 coalescing): per listener, a
// client could pass another listener's check and then ask for this one's host. A listener whose refs are all
// unusable is refused (Accepted=False, NoValidCACertificate) rather than served without the check.
import type { CertificateAuthorityIR, ClientValidationIR } from '../../../ir/index.js';
import { readPemCertificates } from '../shared/ca-secret.js';
import { namespaceOf } from '../shared/kinds.js';
import type { ConfigMap, FrontendTLSValidation, Gateway, GatewayListener, ReferenceGrant } from '../shared/kube-objects.js';
import { gatewayGroup } from './backend-refs.js';
import type { ListenerRefusal } from './listener-protocols.js';
import { GatewayReason } from './reasons.js';
import { isGranted } from './reference-grants.js';

export interface FrontendValidationContext {
  /** ConfigMaps by `namespace/name`. */
  configMaps: ReadonlyMap<string, ConfigMap>;
  grants: readonly ReferenceGrant[];
  /** Every ConfigMap a permitted ref names (existing or not), so one that comes or changes later makes a new build. */
  referenced: Set<string>;
}

export interface ResolvedFrontendValidation {
  /** Absent: the listener asks for no client certificate (no config for its port, or it is refused). */
  clientValidation?: ClientValidationIR;
  /** The trusted CAs `clientValidation` names (served over SDS). */
  certificateAuthority?: CertificateAuthorityIR;
  /** ResolvedRefs=False: the first unusable ref (the listener may still be served with the others). */
  problem?: ListenerRefusal;
  /** Accepted=False: no ref is usable, or the mode is unknown; the listener is not served. */
  refusal?: ListenerRefusal;
}

export const frontendValidationModes: Readonly<Record<string, ClientValidationIR['mode']>> = { AllowValidOnly: 'require', AllowInsecureFallback: 'request' };

export function indexConfigMaps(configMaps: readonly ConfigMap[]): Map<string, ConfigMap> {
  return new Map(configMaps.map((c) => [`${namespaceOf(c.metadata)}/${c.metadata.name}`, c]));
}

/** The validation an HTTPS listener on `port` takes, and where the spec says it (for messages and the CA's name). */
export function frontendValidationOf(gateway: Gateway, port: number): { validation: FrontendTLSValidation; field: string; scope: string } | undefined {
  const frontend = gateway.spec?.tls?.frontend;
  if (frontend === undefined) return undefined;
  const perPort = (frontend.perPort ?? []).find((p) => p.port === port);
  // A perPort entry overrides the default, also when it has no validation (that port then asks for none).
  if (perPort !== undefined) return perPort.tls?.validation === undefined ? undefined : { validation: perPort.tls.validation, field: `spec.tls.frontend.perPort[port ${port}]`, scope: `port-${port}` };
  return frontend.default?.validation === undefined ? undefined : { validation: frontend.default.validation, field: 'spec.tls.frontend.default', scope: 'default' };
}

/** Whether any validation of the Gateway is AllowInsecureFallback (its InsecureFrontendValidationMode condition). */
export function allowsInsecureFallback(gateway: Gateway): boolean {
  const frontend = gateway.spec?.tls?.frontend;
  return [frontend?.default?.validation, ...(frontend?.perPort ?? []).map((p) => p.tls?.validation)].some((v) => v?.mode === 'AllowInsecureFallback');
}

/** SDS name of the trusted CAs of one validation of a Gateway (a name no Secret CA has: those are `ns/name/ca.crt`). */
export function frontendCertificateAuthorityName(gateway: Gateway, scope: string): string {
  return `gateway/${namespaceOf(gateway.metadata)}/${gateway.metadata.name}/frontend-${scope}/ca.crt`;
}

export function resolveFrontendValidation(gateway: Gateway, listener: GatewayListener, context: FrontendValidationContext): ResolvedFrontendValidation {
  const found = frontendValidationOf(gateway, listener.port);
  if (found === undefined) return {};
  const { validation, field, scope } = found;
  const where = `listener ${listener.name} (port ${listener.port})`;
  const gatewayNamespace = namespaceOf(gateway.metadata);
  const mode = frontendValidationModes[validation.mode ?? 'AllowValidOnly'];
  if (mode === undefined) {
    return { refusal: { condition: 'Accepted', reason: GatewayReason.UnsupportedValue, message: `${where}: ${field}.validation.mode ${validation.mode} is not supported; use AllowValidOnly or AllowInsecureFallback` } };
  }
  const refs = validation.caCertificateRefs ?? [];
  const problems: ListenerRefusal[] = [];
  const bundles: string[] = [];
  for (const [i, ref] of refs.entries()) {
    const namespace = ref.namespace ?? gatewayNamespace;
    const kind = ref.kind ?? '';
    const what = `${field}.validation.caCertificateRefs[${i}] (${kind === '' ? '' : `${kind} `}${namespace}/${ref.name})`;
    const refuse = (reason: string, message: string): void => {
      problems.push({ condition: 'ResolvedRefs', reason, message: `${where}: ${what}: ${message}` });
    };
    if ((ref.group ?? '') !== '' || kind !== 'ConfigMap') {
      refuse(GatewayReason.InvalidCACertificateKind, `kind ${kind === '' ? '(none)' : kind}${(ref.group ?? '') === '' ? '' : `.${ref.group}`} is not supported; use a ConfigMap with the CA certificates in "ca.crt"`);
      continue;
    }
    if (namespace !== gatewayNamespace && !isGranted(context.grants, { from: { group: gatewayGroup, kind: 'Gateway', namespace: gatewayNamespace }, to: { group: '', kind: 'ConfigMap', namespace, name: ref.name } })) {
      refuse(GatewayReason.RefNotPermitted, `no ReferenceGrant in ${namespace} lets Gateways of ${gatewayNamespace} refer to it`);
      continue;
    }
    const key = `${namespace}/${ref.name}`;
    context.referenced.add(key);
    const configMap = context.configMaps.get(key);
    if (configMap === undefined) {
      refuse(GatewayReason.InvalidCACertificateRef, 'ConfigMap not found');
      continue;
    }
    const crt = configMap.data?.['ca.crt'];
    if (crt === undefined || crt === '') {
      refuse(GatewayReason.InvalidCACertificateRef, 'has no data "ca.crt" (the trusted CA certificates, PEM)');
      continue;
    }
    const read = readPemCertificates(crt);
    if ('error' in read) {
      refuse(GatewayReason.InvalidCACertificateRef, read.error);
      continue;
    }
    bundles.push(read.pem);
  }
  const problem = problems[0];
  if (bundles.length === 0) {
    const detail = problem === undefined ? `${field}.validation has no caCertificateRefs` : 'none of its caCertificateRefs is usable';
    return {
      ...(problem === undefined ? {} : { problem }),
      refusal: { condition: 'Accepted', reason: GatewayReason.NoValidCACertificate, message: `${where}: ${detail}; the listener is not served rather than served without checking client certificates` },
    };
  }
  const certificateAuthority: CertificateAuthorityIR = { name: frontendCertificateAuthorityName(gateway, scope), certificates: bundles.join('') };
  return { clientValidation: { mode, certificateAuthority: certificateAuthority.name }, certificateAuthority, ...(problem === undefined ? {} : { problem }) };
}

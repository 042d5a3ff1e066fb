// BackendTLSPolicy (Gateway API v1, GEP-1897): which Service ports a Gateway connects to over TLS, the server name
// it sends (SNI), the CAs and names the backend's certificate must have. Pure: policies, ConfigMaps and Secrets ->
// per Service port the upstream TLS settings (ir/ UpstreamTlsIR) or why the port cannot be reached, and the
// policies' status as data (ancestors: the Gateways whose routes use a targeted Service).
//
// Targets are local by the spec (LocalPolicyTargetReferenceWithSectionName): a policy only ever changes how
// Services of its own namespace are reached, so it cannot touch another tenant's backends.
import { type CertificateAuthorityIR, type SubjectAltNameIR, type UpstreamTlsIR, compareStrings } from '../../../ir/index.js';
import { readCertificateAuthority, readPemCertificates } from '../shared/ca-secret.js';
import { namespaceOf } from '../shared/kinds.js';
import { type BackendTLSPolicy, type ClusterState, type ConfigMap, type ObjectRef, objectsOf, refOf } from '../shared/kube-objects.js';
import { compareByAge } from '../shared/ordering.js';
import type { Secret } from '../shared/kube-objects.js';
import { type PolicyAncestorStatusData, type PolicyStatusData, type StatusCondition, condition, generationOf } from './status-data.js';

/** What a policy does to the Service ports it applies to. */
export type BackendTlsSettings =
  /** `key`: names the settings in the cluster's name, so two policies never share one cluster. */
  | { valid: true; policy: ObjectRef<'BackendTLSPolicy'>; tls: UpstreamTlsIR; key: string }
  /** The spec: connections to the port fail (5xx), never fall back to plaintext. */
  | { valid: false; policy: ObjectRef<'BackendTLSPolicy'>; message: string };

/** The upstream TLS a Service port is reached with, from the policy that applies to it, or undefined (plaintext). */
export type BackendTlsLookup = (namespace: string, service: string, port: { port: number; name?: string }) => BackendTlsSettings | undefined;

export interface BackendTlsPolicies {
  lookup: BackendTlsLookup;
  /** The trusted CAs of the valid policies (SDS validation contexts), sorted by name. */
  certificateAuthorities: CertificateAuthorityIR[];
  /** `namespace/name` of every ConfigMap / Secret a policy names as CA certificates, existing or not, sorted. */
  configMaps: string[];
  secrets: string[];
  /** The policies' status, given per Service (`namespace/name`) the Gateways whose routes send to it. */
  status(gatewaysByService: ReadonlyMap<string, ReadonlySet<string>>, controllerName: string): PolicyStatusData[];
}

/** SDS name of a policy's trusted CAs (one validation context per policy, its refs' certificates together). */
export function policyCertificateAuthorityName(namespace: string, name: string): string {
  return `backendtlspolicy/${namespace}/${name}/ca.crt`;
}

interface PolicyVerdict {
  policy: BackendTLSPolicy;
  /** Accepted=False: Conflicted, NoValidCACertificate, Invalid. */
  refusal?: { reason: string; message: string };
  /** ResolvedRefs=False. */
  unresolved?: { reason: string; message: string };
  settings: BackendTlsSettings;
}

/** The Gateway API's group (backend-refs.ts has it too, but imports this file). */
const gatewayGroup = 'gateway.networking.k8s.io';

/** The spec's limit on status.ancestors. */
const maxAncestors = 16;

function targetKey(namespace: string, service: string, sectionName: string | undefined): string {
  return `${namespace}/${service}/${sectionName ?? ''}`;
}

/** The policy's CAs (one validation context), its problems, and what it reads. */
function resolveValidation(
  policy: BackendTLSPolicy,
  configMaps: ReadonlyMap<string, ConfigMap>,
  secrets: ReadonlyMap<string, Secret>,
  read: { configMaps: Set<string>; secrets: Set<string> },
): { ca?: CertificateAuthorityIR; refusal?: PolicyVerdict['refusal']; unresolved?: PolicyVerdict['unresolved'] } {
  const namespace = namespaceOf(policy.metadata);
  const validation = policy.spec?.validation ?? {};
  const refs = validation.caCertificateRefs ?? [];
  const wellKnown = validation.wellKnownCACertificates ?? '';
  if (wellKnown !== '') {
    // The spec: an implementation that does not support the field (or the value) sets Accepted False, Invalid.
    return { refusal: { reason: 'Invalid', message: `wellKnownCACertificates ${JSON.stringify(wellKnown)} is not supported; name the CA certificates in caCertificateRefs` } };
  }
  if (refs.length === 0) return { refusal: { reason: 'Invalid', message: 'validation names no caCertificateRefs' } };
  const problems: { reason: string; message: string }[] = [];
  const certificates: string[] = [];
  for (const [i, ref] of refs.entries()) {
    const group = ref.group ?? '';
    const kind = ref.kind ?? '';
    const what = `caCertificateRefs[${i}] (${kind}${group === '' ? '' : `.${group}`} ${namespace}/${ref.name})`;
    if (group !== '' || (kind !== 'ConfigMap' && kind !== 'Secret')) {
      problems.push({ reason: 'InvalidKind', message: `${what}: kind ${kind}${group === '' ? '' : `.${group}`} is not supported; use a ConfigMap (or a Secret) with "ca.crt"` });
      continue;
    }
    const key = `${namespace}/${ref.name}`;
    if (kind === 'ConfigMap') {
      read.configMaps.add(key);
      const configMap = configMaps.get(key);
      if (configMap === undefined) {
        problems.push({ reason: 'InvalidCACertificateRef', message: `${what}: configmap not found` });
        continue;
      }
      const crt = configMap.data?.['ca.crt'];
      if (crt === undefined || crt === '') {
        problems.push({ reason: 'InvalidCACertificateRef', message: `${what}: has no data "ca.crt" (the trusted CA certificates, PEM)` });
        continue;
      }
      const pem = readPemCertificates(crt.replace(/^\uFEFF/, ''));
      if ('error' in pem) problems.push({ reason: 'InvalidCACertificateRef', message: `${what}: ${pem.error}` });
      else certificates.push(pem.pem);
      continue;
    }
    read.secrets.add(key);
    const secret = secrets.get(key);
    if (secret === undefined) {
      problems.push({ reason: 'InvalidCACertificateRef', message: `${what}: secret not found (only kubernetes.io/tls Secrets are watched unless nginx annotations are on)` });
      continue;
    }
    const ca = readCertificateAuthority(secret);
    if ('error' in ca) problems.push({ reason: 'InvalidCACertificateRef', message: `${what}: ${ca.error}` });
    else certificates.push(ca.ca.certificates);
  }
  const [first] = problems;
  const unresolved = first === undefined ? undefined : { reason: first.reason, message: problems.map((p) => p.message).join('; ') };
  if (certificates.length === 0) {
    return { refusal: { reason: 'NoValidCACertificate', message: 'none of the caCertificateRefs can be used; connections to the targeted Services fail' }, ...(unresolved === undefined ? {} : { unresolved }) };
  }
  return { ca: { name: policyCertificateAuthorityName(namespace, policy.metadata.name), certificates: certificates.join('') }, ...(unresolved === undefined ? {} : { unresolved }) };
}

/** The names the backend's certificate must carry: subjectAltNames, or else the hostname (the spec). */
function subjectAltNamesOf(policy: BackendTLSPolicy): SubjectAltNameIR[] {
  const validation = policy.spec?.validation ?? {};
  const sans: SubjectAltNameIR[] = [];
  for (const san of validation.subjectAltNames ?? []) {
    if (san.type === 'Hostname' && san.hostname !== undefined && san.hostname !== '') sans.push({ kind: 'dns', value: san.hostname });
    else if (san.type === 'URI' && san.uri !== undefined && san.uri !== '') sans.push({ kind: 'uri', value: san.uri });
  }
  if (sans.length > 0) return sans;
  return validation.hostname === undefined || validation.hostname === '' ? [] : [{ kind: 'dns', value: validation.hostname }];
}

export function resolveBackendTlsPolicies(state: ClusterState, secrets: ReadonlyMap<string, Secret>): BackendTlsPolicies {
  const configMaps = new Map(objectsOf(state, 'ConfigMap').map((c) => [`${namespaceOf(c.metadata)}/${c.metadata.name}`, c]));
  const read = { configMaps: new Set<string>(), secrets: new Set<string>() };
  // Oldest first, then namespace/name: the spec's precedence between policies of one target.
  const policies = [...objectsOf(state, 'BackendTLSPolicy')].sort(compareByAge);
  const winners = new Map<string, PolicyVerdict>();
  const verdicts: PolicyVerdict[] = [];
  const certificateAuthorities: CertificateAuthorityIR[] = [];
  for (const policy of policies) {
    const namespace = namespaceOf(policy.metadata);
    const ref = refOf(policy);
    const validation = resolveValidation(policy, configMaps, secrets, read);
    const targets = (policy.spec?.targetRefs ?? []).filter((t) => (t.group ?? '') === '' && t.kind === 'Service');
    const unsupported = (policy.spec?.targetRefs ?? []).filter((t) => !((t.group ?? '') === '' && t.kind === 'Service'));
    let refusal = validation.refusal;
    if (refusal === undefined && targets.length === 0) {
      refusal = { reason: 'Invalid', message: `targetRefs name no Service${unsupported.length > 0 ? ` (${unsupported.map((t) => `${t.kind}.${t.group}`).join(', ')} not supported)` : ''}` };
    }
    const settings: BackendTlsSettings =
      validation.ca === undefined || refusal !== undefined
        ? { valid: false, policy: ref, message: `BackendTLSPolicy ${namespace}/${policy.metadata.name} is not accepted (${refusal?.message ?? 'no usable CA certificates'})` }
        : {
            valid: true,
            policy: ref,
            key: `${namespace}/${policy.metadata.name}`,
            tls: {
              ...(policy.spec?.validation?.hostname ? { sni: policy.spec.validation.hostname } : {}),
              verify: { certificateAuthority: validation.ca.name, subjectAltNames: subjectAltNamesOf(policy) },
            },
          };
    const verdict: PolicyVerdict = { policy, settings, ...(validation.unresolved === undefined ? {} : { unresolved: validation.unresolved }) };
    // Conflicts: an older policy (or one first by namespace/name) already holds one of this policy's targets.
    const keys = targets.map((t) => targetKey(namespace, t.name, t.sectionName));
    const holder = keys.map((k) => winners.get(k)).find((w) => w !== undefined);
    if (holder !== undefined) {
      verdict.refusal = { reason: 'Conflicted', message: `BackendTLSPolicy ${namespaceOf(holder.policy.metadata)}/${holder.policy.metadata.name} is older (or first by name) and targets the same Service port` };
    } else {
      if (refusal !== undefined) verdict.refusal = refusal;
      for (const k of keys) winners.set(k, verdict);
      if (settings.valid && validation.ca !== undefined) certificateAuthorities.push(validation.ca);
    }
    verdicts.push(verdict);
  }

  const lookup: BackendTlsLookup = (namespace, service, port) =>
    (port.name === undefined || port.name === '' ? undefined : winners.get(targetKey(namespace, service, port.name)))?.settings ?? winners.get(targetKey(namespace, service, undefined))?.settings;

  const status = (gatewaysByService: ReadonlyMap<string, ReadonlySet<string>>, controllerName: string): PolicyStatusData[] =>
    verdicts
      .map((v): PolicyStatusData => {
        const namespace = namespaceOf(v.policy.metadata);
        const generation = generationOf(v.policy);
        const gateways = new Set<string>();
        for (const t of v.policy.spec?.targetRefs ?? []) for (const g of gatewaysByService.get(`${namespace}/${t.name}`) ?? []) gateways.add(g);
        const conditions: StatusCondition[] = [
          v.refusal === undefined
            ? condition('Accepted', 'True', 'Accepted', 'Policy accepted', generation)
            : condition('Accepted', 'False', v.refusal.reason, v.refusal.message, generation),
          v.unresolved === undefined
            ? condition('ResolvedRefs', 'True', 'ResolvedRefs', 'Resolved all the CA certificate references', generation)
            : condition('ResolvedRefs', 'False', v.unresolved.reason, v.unresolved.message, generation),
        ];
        const ancestors: PolicyAncestorStatusData[] = [...gateways]
          .sort(compareStrings)
          .slice(0, maxAncestors)
          .map((key) => {
            const slash = key.indexOf('/');
            return { ancestorRef: { group: gatewayGroup, kind: 'Gateway', namespace: key.slice(0, slash), name: key.slice(slash + 1) }, controllerName, conditions };
          });
        return { ref: refOf(v.policy), ancestors };
      })
      .sort((a, b) => compareStrings(`${a.ref.namespace}/${a.ref.name}`, `${b.ref.namespace}/${b.ref.name}`));

  return {
    lookup,
    certificateAuthorities: certificateAuthorities.sort((a, b) => compareStrings(a.name, b.name)),
    configMaps: [...read.configMaps].sort(compareStrings),
    secrets: [...read.secrets].sort(compareStrings),
    status,
  };
}

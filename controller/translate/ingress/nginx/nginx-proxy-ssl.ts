// ingress-nginx proxy-ssl-* (--nginx-annotations): how the proxy speaks TLS to an Ingress's HTTPS backends
// (backend-protocol HTTPS or GRPCS). proxy-ssl-secret names a Secret with the trusted CAs (`ca.crt`) and/or the
// certificate the proxy presents (`tls.crt`, `tls.key`); proxy-ssl-verify checks the backend's certificate against
// those CAs and the name proxy-ssl-name (nginx's default name is $proxy_host, "upstream_balancer" in ingress-nginx);
// proxy-ssl-server-name sends that name as SNI; proxy-ssl-verify-depth, -ciphers and -protocols as nginx reads them.
// Each Ingress's settings go on a cluster variant of its own (as every location of ingress-nginx has its own
// proxy_ssl_* directives). A Secret that cannot be used denies the Ingress's paths (503), as ingress-nginx denies
// the location; a plain-HTTP backend is reached as before (nginx's proxy_ssl_* do nothing for http://).
import { compareStrings, type CertificateAuthorityIR, type ClusterIR, type TlsSecretIR, type TlsVersionIR, type UpstreamTlsIR } from '../../../../ir/index.js';
import { readCertificateAuthority } from '../../shared/ca-secret.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { namespaceOf } from '../../shared/kinds.js';
import { type Ingress, refKey, refOf, type Secret } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { validateKeyPairSecret } from '../../shared/tls-secret.js';
import { changedRoute, type RoutePass } from '../collected-routes.js';
import { nginxAnnotationPrefix } from './catalog.js';
import type { NginxLayerOptions } from './nginx-auth.js';
import { locationDeniedPage } from './nginx-auth.js';
import { boringSslCipherRules } from './nginx-proxy-ssl-ciphers.js';
import { readNginxSecretRef } from './nginx-secret-ref.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

/** Names (after the prefix) this module reads. */
export const nginxProxySslAnnotations = ['proxy-ssl-secret', 'proxy-ssl-verify', 'proxy-ssl-verify-depth', 'proxy-ssl-name', 'proxy-ssl-server-name', 'proxy-ssl-ciphers', 'proxy-ssl-protocols'] as const;

/** nginx's $proxy_host in ingress-nginx (`proxy_pass http://upstream_balancer`): the default proxy_ssl_name. */
export const nginxDefaultProxySslName = 'upstream_balancer';

/** What the proxy-ssl annotations of one Ingress ask for, before the Secret is looked up. */
export type NginxProxySslSettings =
  | {
      secret: { namespace: string; name: string };
      verify: boolean;
      verifyDepth: number;
      /** proxy_ssl_name: checked against the certificate (verify), sent as SNI (serverName). */
      name: string;
      serverName: boolean;
      minVersion: TlsVersionIR;
      maxVersion: TlsVersionIR;
      cipherSuites?: string[];
    }
  | { refused: string };

/** Parsed annotations of an Ingress with proxy-ssl (nginx-annotations.ts puts it there). */
export interface WithNginxProxySsl {
  nginxProxySsl?: NginxProxySslSettings;
}

/** A host name nginx takes as proxy_ssl_name (no variables). */
const serverName = /^[A-Za-z0-9*]([A-Za-z0-9.-]{0,252})$/;

/**
 * Reads the proxy-ssl annotations of one Ingress (ingress-nginx's defaults: verify off, depth 1, protocols TLSv1.2,
 * ciphers DEFAULT, server name off). Invalid values are reported and their default used, as ingress-nginx does.
 */
export function readNginxProxySsl(ingress: Ingress, diagnostics: Diagnostic[], layer: NginxLayerOptions = {}): NginxProxySslSettings | undefined {
  const raw = (name: string): string | undefined => ingress.metadata.annotations?.[n(name)];
  const report = (reason: string, message: string): void => void diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message });
  const secretValue = raw('proxy-ssl-secret');
  if (secretValue === undefined) {
    for (const name of nginxProxySslAnnotations.filter((a) => a !== 'proxy-ssl-secret' && raw(a) !== undefined)) {
      report(Reason.InvalidAnnotation, `annotation ${n(name)} ignored: it needs ${n('proxy-ssl-secret')}`);
    }
    return undefined;
  }
  const ref = readNginxSecretRef(ingress, secretValue, layer);
  if ('problem' in ref) {
    report(ref.reason, `annotation ${n('proxy-ssl-secret')} ${ref.problem}; the Ingress's paths answer 503 until it is fixed`);
    return { refused: `${n('proxy-ssl-secret')} unusable` };
  }
  const onOff = (name: string): boolean => {
    const value = raw(name)?.trim();
    if (value === undefined) return false;
    if (value !== 'on' && value !== 'off') report(Reason.InvalidAnnotation, `annotation ${n(name)} has invalid value ${JSON.stringify(value.slice(0, 100))}; accepted values: "on", "off"; "off" is used`);
    return value === 'on';
  };
  let verifyDepth = 1;
  const depth = raw('proxy-ssl-verify-depth')?.trim();
  if (depth !== undefined) {
    if (/^\d{1,3}$/.test(depth)) verifyDepth = Number(depth) === 0 ? 1 : Number(depth);
    else report(Reason.InvalidAnnotation, `annotation ${n('proxy-ssl-verify-depth')} has invalid value ${JSON.stringify(depth.slice(0, 100))}; accepted: a whole number; 1 is used`);
  }
  let name = nginxDefaultProxySslName;
  const nameValue = raw('proxy-ssl-name')?.trim();
  if (nameValue !== undefined && nameValue !== '') {
    if (serverName.test(nameValue)) name = nameValue.toLowerCase();
    else report(Reason.InvalidAnnotation, `annotation ${n('proxy-ssl-name')} has invalid value ${JSON.stringify(nameValue.slice(0, 100))}; accepted: a host name; nginx's default (${nginxDefaultProxySslName}) is used`);
  }
  let versions: TlsVersionIR[] = ['1.2'];
  const protocols = raw('proxy-ssl-protocols');
  if (protocols !== undefined) {
    const listed = protocols.trim().split(/\s+/).filter((p) => p !== '');
    if (listed.length > 0 && listed.every((p) => p === 'TLSv1.2' || p === 'TLSv1.3')) versions = listed.map((p) => (p === 'TLSv1.3' ? '1.3' : '1.2'));
    else report(Reason.InvalidAnnotation, `annotation ${n('proxy-ssl-protocols')} has invalid value ${JSON.stringify(protocols.slice(0, 100))}; accepted: "TLSv1.2", "TLSv1.3" or both; "TLSv1.2" is used`);
  }
  const settings: NginxProxySslSettings = {
    secret: ref,
    verify: onOff('proxy-ssl-verify'),
    verifyDepth,
    name,
    serverName: onOff('proxy-ssl-server-name'),
    minVersion: versions.includes('1.2') ? '1.2' : '1.3',
    maxVersion: versions.includes('1.3') ? '1.3' : '1.2',
  };
  const ciphers = raw('proxy-ssl-ciphers')?.trim();
  if (ciphers !== undefined && ciphers !== 'DEFAULT') {
    const rules = /^[A-Za-z0-9+:_\-!]*$/.test(ciphers) ? boringSslCipherRules(ciphers) : { problem: 'has characters nginx does not accept there' };
    if ('rules' in rules) settings.cipherSuites = rules.rules;
    else report(Reason.InvalidAnnotation, `annotation ${n('proxy-ssl-ciphers')} value ${JSON.stringify(ciphers.slice(0, 100))} ${rules.problem}; Envoy's default ciphers are used`);
  }
  return settings;
}

/** What a proxy-ssl Secret gives: trusted CAs and/or the certificate presented, or why it cannot be used. */
type ResolvedProxySsl = { ca?: CertificateAuthorityIR; certificate?: TlsSecretIR } | { refused: string };

function resolve(ingress: Ingress, settings: NginxProxySslSettings, secrets: ReadonlyMap<string, Secret>, diagnostics: Diagnostic[]): ResolvedProxySsl {
  if ('refused' in settings) return settings;
  const { namespace, name } = settings.secret;
  const report = (reason: string, problem: string): ResolvedProxySsl => {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message: `${n('proxy-ssl-secret')}: Secret ${namespace}/${name} ${problem}; the Ingress's paths answer 503 until it is fixed` });
    return { refused: `${n('proxy-ssl-secret')} unusable` };
  };
  const secret = secrets.get(`${namespace}/${name}`);
  if (secret === undefined) return report(Reason.SecretNotFound, 'not found');
  const result: { ca?: CertificateAuthorityIR; certificate?: TlsSecretIR } = {};
  if (secret.data?.['ca.crt'] !== undefined) {
    const ca = readCertificateAuthority(secret);
    if ('error' in ca) return report(Reason.SecretInvalid, ca.error);
    result.ca = ca.ca;
  }
  if (secret.data?.['tls.crt'] !== undefined || secret.data?.['tls.key'] !== undefined) {
    const pair = validateKeyPairSecret(secret);
    // The error names the Secret and what is wrong with its keys, never their content.
    if (!pair.valid) return report(Reason.SecretInvalid, pair.error.replace(/^secret \S+ /, ''));
    result.certificate = pair.secret;
  }
  if (result.ca === undefined && result.certificate === undefined) return report(Reason.SecretInvalid, 'has neither "ca.crt" nor "tls.crt" and "tls.key"');
  if (settings.verify && result.ca === undefined) return report(Reason.SecretInvalid, `has no "ca.crt", which ${n('proxy-ssl-verify')} "on" needs`);
  return result;
}

/** The upstream TLS of a cluster with the Ingress's proxy-ssl settings over it. */
function upstreamTlsOf(base: UpstreamTlsIR, settings: Exclude<NginxProxySslSettings, { refused: string }>, resolved: { ca?: CertificateAuthorityIR; certificate?: TlsSecretIR }): UpstreamTlsIR {
  const tls: UpstreamTlsIR = { ...base, minVersion: settings.minVersion, maxVersion: settings.maxVersion };
  if (settings.serverName) tls.sni = settings.name;
  if (settings.verify && resolved.ca !== undefined) {
    tls.verify = { certificateAuthority: resolved.ca.name, subjectAltNames: [{ kind: 'dns', value: settings.name }], verifyDepth: settings.verifyDepth };
  }
  if (resolved.certificate !== undefined) tls.clientCertificate = resolved.certificate.name;
  if (settings.cipherSuites !== undefined) tls.cipherSuites = [...settings.cipherSuites];
  return tls;
}

/** What the proxy-ssl pass added, for the final phase: the CAs and certificates its clusters name. */
export interface NginxProxySslResources {
  certificateAuthorities: Map<string, CertificateAuthorityIR>;
  certificates: Map<string, TlsSecretIR>;
  /** Secrets read (`namespace/name`), for the translation's references. */
  secrets: Set<string>;
}

/**
 * Points each forwarding route of a proxy-ssl Ingress whose cluster speaks TLS at a cluster variant with the
 * Ingress's settings (added to `clusters`); a route of an Ingress whose Secret cannot be used answers 503.
 */
export function nginxProxySslPass(
  annotations: ReadonlyMap<string, unknown>,
  ingresses: ReadonlyMap<string, Ingress>,
  clusters: Map<string, ClusterIR>,
  secretList: readonly Secret[],
  diagnostics: Diagnostic[],
  resources: NginxProxySslResources,
): RoutePass | undefined {
  const byIngress = new Map<string, NginxProxySslSettings>();
  for (const [key, parsed] of annotations) {
    const settings = (parsed as WithNginxProxySsl).nginxProxySsl;
    if (settings !== undefined) byIngress.set(key, settings);
  }
  if (byIngress.size === 0) return undefined;
  const secrets = new Map(secretList.map((s) => [`${namespaceOf(s.metadata)}/${s.metadata.name}`, s]));
  const resolved = new Map<string, ResolvedProxySsl>();
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward' || route.action.split !== undefined) return route;
    const key = refKey(route.source);
    const settings = byIngress.get(key);
    const ingress = ingresses.get(key);
    if (settings === undefined || ingress === undefined) return route;
    let result = resolved.get(key);
    if (result === undefined) {
      result = resolve(ingress, settings, secrets, diagnostics);
      resolved.set(key, result);
      if (!('refused' in settings)) resources.secrets.add(`${settings.secret.namespace}/${settings.secret.name}`);
    }
    if ('refused' in result || 'refused' in settings) {
      const { policy: _, ...kept } = route;
      return { ...kept, action: { kind: 'direct', status: 503, body: locationDeniedPage, contentType: 'text/html' } };
    }
    const cluster = clusters.get(route.action.cluster);
    // A plain-HTTP backend: nginx's proxy_ssl_* directives do nothing for it.
    if (cluster === undefined || cluster.upstreamTls === undefined) return route;
    const variant: ClusterIR = { ...structuredClone(cluster), name: `${cluster.name}~proxy-ssl=${route.source.name}`, upstreamTls: upstreamTlsOf(cluster.upstreamTls, settings, result) };
    clusters.set(variant.name, variant);
    if (result.ca !== undefined) resources.certificateAuthorities.set(result.ca.name, result.ca);
    if (result.certificate !== undefined) resources.certificates.set(result.certificate.name, result.certificate);
    return changedRoute(route, { action: { kind: 'forward', cluster: variant.name } });
  };
}

/** `items` with `added` merged in by name, sorted; the same array when nothing is new. */
export function mergedByName<T extends { name: string }>(items: readonly T[] | undefined, added: Iterable<T>): T[] | undefined {
  const byName = new Map((items ?? []).map((item) => [item.name, item]));
  let changed = false;
  for (const item of added) {
    if (!byName.has(item.name)) {
      byName.set(item.name, item);
      changed = true;
    }
  }
  if (!changed) return items === undefined ? undefined : (items as T[]);
  return [...byName.values()].sort((a, b) => compareStrings(a.name, b.name));
}

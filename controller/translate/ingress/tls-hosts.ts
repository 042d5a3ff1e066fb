// spec.tls of all our Ingresses -> which host is served over TLS with which certificate.
import type { TlsSecretIR } from '../../../ir/index.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { parseHost } from '../shared/hostname.js';
import { type Ingress, type ObjectRef, type Secret, refOf } from '../shared/kube-objects.js';
import { describeOwner } from '../shared/owner.js';
import { Reason } from '../shared/reasons.js';
import {
  type ValidatedSecret,
  certificateCoversHost,
  secretResourceName,
  validateTlsSecret,
} from '../shared/tls-secret.js';
import { namespaceOf } from '../shared/kinds.js';

export interface TlsHost {
  host: string;
  secret: TlsSecretIR;
  /** The (oldest) Ingress whose entry won the host. */
  owner: ObjectRef;
}

export interface CollectedTls {
  /** Hosts with a valid certificate. */
  hosts: Map<string, TlsHost>;
  /** Ingresses naming the host in spec.tls (valid entry or not), oldest first. */
  contributorsByHost: Map<string, Ingress[]>;
  /**
   * From the oldest valid tls entry without hosts: served to TLS clients whose SNI matches no host above (or who
   * send none). `host` is empty.
   */
  defaultCertificate?: TlsHost;
}

/**
 * Collects TLS hosts. `ingresses` must be oldest first. Entries whose Secret is missing, invalid or in another
 * namespace are reported and skipped, so their hosts stay plain HTTP unless another valid entry covers them; among
 * valid entries for one host the oldest Ingress (then the earlier entry) wins and a different secret elsewhere
 * gets TlsConflict. A certificate whose names do not cover a host is reported but used. An entry without hosts
 * gives the default certificate (oldest wins likewise).
 */
export function collectTlsHosts(
  ingresses: readonly Ingress[],
  secrets: readonly Secret[],
  diagnostics: Diagnostic[],
): CollectedTls {
  const secretsByName = new Map(
    secrets.map((s) => [secretResourceName(namespaceOf(s.metadata), s.metadata.name), s]),
  );
  const validated = new Map<string, ValidatedSecret>();
  const hosts = new Map<string, TlsHost>();
  const contributorsByHost = new Map<string, Ingress[]>();
  let defaultCertificate: TlsHost | undefined;

  for (const ingress of ingresses) {
    const ref = refOf(ingress);
    const warn = (reason: string, message: string): void => {
      diagnostics.push({ object: ref, severity: 'Warning', reason, message });
    };
    (ingress.spec?.tls ?? []).forEach((entry, i) => {
      const entryHosts: string[] = [];
      for (const raw of entry.hosts ?? []) {
        const parsed = parseHost(raw);
        if (!parsed.valid) warn(Reason.InvalidHost, `tls ${i}: ${parsed.error}; host skipped`);
        else if (!entryHosts.includes(parsed.host)) entryHosts.push(parsed.host);
      }
      for (const host of entryHosts) {
        const list = contributorsByHost.get(host);
        if (list === undefined) contributorsByHost.set(host, [ingress]);
        else if (!list.includes(ingress)) list.push(ingress);
      }
      // An entry without hosts gives the default certificate: the one for connections whose SNI names no TLS host.
      const withoutHosts = (entry.hosts ?? []).length === 0;
      if (entryHosts.length === 0 && !withoutHosts) return;
      const plainOnly = withoutHosts
        ? '; no default certificate from this entry'
        : `; ${entryHosts.join(', ')} served over plain HTTP only`;
      if (entry.secretName === undefined || entry.secretName === '') {
        warn(
          Reason.UnsupportedTls,
          `tls ${i}: entry has no secretName and there is no default certificate${plainOnly}`,
        );
        return;
      }
      if (entry.secretName.includes('/')) {
        warn(
          Reason.SecretNamespaceRefused,
          `tls ${i}: secretName ${JSON.stringify(entry.secretName)} names a Secret in another namespace; an Ingress ` +
            `can only use Secrets of its own namespace (${ref.namespace})${plainOnly}`,
        );
        return;
      }
      const name = secretResourceName(ref.namespace, entry.secretName);
      const secret = secretsByName.get(name);
      if (secret === undefined) {
        warn(Reason.SecretNotFound, `tls ${i}: secret ${name} not found${plainOnly}`);
        return;
      }
      let result = validated.get(name);
      if (result === undefined) {
        result = validateTlsSecret(secret);
        validated.set(name, result);
      }
      if (!result.valid) {
        warn(Reason.SecretInvalid, `tls ${i}: ${result.error}${plainOnly}`);
        return;
      }
      if (withoutHosts) {
        if (defaultCertificate === undefined) defaultCertificate = { host: '', secret: result.secret, owner: ref };
        else if (defaultCertificate.secret.name !== name) {
          warn(
            Reason.TlsConflict,
            `tls ${i}: the default certificate (tls entry without hosts) is already secret ` +
              `${defaultCertificate.secret.name} from ${describeOwner(defaultCertificate.owner, ref)}; ` +
              `secret ${name} ignored`,
          );
        }
        return;
      }
      const names = result.dnsNames;
      for (const host of entryHosts) {
        if (certificateCoversHost(names, host)) continue;
        warn(
          Reason.CertificateHostMismatch,
          `tls ${i}: the certificate in secret ${name} (for ${names.join(', ') || 'no DNS name'}) does not cover ` +
            `host ${host}; it is served anyway and clients checking the name will refuse it`,
        );
      }
      for (const host of entryHosts) {
        const current = hosts.get(host);
        if (current === undefined) {
          hosts.set(host, { host, secret: result.secret, owner: ref });
        } else if (current.secret.name !== name) {
          warn(
            Reason.TlsConflict,
            `tls ${i}: host ${host} already uses secret ${current.secret.name} ` +
              `from ${describeOwner(current.owner, ref)}; ` +
              `secret ${name} ignored for it`,
          );
        }
      }
    });
  }
  return defaultCertificate === undefined
    ? { hosts, contributorsByHost }
    : { hosts, contributorsByHost, defaultCertificate };
}

// ingress-nginx ssl-passthrough: TLS connections for an Ingress's hosts go, unterminated, to one backend, chosen by
// SNI on the HTTPS listener. Works at the TCP level, so paths and HTTP annotations cannot apply there: the host's
// connections all go to the backend of its `/` path (ingress-nginx uses the root location), else its first path.
// Plain HTTP (port 80) keeps serving the Ingress's rules as usual. ingress-nginx needs the controller flag
// --enable-ssl-passthrough because its passthrough is a TCP proxy in the controller process in front of nginx;
// here Envoy selects the filter chain by SNI natively, so --nginx-annotations is the only switch.
import { catchAllHost, type ClusterIR, compareStrings, type TlsPassthroughIR } from '../../../../ir/index.js';
import { type ServiceIndex, resolveBackend } from '../../shared/backend.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { parseHost } from '../../shared/hostname.js';
import { type Ingress, type IngressBackend, refOf } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { namespaceOf } from '../../shared/kinds.js';

export const sslPassthroughAnnotation = `${nginxAnnotationPrefix}ssl-passthrough`;

/** Name of the passthrough filter chain of one host. */
export function passthroughChainName(host: string): string {
  return `passthrough/${host}`;
}

/** The cluster a passthrough host's connections go to: its own, so no HTTP-level cluster setting (TLS!) applies. */
export function passthroughClusterName(base: string): string {
  return `${base}~tls-passthrough`;
}

export interface SslPassthrough {
  /** Sorted by name. */
  servers: TlsPassthroughIR[];
  /** The clusters the servers name. */
  clusters: ClusterIR[];
  /** Hosts whose TLS connections are passed through (no terminating filter chain may claim them). */
  hosts: ReadonlySet<string>;
}

export function parseSslPassthrough(value: string): boolean | undefined {
  const v = value.trim();
  return v === 'true' ? true : v === 'false' ? false : undefined;
}

interface HostPath {
  where: string;
  path: string;
  backend: IngressBackend;
}

function describeBackend(backend: IngressBackend): string {
  const service = backend.service;
  if (service === undefined) return 'a resource backend';
  return `${service.name}:${service.port?.number ?? service.port?.name ?? '?'}`;
}

/** The `/` path (any prefix type) if the host has one, else the first one. */
function chosenPath(paths: readonly HostPath[]): HostPath | undefined {
  return paths.find((p) => p.path === '/') ?? paths[0];
}

/**
 * Collects the passthrough hosts of the Ingresses (oldest first) for which `enabled` is true. A host is passed
 * through when the oldest Ingress with a rule for it asks for it; a newer one asking for a host an older Ingress
 * serves gets SslPassthroughConflict. `contributorsByHost` is collectRules()'s (oldest first).
 */
export function collectSslPassthrough(
  ingresses: readonly Ingress[],
  enabled: (ingress: Ingress) => boolean,
  contributorsByHost: ReadonlyMap<string, readonly Ingress[]>,
  services: ServiceIndex,
  diagnostics: Diagnostic[],
  allowExternalName = false,
): SslPassthrough {
  const servers: TlsPassthroughIR[] = [];
  const clusters = new Map<string, ClusterIR>();
  const hosts = new Set<string>();
  for (const ingress of ingresses) {
    const value = ingress.metadata.annotations?.[sslPassthroughAnnotation];
    if (value === undefined || !enabled(ingress)) continue;
    const ref = refOf(ingress);
    const warn = (reason: string, message: string): void => {
      diagnostics.push({ object: ref, severity: 'Warning', reason, message });
    };
    // An unreadable value was reported by the nginx layer (checkNginxEdgeValues).
    if (parseSslPassthrough(value) !== true) continue;
    // Paths per host, in rule and path order.
    const byHost = new Map<string, HostPath[]>();
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const parsed = rule.host === undefined || rule.host === '' ? undefined : parseHost(rule.host);
      if (parsed === undefined) {
        warn(Reason.SslPassthroughPathsIgnored, `rule ${i} has no host: TLS passthrough selects the backend by SNI, so it needs one; the rule is served over plain HTTP only`);
        return;
      }
      if (!parsed.valid) return; // collectRules reports it
      const list = byHost.get(parsed.host) ?? [];
      byHost.set(parsed.host, list);
      (rule.http?.paths ?? []).forEach((p, j) => {
        list.push({ where: `rule ${i} path ${j}`, path: p.path === undefined || p.path === '' ? '/' : p.path, backend: p.backend });
      });
    });
    for (const [host, paths] of byHost) {
      if (host === catchAllHost) continue;
      const owner = contributorsByHost.get(host)?.[0];
      if (owner !== undefined && owner !== ingress) {
        warn(
          Reason.SslPassthroughConflict,
          `host ${host}: Ingress ${namespaceOf(owner.metadata)}/${owner.metadata.name} is older and decides how its TLS connections are handled; ssl-passthrough ignored for it`,
        );
        continue;
      }
      const chosen = chosenPath(paths);
      if (chosen === undefined) {
        warn(Reason.SslPassthroughPathsIgnored, `host ${host} has no path, so no backend to pass its TLS connections to; ssl-passthrough ignored for it`);
        continue;
      }
      const others = paths.filter((p) => describeBackend(p.backend) !== describeBackend(chosen.backend));
      if (others.length > 0) {
        warn(
          Reason.SslPassthroughPathsIgnored,
          `host ${host}: TLS connections all go to ${describeBackend(chosen.backend)} (${chosen.where}, path ${chosen.path}); ` +
            `over TLS the paths ${others.map((p) => `${p.path} (${describeBackend(p.backend)})`).join(', ')} are not served`,
        );
      }
      // collectRules already reported a backend that does not resolve; without one there is nothing to pass to.
      const resolved = resolveBackend(ingress, chosen.backend, services, chosen.where, [], allowExternalName);
      if (resolved.cluster === undefined) continue;
      const cluster: ClusterIR = { ...resolved.cluster, service: { ...resolved.cluster.service }, name: passthroughClusterName(resolved.cluster.name) };
      clusters.set(cluster.name, cluster);
      hosts.add(host);
      servers.push({ name: passthroughChainName(host), serverNames: [host], cluster: cluster.name });
    }
  }
  dropPassthroughTlsWarnings(ingresses, hosts, diagnostics);
  return {
    servers: servers.sort((a, b) => compareStrings(a.name, b.name)),
    clusters: [...clusters.values()].sort((a, b) => compareStrings(a.name, b.name)),
    hosts,
  };
}

/**
 * ingress-nginx's docs have passthrough Ingresses list their hosts in spec.tls without a secretName; collectTlsHosts
 * warned such an entry is "served over plain HTTP only" (UnsupportedTls), which is not so when every host of it is
 * passed through: that warning is withdrawn.
 */
function dropPassthroughTlsWarnings(ingresses: readonly Ingress[], hosts: ReadonlySet<string>, diagnostics: Diagnostic[]): void {
  for (const ingress of ingresses) {
    const ref = refOf(ingress);
    (ingress.spec?.tls ?? []).forEach((entry, i) => {
      const entryHosts = (entry.hosts ?? []).map((h) => h.toLowerCase());
      if ((entry.secretName ?? '') !== '' || entryHosts.length === 0 || !entryHosts.every((h) => hosts.has(h))) return;
      const index = diagnostics.findIndex(
        (d) => d.reason === Reason.UnsupportedTls && d.object.namespace === ref.namespace && d.object.name === ref.name && d.message.startsWith(`tls ${i}: entry has no secretName`),
      );
      if (index !== -1) diagnostics.splice(index, 1);
    });
  }
}

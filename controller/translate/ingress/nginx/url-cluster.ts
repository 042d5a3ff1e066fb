// The cluster an ingress-nginx annotation's URL names (auth-url, mirror-target): a Service's DNS name is that
// Service's EDS cluster, any other name or address a DNS cluster Envoy resolves itself, local targets refused.
// Tenant isolation (issue 25): by default only Services of the Ingress's own namespace; other namespaces' Services
// with the cross-namespace opt-in, and any target the controller's allow-list names.
import type { ClusterIR } from '../../../../ir/index.js';
import { isIP } from 'node:net';
import { clusterVariantName } from '../annotation-policy.js';
import { type ServiceIndex, clusterName, isTcpServicePort, serviceKey } from '../../shared/backend.js';
import { checkExternalName } from '../../shared/external-name.js';
import type { Ingress } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { namespaceOf } from '../../shared/kinds.js';

/** In-cluster Service names: `name.namespace.svc` and `name.namespace.svc.cluster.local`. */
const serviceHost = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(\.cluster\.local)?$/;

/** Which URL targets outside the Ingress's own namespace are used (TranslateOptions). */
export interface UrlTargetPolicy {
  /** Services of every namespace (--nginx-allow-cross-namespace-resources). */
  crossNamespace?: boolean;
  /** Hosts (`auth.example.com`, `*.example.com`, `oauth2-proxy.auth.svc`) any Ingress may name (--allow-url-target). */
  allowedHosts?: readonly string[];
}

/** A host the allow-list names: exactly, or under a `*.` wildcard (one label or more, as a suffix). */
export function urlTargetAllowed(host: string, allowedHosts: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.svc\.cluster\.local$/, '.svc');
  return allowedHosts.some((allowed) => {
    const a = allowed.toLowerCase().replace(/\.svc\.cluster\.local$/, '.svc');
    return a.startsWith('*.') ? name.endsWith(a.slice(1)) && name.length > a.length - 1 : name === a;
  });
}

/** The Service (`namespace/name`) a URL's host names, if it is an in-cluster Service name. */
export function serviceOfUrlHost(hostname: string): string | undefined {
  const inCluster = serviceHost.exec(hostname.toLowerCase());
  return inCluster === null ? undefined : `${inCluster[3] ?? ''}/${inCluster[1] ?? ''}`;
}

/**
 * The cluster requests to `url` go to. A Service's DNS name becomes that Service's EDS cluster (its endpoints, as
 * for backends); any other name or address becomes a DNS cluster Envoy resolves itself (named `<use>/host:port`),
 * except local targets (loopback, link-local, localhost), which would let an Ingress reach the proxy's admin port
 * or a metadata service: those are refused with `refusedReason`. So are targets outside the Ingress's namespace that
 * `policy` does not admit: another tenant's Service, or any host outside the cluster.
 */
export function clusterForUrl(
  ingress: Ingress,
  url: URL,
  services: ServiceIndex,
  use: string,
  refusedReason: string,
  policy: UrlTargetPolicy = {},
): { cluster: ClusterIR } | { error: string; reason: string } {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const tls = url.protocol === 'https:' ? (isIP(host) === 0 ? { sni: host } : {}) : undefined;
  const inCluster = serviceHost.exec(host);
  const own = namespaceOf(ingress.metadata);
  const allowListed = urlTargetAllowed(host, policy.allowedHosts ?? []);
  if (inCluster !== null && (inCluster[3] ?? '') !== own && policy.crossNamespace !== true && !allowListed) {
    return { reason: refusedReason, error: `${host} is a Service of namespace ${inCluster[3] ?? ''}: only Services of namespace ${own} are used unless the controller's --allow-url-target lists it (or --nginx-allow-cross-namespace-resources)` };
  }
  if (inCluster !== null) {
    const [, name = '', , namespace = ''] = inCluster;
    const service = services.get(serviceKey(namespace, name));
    if (service === undefined) return { reason: Reason.ServiceNotFound, error: `service ${namespace}/${name} not found` };
    if (service.spec?.type !== 'ExternalName') {
      if (!(service.spec?.ports ?? []).some((p) => isTcpServicePort(p) && p.port === port)) {
        return { reason: Reason.ServicePortNotFound, error: `service ${namespace}/${name} has no TCP port ${port}` };
      }
      const base: ClusterIR = { name: clusterName(namespace, name, port), service: { namespace, name, port } };
      if (tls === undefined) return { cluster: base };
      return { cluster: { ...base, name: clusterVariantName(base.name, { upstreamTls: tls }), upstreamTls: tls } };
    }
  }
  const checked = checkExternalName(host);
  if (!checked.valid) return { reason: refusedReason, error: checked.error.replace(/^externalName/, 'host') };
  if (inCluster === null && !allowListed) {
    return { reason: refusedReason, error: `${host} is outside the cluster: only Services of namespace ${own} are used unless the controller's --allow-url-target lists the host` };
  }
  // A DNS cluster; `service` names the Ingress's namespace and the host (there is no Service behind it).
  const cluster: ClusterIR = {
    name: `${use}/${host}:${port}${tls === undefined ? '' : '~https'}`,
    service: { namespace: own, name: host, port },
    externalName: checked.host,
  };
  if (tls !== undefined) cluster.upstreamTls = tls;
  return { cluster };
}

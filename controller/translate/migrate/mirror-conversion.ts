// nginx's mirror-target (+ mirror-host) as a Gateway API RequestMirror filter: a backendRef to the Service of the
// Ingress's namespace whose DNS name the target's URL names (http only: a RequestMirror has no TLS of its own).
// What the mirror receives differs: the Gateway API mirrors the client's request as it is (its Host and path; this
// controller adds no "-shadow" suffix), nginx's mirror location sends the target's host (or mirror-host) and path.
import type { Diagnostic } from '../shared/diagnostics.js';
import { checkExternalName } from '../shared/external-name.js';
import { namespaceOf } from '../shared/kinds.js';
import type { HTTPRouteFilter, Ingress, Service } from '../shared/kube-objects.js';
import { readNginxMirror } from '../ingress/nginx/nginx-mirror.js';
import { serviceOfUrlHost } from '../ingress/nginx/url-cluster.js';
import type { ReportedDifference } from './gateway-migration-report.js';

const id = 'mirror-target';

/** The RequestMirror filter of an Ingress's mirror-target, and what differs (or why there is no filter). */
export function mirrorFilter(ingress: Ingress, services: ReadonlyMap<string, Service>): { filter?: HTTPRouteFilter; differences: ReportedDifference[] } {
  const diagnostics: Diagnostic[] = [];
  const mirror = readNginxMirror(ingress, diagnostics);
  // Refused by the nginx layer too (reported there; the Ingress mirrors nothing either).
  if (mirror === undefined) return { differences: [] };
  const notConverted = (why: string): { differences: ReportedDifference[] } => ({
    differences: [{ id, message: `mirror-target ${mirror.target} is not converted: ${why}; where the Ingress mirrors its requests, the HTTPRoute does not`, action: 'mirror to a Service of the route\'s namespace by http (a RequestMirror filter), or keep mirroring outside the Gateway' }],
  });
  if (mirror.url.protocol !== 'http:') return notConverted('a RequestMirror backendRef is reached without TLS (an https target needs a BackendTLSPolicy for its Service)');
  const service = serviceOfUrlHost(mirror.url.hostname);
  // A local target (loopback, link-local, localhost) is refused by the Ingress too: nothing is mirrored on either.
  if (service === undefined && !checkExternalName(mirror.url.hostname.replace(/^\[|\]$/g, '').toLowerCase()).valid) return { differences: [] };
  if (service === undefined) return notConverted('it names no in-cluster Service (<name>.<namespace>.svc), and a RequestMirror backendRef is a Service (the Ingress mirrors there only where --allow-url-target lists the host)');
  const namespace = namespaceOf(ingress.metadata);
  const [serviceNamespace = '', name = ''] = service.split('/', 2);
  if (serviceNamespace !== namespace) return notConverted(`the Service ${service} is in another namespace than the Ingress (the Ingress mirrors there only with --allow-url-target or --nginx-allow-cross-namespace-resources)`);
  const found = services.get(service);
  const port = mirror.url.port === '' ? 80 : Number(mirror.url.port);
  // No such Service or port: the Ingress mirrors nothing either (ServiceNotFound / ServicePortNotFound).
  if (found === undefined || (found.spec?.type !== 'ExternalName' && !(found.spec?.ports ?? []).some((p) => p.port === port))) return { differences: [] };
  if (found.spec?.type === 'ExternalName') return notConverted(`the Service ${service} is an ExternalName Service, which a backendRef cannot use here`);
  const path = mirror.rewrite.path ?? (mirror.rewrite.pathPrefix === undefined ? 'the request\'s own URI' : `${mirror.rewrite.pathPrefix} followed by the request's URI`);
  return {
    filter: { type: 'RequestMirror', requestMirror: { backendRef: { name, port } } },
    differences: [
      {
        id,
        message: `the RequestMirror sends the mirror the client's request as it is (its Host and path); ingress-nginx sends it with Host ${mirror.rewrite.host} and the path ${path}. The client's answers are the same`,
        action: 'none, unless the mirror relies on that Host or path (then have it accept the client\'s)',
      },
    ],
  };
}

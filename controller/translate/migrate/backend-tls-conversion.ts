// nginx's backend-protocol HTTPS / GRPCS with proxy-ssl-* as a BackendTLSPolicy on each backend Service port: the CA
// from proxy-ssl-secret's ca.crt (the Secret itself as caCertificateRef), the hostname from proxy-ssl-name. A
// BackendTLSPolicy always verifies the backend's certificate and always sends the hostname as SNI, and presents no
// client certificate of its own: where the Ingress does otherwise, that is reported.
import type { BackendTLSPolicy, Ingress, Secret, Service } from '../shared/kube-objects.js';
import { namespaceOf } from '../shared/kinds.js';
import { nginxAnnotationPrefix } from '../ingress/nginx/catalog.js';
import type { ReportedDifference } from './gateway-migration-report.js';

const a = (ingress: Ingress, name: string): string | undefined => ingress.metadata.annotations?.[`${nginxAnnotationPrefix}${name}`]?.trim();

export interface BackendTlsConversion {
  /** The policies, one per backend Service port of the Ingress (name `<service>-<port>-backend-tls`). */
  policies: BackendTLSPolicy[];
  differences: ReportedDifference[];
}

/**
 * The BackendTLSPolicies of an Ingress whose backends speak TLS (protocol HTTPS or GRPCS), or why there are none.
 * `backends`: the Service name and port number of each of its paths.
 */
export function backendTlsPolicies(ingress: Ingress, protocol: string, backends: readonly { service: string; port: number }[], services: ReadonlyMap<string, Service>, secrets: readonly Secret[]): BackendTlsConversion {
  const namespace = namespaceOf(ingress.metadata);
  const none = (why: string): BackendTlsConversion => ({
    policies: [],
    differences: [{ id: 'backend-protocol', message: `backend-protocol ${protocol}: no BackendTLSPolicy is written for this Ingress (${why}); unless another Ingress's policy covers the Service port, the route's backend is spoken to without TLS`, action: 'add a BackendTLSPolicy for the Service port (a CA in a ConfigMap or Secret, the hostname of its certificate)' }],
  });
  const secretRef = a(ingress, 'proxy-ssl-secret');
  if (secretRef === undefined || secretRef === '') return none('a BackendTLSPolicy needs the CA of the backend\'s certificate: no proxy-ssl-secret names one');
  const [secretNamespace, secretName] = secretRef.includes('/') ? secretRef.split('/', 2) : [namespace, secretRef];
  if (secretNamespace !== namespace) return none(`proxy-ssl-secret ${secretRef} is in another namespace; a BackendTLSPolicy's caCertificateRefs are of its own namespace`);
  const secret = secrets.find((s) => namespaceOf(s.metadata) === namespace && s.metadata.name === secretName);
  if (secret === undefined || (secret.data?.['ca.crt'] === undefined)) return none(`the Secret ${namespace}/${secretName} has no ca.crt`);
  const differences: ReportedDifference[] = [];
  const verify = a(ingress, 'proxy-ssl-verify') === 'on';
  const name = a(ingress, 'proxy-ssl-name');
  const hostname = name === undefined || name === '' ? undefined : name;
  if (!verify) differences.push({ id: 'proxy-ssl-verify', message: 'the BackendTLSPolicy verifies the backend\'s certificate against ca.crt and its hostname; nginx does not (proxy-ssl-verify off): a backend whose certificate does not verify now answers 503', action: 'make sure the backend\'s certificate chains to ca.crt and names the policy\'s hostname' });
  if (a(ingress, 'proxy-ssl-server-name') !== 'on') differences.push({ id: 'proxy-ssl-server-name', message: 'the BackendTLSPolicy sends its hostname as SNI; nginx sends none (proxy-ssl-server-name off)', action: 'none, unless the backend picks its certificate by SNI' });
  if (secret.data?.['tls.crt'] !== undefined) {
    differences.push({ id: 'proxy-ssl-secret', message: `nginx presents the Secret's tls.crt as a client certificate to the backend; a BackendTLSPolicy presents none (the Gateway's spec.tls.backend.clientCertificateRef is one certificate for every backend)`, action: 'set the Gateway\'s spec.tls.backend.clientCertificateRef if every backend may see this certificate, or stop requiring it' });
  }
  const policies = new Map<string, BackendTLSPolicy>();
  for (const backend of backends) {
    const port = services.get(`${namespace}/${backend.service}`)?.spec?.ports?.find((p) => p.port === backend.port);
    const policyName = `${backend.service}-${port?.name ?? backend.port}-backend-tls`;
    if (policies.has(policyName)) continue;
    const sectionName = port?.name;
    // The hostname is required: without proxy-ssl-name, the Service's DNS name (nginx checks "upstream_balancer").
    const policyHostname = hostname ?? `${backend.service}.${namespace}.svc`;
    if (hostname === undefined && verify) differences.push({ id: 'proxy-ssl-name', message: `without proxy-ssl-name nginx checks the name "upstream_balancer"; the BackendTLSPolicy checks ${policyHostname}`, action: 'set the policy\'s hostname to a name of the backend\'s certificate' });
    policies.set(policyName, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'BackendTLSPolicy',
      metadata: { name: policyName, namespace },
      spec: {
        targetRefs: [{ group: '', kind: 'Service', name: backend.service, ...(sectionName === undefined ? {} : { sectionName }) }],
        validation: { caCertificateRefs: [{ group: '', kind: 'Secret', name: secretName as string }], hostname: policyHostname },
      },
    });
  }
  differences.push({ id: 'backend-tls-policy', message: 'a BackendTLSPolicy applies to every route reaching the Service port, not only this Ingress\'s', action: 'none, unless other routes reach the port in plain HTTP' });
  return { policies: [...policies.values()], differences };
}

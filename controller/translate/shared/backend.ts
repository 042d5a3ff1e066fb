// Ingress backend -> route action (and the cluster it forwards to).
import type { ClusterIR, RouteActionIR } from '../../../ir/index.js';
import type { Diagnostic } from './diagnostics.js';
import { type Ingress, type IngressBackend, type Service, type ServicePort, refOf } from './kube-objects.js';
import { checkExternalName } from './external-name.js';
import { Reason } from './reasons.js';
import { namespaceOf } from './kinds.js';

export interface ResolvedBackend {
  action: RouteActionIR;
  /** Present when the action forwards to a cluster. */
  cluster?: ClusterIR;
}

/**
 * A backend that cannot be resolved still gets a route, answering 503, so its requests do not fall through to a
 * shorter prefix or the default backend and reach a service the author never meant them for.
 */
const unavailable: RouteActionIR = { kind: 'direct', status: 503 };

/** Services by `namespace/name`. */
export type ServiceIndex = ReadonlyMap<string, Service>;

/** Per list of Services (a routes build translates with the same list again: 10,000 keys are not free). */
const indexes = new WeakMap<readonly Service[], ServiceIndex>();

export function indexServices(services: readonly Service[]): ServiceIndex {
  let index = indexes.get(services);
  if (index === undefined) {
    index = new Map(services.map((s) => [serviceKey(namespaceOf(s.metadata), s.metadata.name), s]));
    indexes.set(services, index);
  }
  return index;
}

export function serviceKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** CDS/EDS name of the cluster for one Service port: `namespace/service/port` (the Service port, not targetPort). */
export function clusterName(namespace: string, service: string, port: number): string {
  return `${namespace}/${service}/${port}`;
}

/** Only TCP ports can carry HTTP; a UDP or SCTP port of the same number is not a match. */
export function isTcpServicePort(port: ServicePort): boolean {
  return port.protocol === undefined || port.protocol === 'TCP';
}

/**
 * Resolves a backend against Services in the Ingress's own namespace (cross-namespace references are not part of
 * the Ingress API). `where` names the backend in messages, e.g. `rule 0 path 1` or `default backend`.
 */
export function resolveBackend(
  ingress: Ingress,
  backend: IngressBackend,
  services: ServiceIndex,
  where: string,
  diagnostics: Diagnostic[],
  allowExternalName = false,
): ResolvedBackend {
  const namespace = namespaceOf(ingress.metadata);
  const report = (reason: string, message: string): ResolvedBackend => {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message: `${where}: ${message}` });
    return { action: unavailable };
  };

  if (backend.service === undefined) {
    if (backend.resource !== undefined) {
      const r = backend.resource;
      const kind = r.apiGroup ? `${r.kind}.${r.apiGroup}` : r.kind;
      return report(
        Reason.UnsupportedBackend,
        `resource backend ${kind} ${JSON.stringify(r.name)} is not supported; use a service backend`,
      );
    }
    return report(Reason.UnsupportedBackend, 'backend names neither a service nor a resource');
  }

  const { name, port } = backend.service;
  const service = services.get(serviceKey(namespace, name));
  if (service === undefined) {
    return report(Reason.ServiceNotFound, `service ${namespace}/${name} not found`);
  }
  let externalName: string | undefined;
  if (service.spec?.type === 'ExternalName') {
    if (!allowExternalName) {
      return report(
        Reason.ExternalNameRefused,
        `service ${namespace}/${name} is of type ExternalName, which is served only with --allow-external-name`,
      );
    }
    const target = checkExternalName(service.spec.externalName);
    if (!target.valid) {
      return report(Reason.ExternalNameRefused, `service ${namespace}/${name}: ${target.error}`);
    }
    externalName = target.host;
  }
  const ports = (service.spec?.ports ?? []).filter(isTcpServicePort);
  let servicePort: ServicePort | undefined;
  let wanted: string;
  if (port?.number !== undefined) {
    wanted = `number ${port.number}`;
    servicePort = ports.find((p) => p.port === port.number);
  } else if (port?.name !== undefined && port.name !== '') {
    wanted = `name ${JSON.stringify(port.name)}`;
    servicePort = ports.find((p) => p.name === port.name);
  } else {
    return report(Reason.ServicePortNotFound, `backend for service ${namespace}/${name} names no port`);
  }
  // An ExternalName Service's ports are informational: a backend port number is used as is.
  if (servicePort === undefined && externalName !== undefined && port?.number !== undefined) {
    servicePort = { port: port.number };
  }
  if (servicePort === undefined || !isPortNumber(servicePort.port)) {
    return report(Reason.ServicePortNotFound, `service ${namespace}/${name} has no TCP port with ${wanted}`);
  }
  const cluster: ClusterIR = {
    name: clusterName(namespace, name, servicePort.port),
    service: { namespace, name, port: servicePort.port },
  };
  if (externalName !== undefined) cluster.externalName = externalName;
  return { action: { kind: 'forward', cluster: cluster.name }, cluster };
}

function isPortNumber(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

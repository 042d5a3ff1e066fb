// Where each Gateway's listener ports are served by the one Envoy: the socket (address, port) and whether it is the
// Gateway's own. Without TranslateOptions.gatewayAddressing, every Gateway binds its listener ports on
// --listen-address and Gateways sharing a port share one Envoy listener (and one route table, split by hostname).
// With it each Gateway has sockets of its own, so a route attached to Gateway A is never reachable through Gateway
// B: `service` (a cluster) gives it Envoy ports of its own behind its Service (gateway-ports.ts), `pool`
// (standalone) an IP of its own (gateway-address-pool.ts). Pure; also gives each Gateway its status.addresses.
import type { Diagnostic } from '../shared/diagnostics.js';
import { type ClusterState, type Gateway, type ListenerSet, type Service, objectsOf, refOf } from '../shared/kube-objects.js';
import { type TranslateOptions, defaultGatewayControllerName, defaultListenerPorts } from '../shared/options.js';
import { canonicalIp } from './canonical-ip.js';
import { allocatePoolAddresses, type GatewayAddressProblem } from './gateway-address-pool.js';
import { findGatewayPortRecord, gatewayPortRecordName } from './gateway-port-record.js';
import { allocateGatewayPorts, recordedGatewayPorts } from './gateway-ports.js';
import {
  type GatewayStatusAddress,
  gatewayKey,
  gatewayServiceCollision,
  gatewayServiceName,
  managedServicesByGateway,
  serviceAddresses,
  unsupportedServiceAddress,
  unusableServiceAddresses,
} from './gateway-service.js';
import { GatewayReason } from './reasons.js';

/** What keeps a Gateway from being served, or programmed, as a whole. */
export type GatewayProblem = (GatewayAddressProblem | { reason: typeof GatewayReason.InvalidParameters; message: string }) & { blocking: boolean };

/** One Envoy socket serving Gateway listeners. */
export interface ListenerBinding {
  /** Listeners with the same key share one Envoy listener and route table. */
  key: string;
  /** The Envoy port (a listener port, or in `service` mode the Envoy port behind it). */
  port: number;
  /** The IP bound when the Gateway has one of its own (`pool`); absent: --listen-address. */
  address?: string;
  /** The Gateway whose socket it is; absent: shared by every Gateway on the port. */
  owner?: Gateway;
}

export interface GatewayBindings {
  /** The binding of a Gateway's listener port; undefined when the port got none (see `portProblem`). */
  bindingOf(gateway: Gateway, listenerPort: number): ListenerBinding | undefined;
  /** Why a Gateway's listener port has no binding (PortUnavailable-worthy), if it has none. */
  portProblem(gateway: Gateway, listenerPort: number): string | undefined;
  /** A problem with the Gateway's addresses, or its parameters, as a whole (it binds nothing when `blocking`). */
  addressProblem(gateway: Gateway): GatewayProblem | undefined;
  /** The Gateway's status.addresses; undefined in shared mode (the Gateway has no addresses of its own). */
  addresses(gateway: Gateway): GatewayStatusAddress[] | undefined;
  /** Whether a listener on an Ingress port (--http-port, --https-port) would take the Ingress's socket. */
  sharesIngressPorts: boolean;
  /**
   * Whether an HTTP listener on the Ingress HTTP port, or an HTTPS listener with a hostname on the Ingress HTTPS port,
   * joins that Ingress listener (shared mode: one socket, hosts split between Ingress and routes by coexistence.ts)
   * instead of being refused.
   */
  joinsIngressPorts: boolean;
  /** `namespace/name` of the Services read (the Gateways' Services), sorted: a change to one means a new build. */
  services: string[];
  /** `namespace/name` of the ConfigMaps read (the port record, gateway-port-record.ts): a change means a new build. */
  configMaps: string[];
}

/**
 * Why a Gateway is not served at all for its spec.infrastructure: a parametersRef, since no parameters kind is read
 * (the spec: InvalidParameters for an unsupported kind). Undefined when fine.
 */
export function invalidParameters(gateway: Gateway): string | undefined {
  const ref = gateway.spec?.infrastructure?.parametersRef;
  return ref === undefined ? undefined : `spec.infrastructure.parametersRef ${ref.kind}${ref.group === '' ? '' : `.${ref.group}`} ${ref.name}: no parameters kind is supported`;
}

/**
 * The bindings of the addressing mode, except that a Gateway with invalid parameters binds nothing and says why.
 * `listenerSets`: the ListenerSets each Gateway takes, whose listener ports the Gateway serves too.
 */
export function gatewayBindings(
  gateways: readonly Gateway[],
  state: ClusterState,
  options: TranslateOptions,
  diagnostics: Diagnostic[],
  listenerSets: ReadonlyMap<Gateway, readonly ListenerSet[]> = new Map(),
): GatewayBindings {
  const refused = new Map<Gateway, string>();
  for (const gateway of gateways) {
    const message = invalidParameters(gateway);
    if (message === undefined) continue;
    refused.set(gateway, message);
    diagnostics.push({ object: refOf(gateway), severity: 'Warning', reason: GatewayReason.InvalidParameters, message: `${message}; the Gateway is not served` });
  }
  const bindings = modeBindings(
    gateways.filter((g) => !refused.has(g)),
    state,
    options,
    diagnostics,
    listenerSets,
  );
  if (refused.size === 0) return bindings;
  return {
    ...bindings,
    bindingOf: (gateway, port) => (refused.has(gateway) ? undefined : bindings.bindingOf(gateway, port)),
    addressProblem: (gateway) => {
      const message = refused.get(gateway);
      return message === undefined ? bindings.addressProblem(gateway) : { reason: GatewayReason.InvalidParameters, message, blocking: true };
    },
    addresses: (gateway) => (refused.has(gateway) ? (bindings.addresses(gateway) === undefined ? undefined : []) : bindings.addresses(gateway)),
  };
}

function modeBindings(
  gateways: readonly Gateway[],
  state: ClusterState,
  options: TranslateOptions,
  diagnostics: Diagnostic[],
  listenerSets: ReadonlyMap<Gateway, readonly ListenerSet[]>,
): GatewayBindings {
  const addressing = options.gatewayAddressing;
  if (addressing === undefined) {
    const shared = new Map<number, ListenerBinding>();
    return {
      bindingOf: (_gateway, port) => {
        let binding = shared.get(port);
        if (binding === undefined) shared.set(port, (binding = { key: `${port}`, port }));
        return binding;
      },
      portProblem: () => undefined,
      addressProblem: () => undefined,
      addresses: () => undefined,
      sharesIngressPorts: true,
      joinsIngressPorts: true,
      services: [],
      configMaps: [],
    };
  }
  const own = (gateway: Gateway, port: number, envoyPort: number, address?: string): ListenerBinding => ({
    key: `${gatewayKey(gateway)}|${port}`,
    port: envoyPort,
    ...(address === undefined ? {} : { address }),
    owner: gateway,
  });
  const memo = new Map<string, ListenerBinding>();
  const memoized = (gateway: Gateway, port: number, make: () => ListenerBinding | undefined): ListenerBinding | undefined => {
    const key = `${gatewayKey(gateway)}|${port}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const made = make();
    if (made !== undefined) memo.set(key, made);
    return made;
  };
  const report = (gateway: Gateway, reason: string, message: string): void => {
    diagnostics.push({ object: refOf(gateway), severity: 'Warning', reason, message });
  };

  if (addressing.mode === 'pool') {
    const pool = allocatePoolAddresses(gateways, addressing.pool);
    for (const gateway of gateways) {
      const problem = pool.problems.get(gatewayKey(gateway));
      if (problem !== undefined) report(gateway, problem.reason, `${problem.message}; the Gateway's listeners are not served`);
    }
    return {
      bindingOf: (gateway, port) => {
        const ip = pool.addresses.get(gatewayKey(gateway));
        return ip === undefined ? undefined : memoized(gateway, port, () => own(gateway, port, port, ip));
      },
      portProblem: (gateway) => (pool.addresses.has(gatewayKey(gateway)) ? undefined : 'the Gateway has no address'),
      addressProblem: (gateway) => {
        const problem = pool.problems.get(gatewayKey(gateway));
        return problem === undefined ? undefined : { ...problem, blocking: true };
      },
      addresses: (gateway) => {
        const ip = pool.addresses.get(gatewayKey(gateway));
        return ip === undefined ? [] : [{ type: 'IPAddress', value: ip }];
      },
      // The Ingress listeners bind --listen-address, which may be the wildcard: an Ingress port stays the Ingress's.
      sharesIngressPorts: true,
      joinsIngressPorts: false,
      services: [],
      configMaps: [],
    };
  }

  const services = objectsOf(state, 'Service');
  const slices = objectsOf(state, 'EndpointSlice');
  const ingressPorts = options.listenerPorts ?? defaultListenerPorts;
  const unsupported = new Map<string, string>();
  for (const gateway of gateways) {
    const message = unsupportedServiceAddress(gateway);
    if (message === undefined) continue;
    unsupported.set(gatewayKey(gateway), message);
    report(gateway, GatewayReason.UnsupportedAddress, `${message}; the Gateway is not served`);
  }
  const controllerName = options.gatewayControllerName ?? defaultGatewayControllerName;
  const record = findGatewayPortRecord(objectsOf(state, 'ConfigMap'), addressing.namespace, controllerName);
  const allocation = allocateGatewayPorts(
    gateways.filter((g) => !unsupported.has(gatewayKey(g))),
    recordedGatewayPorts(record, services, addressing.namespace),
    addressing,
    new Set([ingressPorts.http, ingressPorts.https]),
    listenerSets,
  );
  const byGateway = managedServicesByGateway(services, addressing.namespace);
  const serviceOf = (gateway: Gateway): Service | undefined => byGateway.get(gatewayKey(gateway));
  return {
    bindingOf: (gateway, port) => {
      const envoyPort = allocation.ports.get(gatewayKey(gateway))?.get(port);
      return envoyPort === undefined ? undefined : memoized(gateway, port, () => own(gateway, port, envoyPort));
    },
    portProblem: (gateway, port) =>
      allocation.ports.get(gatewayKey(gateway))?.has(port) === true ? undefined : `no Envoy port is free in --gateway-port-range ${addressing.portRange.first}-${addressing.portRange.last}`,
    addressProblem: (gateway) => {
      const message = unsupported.get(gatewayKey(gateway));
      if (message !== undefined) return { reason: GatewayReason.UnsupportedAddress, message, blocking: true };
      const unusable = unusableServiceAddresses(gateway, addressing.loadBalancerAddresses);
      if (unusable.length > 0) {
        const where = addressing.loadBalancerAddresses === undefined ? '' : ' (not one of --gateway-load-balancer-addresses)';
        return { reason: GatewayReason.AddressNotUsable, message: `spec.addresses ${unusable.join(', ')}: the load balancer cannot give it${where}`, blocking: false };
      }
      const collision = gatewayServiceCollision(gateway, services, slices, addressing.namespace);
      if (collision !== undefined) return { reason: GatewayReason.AddressNotAssigned, message: collision, blocking: false };
      const have = serviceAddresses(serviceOf(gateway));
      const wanted = (gateway.spec?.addresses ?? []).map((a) => a.value).filter((v): v is string => v !== undefined && v !== '');
      const missing = wanted.filter((ip) => !have.some((a) => canonicalIp(a.value) === canonicalIp(ip)));
      if (missing.length > 0) return { reason: GatewayReason.AddressNotAssigned, message: `spec.addresses ${missing.join(', ')} not (yet) assigned to the Gateway's Service by the load balancer`, blocking: false };
      if (have.length === 0) return { reason: GatewayReason.AddressNotAssigned, message: "the Gateway's Service has no address yet (a LoadBalancer waits for the load balancer)", blocking: false };
      return undefined;
    },
    addresses: (gateway) => serviceAddresses(serviceOf(gateway)),
    sharesIngressPorts: false,
    joinsIngressPorts: false,
    // Every Gateway's Service as it is or will be (the Service manager creates it after this build): its creation and
    // its load balancer address must each start a build, or status.addresses would wait for an unrelated change.
    services: [
      ...new Set([
        ...[...byGateway.values()].map((s) => `${s.metadata.namespace ?? 'default'}/${s.metadata.name}`),
        ...gateways.map((g) => `${g.metadata.namespace ?? 'default'}/${gatewayServiceName(g)}`),
      ]),
    ].sort(),
    // The record, as it is or will be (the manager writes it): edited by hand, it moves ports.
    configMaps: [`${addressing.namespace}/${gatewayPortRecordName(controllerName)}`],
  };
}

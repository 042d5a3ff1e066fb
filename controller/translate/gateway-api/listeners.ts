// Which Gateway listeners are served: protocol and TLS settings, hostnames, the Ingress ports, the route kinds they
// admit, their certificates, and conflicts between listeners sharing a port (the spec's "distinct listeners"). Every
// refusal is reported on the Gateway; a listener that is not served never affects another one.
import type { TlsSecretIR } from '../../../ir/index.js';
import { namespaceOf } from '../shared/kinds.js';
import type { Gateway, GatewayListener, ReferenceGrant, Secret } from '../shared/kube-objects.js';
import { type TranslateOptions, defaultListenerPorts } from '../shared/options.js';
import { secretResourceName, validateTlsSecret } from '../shared/tls-secret.js';
import { gatewayGroup } from './backend-refs.js';
import { hostnameError } from './hostname-intersection.js';
import { GatewayReason } from './reasons.js';
import { isGranted } from './reference-grants.js';

/** The listener protocols served. */
export type ServedProtocol = 'HTTP' | 'HTTPS' | 'TLS' | 'TCP';

/** The route kinds each protocol takes (the listener's default `supportedKinds`). */
export const routeKindsOf: Readonly<Record<ServedProtocol, readonly string[]>> = {
  HTTP: ['HTTPRoute'],
  HTTPS: ['HTTPRoute'],
  TLS: ['TLSRoute'],
  TCP: ['TCPRoute'],
};

/**
 * Protocols that can share a port: HTTPS and TLS listeners are told apart by SNI (one Envoy listener with a filter
 * chain per name); plaintext HTTP has one route table per port; TCP has nothing to tell two listeners apart.
 */
function portFamily(protocol: ServedProtocol): 'http' | 'tls' | 'tcp' {
  return protocol === 'HTTP' ? 'http' : protocol === 'TCP' ? 'tcp' : 'tls';
}

/** A Gateway listener that is served. */
export interface AcceptedListener {
  gateway: Gateway;
  listener: GatewayListener;
  protocol: ServedProtocol;
  /** Lower-cased; absent: every host (always absent for TCP, where the spec ignores it). */
  hostname: string | undefined;
  /** TLS listeners: whether connections are terminated here or passed through. HTTPS always terminates. */
  tlsMode?: 'Terminate' | 'Passthrough';
  /** HTTPS and TLS Terminate: the certificate (the first valid certificateRef). */
  certificate?: TlsSecretIR;
  /** The route kinds (group gateway.networking.k8s.io) that may attach: allowedRoutes.kinds the protocol takes. */
  routeKinds: string[];
}

/** What happened to a listener that is not served, or served with a problem (for the Gateway's listener status). */
export interface ListenerProblem {
  gateway: Gateway;
  listener: string;
  /** `Accepted` false (not served), `Conflicted` (not served), `ResolvedRefs` false (served or not, see `served`). */
  condition: 'Accepted' | 'Conflicted' | 'ResolvedRefs';
  reason: string;
  message: string;
  /** Whether the listener is served despite it (a refused certificateRef beside a valid one, a route kind it drops). */
  served: boolean;
}

export interface ListenerSelection {
  /** In Gateway age order, then listener order: the order that decides who owns a port's hostname. */
  accepted: AcceptedListener[];
  problems: ListenerProblem[];
  /** `namespace/name` of every Secret a certificateRef names (existing or not), for the reconciler's interest. */
  secrets: string[];
}

/** A listener that passed its own checks, before conflicts with the others are decided. */
type Candidate = AcceptedListener & { key: string };

export function selectListeners(
  gateways: readonly Gateway[],
  secrets: readonly Secret[],
  grants: readonly ReferenceGrant[],
  options: TranslateOptions,
): ListenerSelection {
  const problems: ListenerProblem[] = [];
  const referencedSecrets = new Set<string>();
  const secretIndex = new Map(secrets.map((s) => [secretResourceName(namespaceOf(s.metadata), s.metadata.name), s]));
  // Owners of ports and (port, hostname) keys, decided by the Gateways before (older ones): a later Gateway never
  // takes a port or a name from an older one, so a new Gateway cannot take another tenant's traffic.
  const portOwners = new Map<number, { family: string; owner: string }>();
  const keyOwners = new Map<string, string>();
  const accepted: AcceptedListener[] = [];

  for (const gateway of gateways) {
    const gatewayName = `Gateway ${namespaceOf(gateway.metadata)}/${gateway.metadata.name}`;
    const problem = (listener: GatewayListener, condition: ListenerProblem['condition'], reason: string, message: string, served = false): void => {
      problems.push({ gateway, listener: listener.name, condition, reason, message: `listener ${listener.name} (port ${listener.port}): ${message}`, served });
    };
    const candidates: Candidate[] = [];
    for (const listener of gateway.spec?.listeners ?? []) {
      const candidate = checkListener(gateway, listener, options, problem);
      if (candidate === undefined) continue;
      if (candidate.protocol === 'HTTPS' || candidate.tlsMode === 'Terminate') {
        const certificate = resolveCertificate(gateway, listener, secretIndex, grants, referencedSecrets, problem);
        if (certificate === undefined) continue;
        candidates.push({ ...candidate, certificate });
      } else candidates.push(candidate);
    }

    // Conflicts inside the Gateway: the spec says no conflicting listener wins, so all of them are refused.
    const conflicted = new Set<Candidate>();
    for (const port of new Set(candidates.map((c) => c.listener.port))) {
      const onPort = candidates.filter((c) => c.listener.port === port);
      if (new Set(onPort.map((c) => portFamily(c.protocol))).size > 1) {
        for (const c of onPort) {
          conflicted.add(c);
          problem(c.listener, 'Conflicted', GatewayReason.ProtocolConflict, `protocols ${[...new Set(onPort.map((o) => o.protocol))].sort().join(' and ')} cannot share port ${port}`);
        }
        continue;
      }
      for (const c of onPort) {
        const same = onPort.filter((o) => o.key === c.key);
        if (same.length < 2) continue;
        conflicted.add(c);
        problem(c.listener, 'Conflicted', GatewayReason.HostnameConflict, c.protocol === 'TCP' ? `TCP listeners ${same.map((o) => o.listener.name).join(', ')} share port ${port}, and TCP has no hostname to tell them apart` : `listeners ${same.map((o) => o.listener.name).join(', ')} share port ${port} and hostname ${c.hostname ?? '(any)'}`);
      }
    }

    // Conflicts with older Gateways' listeners: those keep what they have.
    for (const c of candidates) {
      if (conflicted.has(c)) continue;
      const port = c.listener.port;
      const portOwner = portOwners.get(port);
      if (portOwner !== undefined && portOwner.family !== portFamily(c.protocol)) {
        problem(c.listener, 'Conflicted', GatewayReason.ProtocolConflict, `port ${port} is served with another protocol by ${portOwner.owner}`);
        continue;
      }
      const keyOwner = keyOwners.get(c.key);
      if (keyOwner !== undefined) {
        problem(c.listener, 'Conflicted', GatewayReason.HostnameConflict, c.protocol === 'TCP' ? `port ${port} is already a TCP listener of ${keyOwner}` : `hostname ${c.hostname ?? '(any)'} on port ${port} is already served by ${keyOwner}`);
        continue;
      }
      const owner = `${gatewayName} listener ${c.listener.name}`;
      if (portOwner === undefined) portOwners.set(port, { family: portFamily(c.protocol), owner });
      keyOwners.set(c.key, owner);
      const { key: _key, ...served } = c;
      accepted.push(served);
    }
  }
  return { accepted, problems, secrets: [...referencedSecrets].sort() };
}

/** A listener's own checks (protocol, port, hostname, TLS settings, route kinds); undefined when it is not served. */
function checkListener(
  gateway: Gateway,
  listener: GatewayListener,
  options: TranslateOptions,
  problem: (listener: GatewayListener, condition: ListenerProblem['condition'], reason: string, message: string, served?: boolean) => void,
): Candidate | undefined {
  const protocol = listener.protocol;
  if (protocol !== 'HTTP' && protocol !== 'HTTPS' && protocol !== 'TLS' && protocol !== 'TCP') {
    problem(listener, 'Accepted', GatewayReason.UnsupportedProtocol, `protocol ${protocol} is not supported; HTTP, HTTPS, TLS and TCP listeners are served`);
    return undefined;
  }
  // Ingress keeps its ports: sharing them with Gateway listeners is later work.
  const ingressPorts = options.listenerPorts ?? defaultListenerPorts;
  if (listener.port === ingressPorts.http || listener.port === ingressPorts.https) {
    problem(listener, 'Accepted', GatewayReason.PortUnavailable, `port ${listener.port} is the Ingress listeners' (--http-port, --https-port); choose another port`);
    return undefined;
  }
  // TCP has no host names; the spec ignores a listener hostname there.
  const hostname = protocol === 'TCP' ? undefined : listener.hostname?.toLowerCase();
  if (hostname !== undefined) {
    const error = hostnameError(listener.hostname as string);
    if (error !== undefined) {
      problem(listener, 'Accepted', GatewayReason.InvalidHostname, error);
      return undefined;
    }
  }
  let tlsMode: AcceptedListener['tlsMode'];
  if (protocol === 'HTTPS') {
    if ((listener.tls?.mode ?? 'Terminate') !== 'Terminate') {
      problem(listener, 'Accepted', GatewayReason.UnsupportedValue, `tls.mode ${listener.tls?.mode} is not allowed for HTTPS; HTTPS terminates TLS`);
      return undefined;
    }
    tlsMode = 'Terminate';
  } else if (protocol === 'TLS') {
    const mode = listener.tls?.mode;
    if (mode !== 'Terminate' && mode !== 'Passthrough') {
      problem(listener, 'Accepted', GatewayReason.UnsupportedValue, `a TLS listener needs tls.mode Terminate or Passthrough${mode === undefined ? '' : `, not ${mode}`}`);
      return undefined;
    }
    tlsMode = mode;
  }
  // allowedRoutes.kinds: the kinds this protocol takes are kept; any other is refused (InvalidRouteKinds), and the
  // listener is served for the rest.
  const supported = routeKindsOf[protocol];
  const asked = listener.allowedRoutes?.kinds;
  let routeKinds = [...supported];
  if (asked !== undefined && asked.length > 0) {
    const valid = asked.filter((k) => (k.group ?? gatewayGroup) === gatewayGroup && supported.includes(k.kind));
    const invalid = asked.filter((k) => !valid.includes(k));
    routeKinds = [...new Set(valid.map((k) => k.kind))];
    if (invalid.length > 0) {
      const names = invalid.map((k) => `${k.kind}${(k.group ?? gatewayGroup) === gatewayGroup ? '' : ` (group ${k.group === '' ? 'core' : k.group})`}`).join(', ');
      problem(listener, 'ResolvedRefs', GatewayReason.InvalidRouteKinds, `allowedRoutes.kinds ${names} cannot attach to ${protocol === 'HTTP' || protocol === 'HTTPS' ? 'an' : 'a'} ${protocol} listener (it takes ${supported.join(', ')})`, true);
    }
  }
  const key = protocol === 'TCP' ? `${listener.port}` : `${listener.port}/${hostname ?? '*'}`;
  return { gateway, listener, protocol, hostname, ...(tlsMode === undefined ? {} : { tlsMode }), routeKinds, key };
}

/**
 * The certificate of a terminating listener: the first of its certificateRefs that is a Secret it may read (same
 * namespace, or a ReferenceGrant there from this Gateway) holding a usable kubernetes.io/tls certificate. Each
 * refused ref is reported (what is wrong, never what the Secret holds); none usable: the listener is not served.
 */
function resolveCertificate(
  gateway: Gateway,
  listener: GatewayListener,
  secrets: ReadonlyMap<string, Secret>,
  grants: readonly ReferenceGrant[],
  referenced: Set<string>,
  problem: (listener: GatewayListener, condition: ListenerProblem['condition'], reason: string, message: string, served?: boolean) => void,
): TlsSecretIR | undefined {
  const gatewayNamespace = namespaceOf(gateway.metadata);
  const refused: { reason: string; message: string }[] = [];
  let certificate: TlsSecretIR | undefined;
  for (const [i, ref] of (listener.tls?.certificateRefs ?? []).entries()) {
    const namespace = ref.namespace ?? gatewayNamespace;
    const name = secretResourceName(namespace, ref.name);
    const where = `certificateRefs[${i}] (${name})`;
    if ((ref.group ?? '') !== '' || (ref.kind ?? 'Secret') !== 'Secret') {
      refused.push({ reason: GatewayReason.InvalidCertificateRef, message: `${where}: kind ${ref.kind ?? 'Secret'}${(ref.group ?? '') === '' ? '' : `.${ref.group}`} is not supported; use a Secret` });
      continue;
    }
    if (namespace !== gatewayNamespace && !isGranted(grants, { from: { group: gatewayGroup, kind: 'Gateway', namespace: gatewayNamespace }, to: { group: '', kind: 'Secret', namespace, name: ref.name } })) {
      refused.push({ reason: GatewayReason.RefNotPermitted, message: `${where}: no ReferenceGrant in ${namespace} lets Gateways of ${gatewayNamespace} refer to it` });
      continue;
    }
    referenced.add(name);
    const secret = secrets.get(name);
    if (secret === undefined) {
      refused.push({ reason: GatewayReason.InvalidCertificateRef, message: `${where}: secret not found` });
      continue;
    }
    const validated = validateTlsSecret(secret);
    if (!validated.valid) {
      refused.push({ reason: GatewayReason.InvalidCertificateRef, message: `${where}: ${validated.error}` });
      continue;
    }
    certificate ??= validated.secret;
  }
  if ((listener.tls?.certificateRefs ?? []).length === 0) refused.push({ reason: GatewayReason.InvalidCertificateRef, message: 'a terminating listener needs tls.certificateRefs' });
  for (const r of refused) problem(listener, 'ResolvedRefs', r.reason, certificate === undefined ? `${r.message}; the listener is not served` : `${r.message}; the listener uses another certificate`, certificate !== undefined);
  return certificate;
}

/** Whether a listener lets a route of `kind` from `namespace` attach (allowedRoutes: kinds, namespaces Same by default). */
export function allowsRoute(l: AcceptedListener, kind: string, namespace: string): boolean {
  if (!l.routeKinds.includes(kind)) return false;
  const from = l.listener.allowedRoutes?.namespaces?.from ?? 'Same';
  if (from === 'All') return true;
  if (from === 'Same') return namespace === namespaceOf(l.gateway.metadata);
  // Selector needs the Namespace objects' labels, which are not read yet: it admits none (safe for tenants).
  return false;
}

// Listener validation per Gateway: which listeners are served and, for each listener, why not when it is not. Common
// checks here (protocol known, not on an Ingress port, valid hostname, a socket, the protocol's own checks, a
// certificate where TLS is terminated), then conflicts between listeners on one socket (the spec's "distinct
// listeners"): in one Gateway (or one ListenerSet) every conflicting listener is refused (no winner, as the spec
// says); across Gateways the older Gateway keeps its socket's protocol and its names, so a new Gateway never takes
// traffic from another. A Gateway's ListenerSets (listener-sets.ts) come right after it, oldest first: each keeps
// what the Gateway and older sets serve, as across Gateways (the spec's listener precedence). An HTTPS listener also
// takes its Gateway's client-certificate validation (frontend-validation.ts; a ListenerSet's, its parent's).
import type { CertificateAuthorityIR, ClientValidationIR, TlsSecretIR } from '../../../ir/index.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import { type ClusterState, type Gateway, type GatewayListener, type ListenerSet, objectsOf, refOf } from '../shared/kube-objects.js';
import { type TranslateOptions, defaultListenerPorts } from '../shared/options.js';
import { gatewayGroup } from './backend-refs.js';
import { type FrontendValidationContext, frontendValidationOf, indexConfigMaps, resolveFrontendValidation } from './frontend-validation.js';
import { hostnameError } from './hostname-intersection.js';
import { type CertificateContext, indexSecrets, resolveCertificate } from './listener-certificates.js';
import type { GatewayBindings, ListenerBinding } from './listener-bindings.js';
import { type ListenerProtocol, type ListenerRefusal, listenerProtocols } from './listener-protocols.js';
import { GatewayReason } from './reasons.js';
import type { RouteGroupKind } from './status-data.js';

/** A Gateway listener that is served. */
export interface AcceptedListener {
  /** The Gateway it is served for (a ListenerSet's parent). */
  gateway: Gateway;
  /** The ListenerSet it comes from; absent: the Gateway's own (routes reach it only through a parentRef to it). */
  set?: ListenerSet;
  listener: GatewayListener;
  /** Lower-cased; absent: every host (always absent for TCP, where the spec ignores it). */
  hostname: string | undefined;
  /** The route kinds it takes: its protocol's, narrowed by allowedRoutes.kinds. */
  supportedKinds: RouteGroupKind[];
  /** The Envoy socket serving it (listener-bindings.ts): shared per port, or the Gateway's own. */
  binding: ListenerBinding;
  /** HTTPS and TLS Terminate: the certificate connections are terminated with. */
  certificate?: TlsSecretIR;
  /** HTTPS: the client certificates its connections are asked for (the Gateway's spec.tls.frontend for its port). */
  clientValidation?: ClientValidationIR;
  /** The trusted CAs `clientValidation` names. */
  certificateAuthority?: CertificateAuthorityIR;
}

/** What acceptance found about one listener of one Gateway (status.listeners reads it). */
export interface ListenerVerdict {
  listener: GatewayListener;
  supportedKinds: RouteGroupKind[];
  /** Absent: served (then `accepted` is set). */
  refusal?: ListenerRefusal;
  accepted?: AcceptedListener;
  /** allowedRoutes.kinds names a kind this listener cannot take (the listener is served for the others). */
  invalidRouteKinds?: string;
  /** A served listener's refused certificateRefs beside the one it uses (ResolvedRefs=False). */
  certificateProblem?: ListenerRefusal;
  /** A refused caCertificateRef of the listener's frontend validation (ResolvedRefs=False), served or not. */
  caProblem?: ListenerRefusal;
  /**
   * Refused for its certificate references alone: it serves nothing, but routes still attach to it (attachment
   * depends only on parentRefs and allowedRoutes, the spec's attachedRoutes says, so it shows a listener's blast radius).
   */
  attachable?: AcceptedListener;
}

export interface ListenerAcceptance {
  /** Served listeners, Gateways oldest first, each Gateway's in its order. */
  accepted: AcceptedListener[];
  /** Listeners refused for their certificate references alone (ListenerVerdict.attachable), same order. */
  attachableOnly: AcceptedListener[];
  /** Per Gateway and per ListenerSet it takes, a verdict per listener in the object's order. */
  verdicts: Map<Gateway | ListenerSet, ListenerVerdict[]>;
  /** `namespace/name` of every Secret a permitted certificateRef names, sorted (the reconciler's interest). */
  secrets: string[];
  /** `namespace/name` of every ConfigMap a permitted caCertificateRef names, sorted (the reconciler's interest). */
  configMaps: string[];
}

/** The route kinds a listener takes, and the kinds allowedRoutes names that it cannot take. */
function routeKindsOf(listener: GatewayListener, protocolKinds: readonly string[]): { supported: RouteGroupKind[]; invalid: string[] } {
  const named = listener.allowedRoutes?.kinds;
  if (named === undefined || named.length === 0) return { supported: protocolKinds.map((kind) => ({ group: gatewayGroup, kind })), invalid: [] };
  const supported: RouteGroupKind[] = [];
  const invalid: string[] = [];
  for (const k of named) {
    const group = k.group ?? gatewayGroup;
    if (group === gatewayGroup && protocolKinds.includes(k.kind)) {
      if (!supported.some((s) => s.kind === k.kind)) supported.push({ group, kind: k.kind });
    } else invalid.push(group === '' ? k.kind : `${k.kind}.${group}`);
  }
  return { supported, invalid };
}

/** A listener that passed its own checks; conflicts with the others on its socket are decided next. */
interface Candidate {
  served: AcceptedListener;
  protocol: ListenerProtocol;
  /** What must be unique on the socket: the hostname (or any), or the socket itself for TCP. */
  claim: string;
  verdict: ListenerVerdict;
}

/** Where a served listener comes from, for names that must be unique per Envoy (its Gateway's, or its ListenerSet's). */
export function servedListenerName(l: AcceptedListener): string {
  return l.set === undefined
    ? `gateway/${namespaceOf(l.gateway.metadata)}/${l.gateway.metadata.name}/${l.listener.name}`
    : `listenerset/${namespaceOf(l.set.metadata)}/${l.set.metadata.name}/${l.listener.name}`;
}

/** The object whose namespace `Same` means and whose ReferenceGrants count: the ListenerSet, or the Gateway. */
export function holderOf(l: AcceptedListener): Gateway | ListenerSet {
  return l.set ?? l.gateway;
}

export function acceptListeners(
  gateways: readonly Gateway[],
  state: ClusterState,
  options: TranslateOptions,
  bindings: GatewayBindings,
  diagnostics: Diagnostic[],
  listenerSets: ReadonlyMap<Gateway, readonly ListenerSet[]> = new Map(),
): ListenerAcceptance {
  const ingressPorts = options.listenerPorts ?? defaultListenerPorts;
  const certificates: CertificateContext = { secrets: indexSecrets(state.secrets), grants: objectsOf(state, 'ReferenceGrant'), referenced: new Set() };
  const frontend: FrontendValidationContext = { configMaps: indexConfigMaps(state.configMaps ?? []), grants: certificates.grants, referenced: new Set() };
  // Per socket: the family of the first Gateway to serve it and who; per socket and name: who serves it.
  const socketOwners = new Map<string, { family: string; owner: string }>();
  const claimed = new Map<string, string>();
  const accepted: AcceptedListener[] = [];
  const attachableOnly: AcceptedListener[] = [];
  const verdicts = new Map<Gateway | ListenerSet, ListenerVerdict[]>();
  // Each Gateway, then the ListenerSets it takes: the merged listener list of the spec, in its precedence.
  const holders = gateways.flatMap((gateway) => [{ gateway, holder: gateway as Gateway | ListenerSet }, ...(listenerSets.get(gateway) ?? []).map((set) => ({ gateway, holder: set }))]);
  for (const { gateway, holder } of holders) {
    const set = holder.kind === 'ListenerSet' ? holder : undefined;
    const gatewayName = `${holder.kind} ${namespaceOf(holder.metadata)}/${holder.metadata.name}`;
    const report = (refusal: ListenerRefusal): void => {
      diagnostics.push({ object: refOf(holder), severity: 'Warning', reason: refusal.reason, message: refusal.message });
    };
    // In listener order; a candidate's verdict is settled once conflicts are known.
    const gatewayVerdicts: ListenerVerdict[] = [];
    verdicts.set(holder, gatewayVerdicts);
    const candidates: Candidate[] = [];
    for (const listener of holder.spec?.listeners ?? []) {
      const where = `listener ${listener.name} (port ${listener.port})`;
      const refuse = (supportedKinds: RouteGroupKind[], refusal: ListenerRefusal, quiet = false): void => {
        if (!quiet) report(refusal);
        gatewayVerdicts.push({ listener, supportedKinds, refusal });
      };
      const protocol = listenerProtocols[listener.protocol];
      if (protocol === undefined) {
        refuse([], { condition: 'Accepted', reason: GatewayReason.UnsupportedProtocol, message: `${where}: protocol ${listener.protocol} is not supported; HTTP, HTTPS, TLS and TCP listeners are served` });
        continue;
      }
      const kinds = routeKindsOf(listener, protocol.routeKinds);
      // On the Ingress ports (shared mode) an HTTP listener joins the Ingress HTTP listener, an HTTPS listener with a
      // hostname the Ingress HTTPS one (coexistence.ts: a host both claim is the older's). Anything else there would
      // need a port of its own: refused. (A Gateway with Envoy ports of its own maps its listener ports elsewhere.)
      const onIngressPort = listener.port === ingressPorts.http || listener.port === ingressPorts.https;
      const joinsIngress =
        bindings.joinsIngressPorts &&
        ((listener.port === ingressPorts.http && listener.protocol === 'HTTP') || (listener.port === ingressPorts.https && listener.protocol === 'HTTPS' && listener.hostname !== undefined));
      // Client-certificate validation holds only where a listener's routes are reachable through its own TLS chain
      // alone; the Ingress HTTPS listener serves one route table for every name, so a connection made with another
      // name (and no client certificate) could reach this listener's hosts.
      if (joinsIngress && listener.protocol === 'HTTPS' && frontendValidationOf(gateway, listener.port) !== undefined) {
        refuse(kinds.supported, { condition: 'Accepted', reason: GatewayReason.PortUnavailable, message: `${where}: client-certificate validation (spec.tls.frontend) needs a port other than the Ingress HTTPS port (--https-port), whose one route table every TLS name reaches` });
        continue;
      }
      if (bindings.sharesIngressPorts && !joinsIngress && onIngressPort) {
        const why =
          bindings.joinsIngressPorts && listener.port === ingressPorts.https && listener.protocol === 'HTTPS'
            ? 'an HTTPS listener on the Ingress HTTPS port (--https-port) needs a hostname (names without one are the Ingress default certificate\'s)'
            : `port ${listener.port} is the Ingress listeners' (--http-port, --https-port)`;
        refuse(kinds.supported, { condition: 'Accepted', reason: GatewayReason.PortUnavailable, message: `${where}: ${why}; choose another port` });
        continue;
      }
      if (protocol.hostnames && listener.hostname !== undefined) {
        const error = hostnameError(listener.hostname);
        if (error !== undefined) {
          refuse(kinds.supported, { condition: 'Accepted', reason: GatewayReason.InvalidHostname, message: `${where}: ${error}` });
          continue;
        }
      }
      const addressProblem = bindings.addressProblem(gateway);
      const binding = bindings.bindingOf(gateway, listener.port);
      if (binding === undefined) {
        // A Gateway without an address was reported once, for the Gateway; its listeners just say so.
        const why =
          addressProblem?.blocking !== true
            ? (bindings.portProblem(gateway, listener.port) ?? 'no Envoy port')
            : addressProblem.reason === GatewayReason.InvalidParameters
              ? `the Gateway is not served (${addressProblem.reason})`
              : `the Gateway has no address (${addressProblem.reason})`;
        refuse(kinds.supported, { condition: 'Accepted', reason: GatewayReason.PortUnavailable, message: `${where}: ${why}` }, addressProblem?.blocking === true);
        continue;
      }
      const ownRefusal = protocol.refuse?.(listener, gateway);
      if (ownRefusal !== undefined) {
        refuse(kinds.supported, ownRefusal);
        continue;
      }
      let certificate: TlsSecretIR | undefined;
      let certificateProblem: ListenerRefusal | undefined;
      if (protocol.terminates?.(listener) === true) {
        const resolved = resolveCertificate(holder, listener, certificates);
        for (const problem of resolved.problems) report(problem);
        if (resolved.certificate === undefined) {
          const attachable: AcceptedListener = { gateway, ...(set === undefined ? {} : { set }), listener, hostname: protocol.hostnames ? listener.hostname?.toLowerCase() : undefined, supportedKinds: kinds.supported, binding };
          attachableOnly.push(attachable);
          gatewayVerdicts.push({ listener, supportedKinds: kinds.supported, refusal: resolved.problems[0] as ListenerRefusal, attachable });
          continue;
        }
        certificate = resolved.certificate;
        certificateProblem = resolved.problems[0];
      }
      // The spec applies spec.tls.frontend to listeners "handling HTTPS traffic".
      const validation = listener.protocol === 'HTTPS' ? resolveFrontendValidation(gateway, listener, frontend) : {};
      const caProblem = validation.problem;
      if (caProblem !== undefined) report(caProblem);
      if (validation.refusal !== undefined) {
        report(validation.refusal);
        // Refused for its CA references alone: routes still attach to it, as to a listener refused for its certificate's.
        const attachable: AcceptedListener | undefined =
          validation.refusal.reason === GatewayReason.NoValidCACertificate ? { gateway, ...(set === undefined ? {} : { set }), listener, hostname: protocol.hostnames ? listener.hostname?.toLowerCase() : undefined, supportedKinds: kinds.supported, binding } : undefined;
        if (attachable !== undefined) attachableOnly.push(attachable);
        gatewayVerdicts.push({
          listener,
          supportedKinds: kinds.supported,
          refusal: validation.refusal,
          ...(attachable === undefined ? {} : { attachable }),
          ...(certificateProblem === undefined ? {} : { certificateProblem }),
          ...(caProblem === undefined ? {} : { caProblem }),
        });
        continue;
      }
      const hostname = protocol.hostnames ? listener.hostname?.toLowerCase() : undefined;
      const invalidRouteKinds = kinds.invalid.length > 0 ? `${where}: allowedRoutes.kinds ${kinds.invalid.join(', ')} cannot attach to a listener of protocol ${listener.protocol}` : undefined;
      if (invalidRouteKinds !== undefined) report({ condition: 'ResolvedRefs', reason: GatewayReason.InvalidRouteKinds, message: invalidRouteKinds });
      const served: AcceptedListener = {
        gateway,
        ...(set === undefined ? {} : { set }),
        listener,
        hostname,
        supportedKinds: kinds.supported,
        binding,
        ...(certificate === undefined ? {} : { certificate }),
        ...(validation.clientValidation === undefined ? {} : { clientValidation: validation.clientValidation, certificateAuthority: validation.certificateAuthority as CertificateAuthorityIR }),
      };
      const verdict: ListenerVerdict = {
        listener,
        supportedKinds: kinds.supported,
        accepted: served,
        ...(invalidRouteKinds === undefined ? {} : { invalidRouteKinds }),
        ...(certificateProblem === undefined ? {} : { certificateProblem }),
        ...(caProblem === undefined ? {} : { caProblem }),
      };
      gatewayVerdicts.push(verdict);
      candidates.push({ served, protocol, claim: protocol.hostnames ? (hostname ?? '*') : 'tcp', verdict });
    }

    const conflict = (c: Candidate, reason: string, message: string): void => {
      const refusal: ListenerRefusal = { condition: 'Conflicted', reason, message: `listener ${c.served.listener.name} (port ${c.served.listener.port}): ${message}` };
      report(refusal);
      const { accepted: _served, certificateProblem: _problem, caProblem: _caProblem, ...rest } = c.verdict;
      gatewayVerdicts[gatewayVerdicts.indexOf(c.verdict)] = { ...rest, refusal };
    };
    // What older Gateways on a shared socket, or the Gateway and older sets, serve stays theirs: the refusal of a
    // listener that would take it, or undefined.
    const olderConflict = (c: Candidate): (() => void) | undefined => {
      const { binding, listener } = c.served;
      const socketOwner = socketOwners.get(binding.key);
      if (socketOwner !== undefined && socketOwner.family !== c.protocol.family) {
        return () => conflict(c, GatewayReason.ProtocolConflict, `port ${listener.port} is served with another protocol by ${socketOwner.owner}`);
      }
      const owner = claimed.get(`${binding.key}/${c.claim}`);
      if (owner === undefined) return undefined;
      return () =>
        conflict(c, GatewayReason.HostnameConflict, c.protocol.hostnames ? `hostname ${c.served.hostname ?? '(any)'} on port ${listener.port} is already served by ${owner}` : `port ${listener.port} is already a ${listener.protocol} listener of ${owner}`);
    };
    // A ListenerSet's listeners meet the older ones first (the spec's merged list: the Gateway's listeners, then older
    // sets, win), so a set listener refused for one of those does not take its siblings down with it.
    const contenders = set === undefined
      ? candidates
      : candidates.filter((c) => {
          const refuse = olderConflict(c);
          refuse?.();
          return refuse === undefined;
        });
    // Conflicts inside the Gateway (or ListenerSet): all conflicting listeners are refused.
    const inGateway = new Set<Candidate>();
    for (const key of new Set(contenders.map((c) => c.served.binding.key))) {
      const onSocket = contenders.filter((c) => c.served.binding.key === key);
      const protocols = [...new Set(onSocket.map((c) => c.served.listener.protocol))].sort();
      if (new Set(onSocket.map((c) => c.protocol.family)).size > 1) {
        for (const c of onSocket) {
          inGateway.add(c);
          conflict(c, GatewayReason.ProtocolConflict, `protocols ${protocols.join(' and ')} cannot share port ${c.served.listener.port}`);
        }
        continue;
      }
      for (const c of onSocket) {
        const same = onSocket.filter((o) => o.claim === c.claim);
        if (same.length < 2) continue;
        inGateway.add(c);
        const names = same.map((o) => o.served.listener.name).join(', ');
        conflict(c, GatewayReason.HostnameConflict, c.protocol.hostnames ? `listeners ${names} share port ${c.served.listener.port} and hostname ${c.served.hostname ?? '(any)'}` : `listeners ${names} share port ${c.served.listener.port}, and ${c.served.listener.protocol} has no hostname to tell them apart`);
      }
    }
    // Conflicts with older Gateways on a shared socket: those keep what they serve.
    for (const c of contenders) {
      if (inGateway.has(c)) continue;
      const refuse = olderConflict(c);
      if (refuse !== undefined) {
        refuse();
        continue;
      }
      const { binding, listener } = c.served;
      const ownerName = `${gatewayName} listener ${listener.name}`;
      if (!socketOwners.has(binding.key)) socketOwners.set(binding.key, { family: c.protocol.family, owner: ownerName });
      claimed.set(`${binding.key}/${c.claim}`, ownerName);
      accepted.push(c.served);
    }
  }
  return { accepted, attachableOnly, verdicts, secrets: [...certificates.referenced].sort(), configMaps: [...frontend.referenced].sort() };
}

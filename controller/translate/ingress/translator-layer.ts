// A translator layer: a reading of the Ingresses on top of the Ingress API (the ingress-nginx annotations,
// nginx/nginx-layer.ts) that plugs into translate() at its named phases and nowhere else. translate() owns the
// order of the phases; a layer owns what happens in them. Each phase hands back new objects where it changes
// something (copy-on-write of the changed path): no phase writes to an IR object another phase built, so the
// memos of the Envoy builders (envoy/built-once.ts) may key on IR objects. Tests freeze what is handed between
// phases (freeze-in-tests.ts), so a phase that writes to it throws.
import type { ClusterIR, DataPlaneIR, ListenerSettingsIR, RouteIR, RouteTableIR, TlsPassthroughIR, TlsSecretIR, TlsServerIR, VirtualHostIR } from '../../../ir/index.js';
import type { IngressAnnotations } from './annotations.js';
import type { ServiceIndex } from '../shared/backend.js';
import type { CollectedRoutes } from './collected-routes.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import type { ClusterState, Ingress } from '../shared/kube-objects.js';
import type { TranslateOptions } from '../shared/options.js';
import type { References } from '../shared/references.js';

/** What one translation shares with its layer. */
export interface TranslationContext {
  state: ClusterState;
  options: TranslateOptions;
  /** Pushed to in the order things are found; translate() sorts them by object at the end. */
  diagnostics: Diagnostic[];
  services: ServiceIndex;
  /** The translation's clusters by name: a phase adds the clusters its routes use. */
  clusters: Map<string, ClusterIR>;
  allowExternalName: boolean;
}

/**
 * What the Ingress translation serves while it is finished, before it becomes the IR's listeners
 * (ingress-listeners.ts): the plain-HTTP table, the TLS chains (all serving `FinishedDataPlane.httpsTable`), the
 * passed-through names, the listeners' settings, and the rest of the data plane.
 */
export interface IngressDataPlane extends Omit<DataPlaneIR, 'listeners'> {
  http: RouteTableIR;
  tlsServers: TlsServerIR[];
  tlsPassthrough?: TlsPassthroughIR[];
  listenerSettings?: ListenerSettingsIR;
}

/**
 * The Ingress data plane, and the route table of the TLS chains also when there are none
 * (TranslationResult.httpsTable): a phase that changes routes changes them in both.
 */
export interface FinishedDataPlane {
  ir: IngressDataPlane;
  httpsTable: RouteTableIR;
}

/** A host's TLS certificate, as translate() collected it. */
export interface TlsHostSecret {
  secret: TlsSecretIR;
}

export interface TranslatorLayer {
  /** The phases of one translation (closures over what the layer read of the cluster state). */
  begin(context: TranslationContext): LayerPhases;
}

/** The phases, in the order translate() runs them. */
export interface LayerPhases {
  // Before rules.
  /**
   * The served Ingresses (oldest first) as the layer reads them (`ingresses`), and those of them whose own rules
   * and default backends are translated (`mains`; the others only lend their backends to these).
   */
  ingresses(served: readonly Ingress[]): { ingresses: readonly Ingress[]; mains: readonly Ingress[] };
  /** The parsed annotations of a main Ingress: the layer's reading, which is the core's where the layer is off. */
  annotations(ingress: Ingress): IngressAnnotations;
  /** Whether the Ingress's spec.defaultBackend serves only its own hosts (then it is not the controller-wide one). */
  hostScopedDefaultBackend(ingress: Ingress): boolean;
  /** The host-scoped default backend routes, by Ingress (their clusters added to the context's). */
  hostDefaults(mains: readonly Ingress[]): ReadonlyMap<Ingress, RouteIR>;
  /** How collectRules() reads paths: which are regexes, and which ImplementationSpecific ones are character prefixes. */
  rulePaths(mains: readonly Ingress[]): { regex: (ingress: Ingress, host: string) => boolean; characterPrefix: (ingress: Ingress) => boolean };

  // Per route: after the core's annotation policies, before routes are assembled into virtual hosts.
  routes(routes: CollectedRoutes, hosts: { tls: ReadonlySet<string>; contributors: ReadonlyMap<string, readonly Ingress[]> }): CollectedRoutes;

  // Per virtual host.
  /**
   * The default backend of a host (the last route of its virtual host) among `routes`' default backends, from the
   * Ingresses with rules for it (oldest first); asked only when there are host-scoped ones.
   */
  hostFallback(contributors: readonly Ingress[] | undefined, routes: CollectedRoutes): RouteIR | undefined;
  /** The assembled virtual hosts by host, with the layer's changes and added names. */
  virtualHosts(virtualHosts: ReadonlyMap<string, VirtualHostIR>): LayerVirtualHosts;
  /** Whether a TLS host's connections bypass the terminating filter chains (they are the layer's, see final). */
  passesThroughTls(host: string): boolean;
  /** The plain-HTTP virtual host of a host, from the one the core would serve (`plain`) and the host's routes. */
  plainHttpVirtualHost(plain: VirtualHostIR, routes: readonly RouteIR[] | undefined, contributors: readonly Ingress[], hasTls: boolean): VirtualHostIR;

  // Final.
  /** Connection manager settings the layer decides, if any. */
  listenerSettings(): ListenerSettingsIR | undefined;
  /** The finished gateway with what the layer adds on top (new objects along what it changes). */
  finish(gateway: FinishedDataPlane): FinishedDataPlane;
  /** The translation's references plus the objects the layer reads. */
  references(references: References): References;
}

export interface LayerVirtualHosts {
  virtualHosts: ReadonlyMap<string, VirtualHostIR>;
  /** Names the layer answers on its own in each route table (they get no other virtual host), e.g. redirects. */
  ownNames: { http: readonly VirtualHostIR[]; https: readonly VirtualHostIR[]; names: { has(name: string): boolean } };
  /** The host whose virtual host also answers a name the layer added to it (server-alias; itself for any other name). */
  servedAs(host: string): string;
  /** TLS hosts the layer's own names need, from the hosts' certificates. */
  tlsHosts(tlsHosts: ReadonlyMap<string, TlsHostSecret>): { host: string; secret: TlsSecretIR }[];
  /** Some host is served under another name too: no incremental splice can prove the rest unchanged. */
  nameCopies: boolean;
}

// The translator: a consistent ClusterState -> the desired data plane (IR) plus diagnostics for users. Pure and
// deterministic; best effort: a broken part of an Ingress is reported and only that part is left out.
import { catchAllHost, type ClusterIR, compareStrings, routeClusters, type DataPlaneIR, type RouteIR, type RouteTableIR, type SourceRef, type TlsSecretIR, type TlsServerIR, type VirtualHostIR } from '../../../ir/index.js';
import { type AnnotationsByIngress, annotationPolicyPass, plainHttpVirtualHost } from './annotation-policy.js';
import type { IngressAnnotations } from './annotations.js';
import { indexServices } from '../shared/backend.js';
import { type CollectedRoutes, passRoutes } from './collected-routes.js';
import { selectDefaultBackend } from './default-backend.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { frozenInTests } from '../shared/freeze-in-tests.js';
import { isServedByUs } from './ingress-class.js';
import { collectRules } from './ingress-rules.js';
import { type ClusterState, type Ingress, type ObjectRef, refKey, refOf } from '../shared/kube-objects.js';
import { nginxLayer } from './nginx/nginx-layer.js';
import { type TranslateOptions, defaultNamespaceRouteBudget } from '../shared/options.js';
import { compareByAge } from '../shared/ordering.js';
import { enforceHostOwnership } from './host-ownership.js';
import { enforceRouteBudget } from './namespace-route-budget.js';
import { tenantDefaultBackends, tenantDefaultOf } from './tenant-default-backends.js';
import { namespaceOf } from '../shared/kinds.js';
import { type References, collectReferences } from '../shared/references.js';
import { type CollectedTls, collectTlsHosts } from './tls-hosts.js';
import type { FinishedDataPlane, IngressDataPlane, LayerPhases, LayerVirtualHosts, TranslatorLayer } from './translator-layer.js';
import { ingressHttpListenerName, ingressHttpsListenerName, ingressListeners } from './ingress-listeners.js';
import { assembleVirtualHost, fallbackRoute, redirectVirtualHost, routeTable } from './virtual-host.js';

export interface TranslationResult {
  ir: DataPlaneIR;
  /** Sorted by object, in the order found for each object. */
  diagnostics: Diagnostic[];
  /** Every Ingress of our class, even partly broken ones (their status is ours to write), sorted. */
  servedIngresses: ObjectRef[];
  /** Services and Secrets the served Ingresses name: events about any other Service or Secret change nothing. */
  references: References;
  /**
   * The route table of the TLS filter chains, also when there are none yet (then unused by the IR): what an
   * incremental translation splices a changed host into (incremental-translate.ts).
   */
  httpsTable: RouteTableIR;
  /**
   * Some host is served under another name too (ingress-nginx server-alias, from-to-www-redirect): a change to any
   * Ingress may claim or free such a name, so no splice can prove the rest unchanged (incremental-translate.ts).
   */
  serverNameCopies?: true;
  /** Our Gateways and the HTTPRoutes attached to them (translate.ts), sorted; absent: none. */
  servedGatewayApi?: ObjectRef[];
}

/** Name of the plaintext listener's route table (named after its listener). */
export const httpRouteTableName = ingressHttpListenerName;

/**
 * Name of the route table every TLS filter chain shares (named after its listener): SNI picks the certificate (the
 * chain), the Host header picks the route, as on plain HTTP.
 */
export const httpsRouteTableName = ingressHttpsListenerName;

/** The IR of a finished Ingress translation: its serving parts become the Ingress listeners. */
function dataPlaneOf({ ir, httpsTable }: FinishedDataPlane, options: TranslateOptions): DataPlaneIR {
  const { http, tlsServers, tlsPassthrough, listenerSettings, ...rest } = ir;
  const serving = { http, https: httpsTable, tlsServers, tlsPassthrough: tlsPassthrough ?? [], settings: listenerSettings };
  return { listeners: ingressListeners(serving, options), ...rest };
}

/** Name of the filter chain of one TLS host. */
export function httpsName(host: string): string {
  return `https/${host}`;
}

/** Name of the filter chain with the default certificate (never a host's: `*` is not a valid TLS host). */
export const defaultCertificateChainName = httpsName('*');

function compareRefs(a: SourceRef, b: SourceRef): number {
  return compareStrings(refKey(a), refKey(b));
}

function clustersUsedBy(tables: readonly RouteTableIR[], known: ReadonlyMap<string, ClusterIR>): ClusterIR[] {
  const used = new Map<string, ClusterIR>();
  for (const table of tables) {
    for (const vhost of table.virtualHosts) {
      for (const route of vhost.routes) {
        for (const name of routeClusters(route)) {
          const cluster = known.get(name);
          // Copied once per cluster, not once per route using it.
          if (cluster !== undefined && !used.has(cluster.name)) used.set(cluster.name, { ...cluster, service: { ...cluster.service } });
        }
      }
    }
  }
  return [...used.values()].sort((a, b) => compareStrings(a.name, b.name));
}

/** The layer of the translator: the ingress-nginx annotations (nginx/nginx-layer.ts), off for Ingresses it does not read. */
const layer: TranslatorLayer = nginxLayer;

export function translateIngresses(state: ClusterState, options: TranslateOptions): TranslationResult {
  const diagnostics: Diagnostic[] = [];
  const services = indexServices(state.services);
  const clusters = new Map<string, ClusterIR>();
  const allowExternalName = options.allowExternalName ?? false;
  const phases = layer.begin({ state, options, diagnostics, services, clusters, allowExternalName });

  // Before rules. Oldest first: every conflict below is settled by the first claim.
  const served = state.ingresses.filter((ingress) => isServedByUs(ingress, state.ingressClasses, options)).sort(compareByAge);
  // Hosts are owned by namespaces unless the operator merges them: other namespaces' parts are gone before any
  // phase (the layer's canaries and host-wide annotations included) reads the Ingresses.
  const tenants = options.allowCrossNamespaceHosts !== true;
  const owned = tenants ? enforceHostOwnership(served, diagnostics).ingresses : served;
  const { ingresses, mains } = phases.ingresses(enforceRouteBudget(owned, options.namespaceRouteBudget ?? defaultNamespaceRouteBudget, diagnostics));
  const annotations = new Map<Ingress, IngressAnnotations>(mains.map((ingress) => [ingress, phases.annotations(ingress)]));
  const annotationsByRef = new Map([...annotations].map(([ingress, parsed]) => [refKey(refOf(ingress)), parsed]));
  // With hosts owned by namespaces, only the operator's namespace gives the default backend of every host; a
  // tenant's answers its own hosts (tenant-default-backends.ts).
  const clusterWide = (ingress: Ingress): boolean => !tenants || namespaceOf(ingress.metadata) === options.defaultBackendNamespace;
  const hostScoped = (ingress: Ingress): boolean => phases.hostScopedDefaultBackend(ingress) || !clusterWide(ingress);
  const defaultBackend = selectDefaultBackend(mains, services, clusters, diagnostics, allowExternalName, hostScoped);
  const tenantDefaults = tenants ? tenantDefaultBackends(mains, (ingress) => !phases.hostScopedDefaultBackend(ingress) && !clusterWide(ingress), { services, clusters, diagnostics, allowExternalName }) : new Map<Ingress, RouteIR>();
  const layerDefaults = phases.hostDefaults(mains);
  const hostDefaults = tenantDefaults.size === 0 ? layerDefaults : new Map([...layerDefaults, ...tenantDefaults]);
  const paths = phases.rulePaths(mains);
  const rules = collectRules(mains, services, clusters, diagnostics, allowExternalName, paths.regex, paths.characterPrefix);
  const tls = collectTlsHosts(mains, state.secrets, diagnostics);

  // Per route: each Ingress's annotations go on its own routes (and clusters of its own settings), then the layer's.
  const collected: CollectedRoutes = frozenInTests({ defaultBackend, hostDefaults, byHost: rules.routesByHost });
  const annotated = frozenInTests(passRoutes(collected, 'all', annotationPolicyPass(annotationsByRef, clusters)));
  const routes = frozenInTests(phases.routes(annotated, { tls: new Set(tls.hosts.keys()), contributors: rules.contributorsByHost }));

  // Per virtual host.
  const hosts = frozenInTests(phases.virtualHosts(frozenInTests(assembleVirtualHosts(routes, rules.contributorsByHost, phases, options, tenantDefaults))));

  // Route tables and TLS chains.
  const tables = routeTables(hosts, tls, annotations, annotationsByRef, rules.contributorsByHost, phases, options);

  // Final.
  const listenerSettings = phases.listenerSettings();
  const plane: IngressDataPlane = {
    http: tables.http,
    tlsServers: tables.tlsServers,
    clusters: clustersUsedBy(tables.tlsServers.length > 0 ? [tables.http, tables.https] : [tables.http], clusters),
    secrets: tables.secrets,
    ...(listenerSettings === undefined ? {} : { listenerSettings }),
  };
  const finished = frozenInTests(phases.finish(frozenInTests({ ir: plane, httpsTable: tables.https })));
  return {
    ir: frozenInTests(dataPlaneOf(finished, options)),
    // Array.prototype.sort is stable: each object's diagnostics keep the order they were found in.
    diagnostics: diagnostics.sort((a, b) => compareRefs(a.object, b.object)),
    servedIngresses: ingresses.map(refOf).sort(compareRefs),
    // From the Ingresses as written, refused parts included: what they reference does not depend on who owns a
    // host, so a splice that moves ownership keeps the references of the Ingresses it did not change right.
    references: phases.references(collectReferences(served)),
    httpsTable: finished.httpsTable,
    ...(hosts.nameCopies ? { serverNameCopies: true as const } : {}),
  };
}

/**
 * A virtual host per host a rule names, with its rules' routes in precedence order and its fallback: the default
 * backend (the layer may scope default backends to hosts), else the 404 page. A host a rule names without usable
 * paths (no http block, or only broken ones) is still that host: it gets the default backend, not the host-less
 * rules, which are for hosts no rule names.
 */
function assembleVirtualHosts(
  routes: CollectedRoutes,
  contributorsByHost: ReadonlyMap<string, readonly Ingress[]>,
  phases: LayerPhases,
  options: TranslateOptions,
  tenantDefaults: ReadonlyMap<Ingress, RouteIR>,
): Map<string, VirtualHostIR> {
  const { defaultBackend } = routes;
  const fallback = fallbackRoute(defaultBackend, options.notFoundPage);
  const fallbackOf = (host: string): RouteIR => {
    // Without any default backend every host gets the 404 page: no class lookup per host.
    if (host === catchAllHost || (defaultBackend === undefined && routes.hostDefaults.size === 0)) return fallback;
    const contributors = contributorsByHost.get(host);
    // The owning namespace's default backend (all contributors are of that namespace), as passed over with the
    // other routes; else the layer's choice or the cluster-wide one.
    const owner = contributors?.[0];
    const tenant = owner === undefined || tenantDefaults.size === 0 ? undefined : tenantDefaultOf(tenantDefaults, namespaceOf(owner.metadata));
    const own = (tenant === undefined ? undefined : routes.hostDefaults.get(tenant)) ?? phases.hostFallback(contributors, routes);
    return own === defaultBackend ? fallback : fallbackRoute(own, options.notFoundPage);
  };
  const virtualHosts = new Map<string, VirtualHostIR>();
  for (const [host, hostRoutes] of routes.byHost) virtualHosts.set(host, assembleVirtualHost(host, hostRoutes, fallbackOf(host)));
  for (const host of contributorsByHost.keys()) {
    if (!virtualHosts.has(host)) virtualHosts.set(host, assembleVirtualHost(host, [], fallbackOf(host)));
  }
  if (!virtualHosts.has(catchAllHost)) virtualHosts.set(catchAllHost, assembleVirtualHost(catchAllHost, [], fallback));
  return virtualHosts;
}

interface RouteTables {
  http: RouteTableIR;
  https: RouteTableIR;
  tlsServers: TlsServerIR[];
  secrets: TlsSecretIR[];
}

/** The plain-HTTP and TLS route tables, the TLS chains and their certificates. */
function routeTables(
  hosts: LayerVirtualHosts,
  tls: CollectedTls,
  annotations: ReadonlyMap<Ingress, IngressAnnotations>,
  annotationsByRef: AnnotationsByIngress,
  contributorsByHost: ReadonlyMap<string, readonly Ingress[]>,
  phases: LayerPhases,
  options: TranslateOptions,
): RouteTables {
  const { virtualHosts, ownNames } = hosts;
  // Over TLS every host is served exactly as plain HTTP would serve it without redirects, whichever chain (SNI)
  // the connection came in on: one table for all chains, so the Host header picks the route even when it differs
  // from the SNI name, and a host under a TLS wildcard gets its own rules, not the wildcard's.
  // The same virtual host objects as plain HTTP serves where it serves them unchanged (IR is never mutated once
  // assembled): built and kept once, not twice.
  const https = routeTable(httpsRouteTableName, [...virtualHosts.values(), ...ownNames.https]);
  const tlsServers: TlsServerIR[] = [];
  const secrets = new Map<string, TlsSecretIR>();
  for (const { host, secret } of [...tls.hosts.values()].sort((a, b) => compareStrings(a.host, b.host))) {
    if (phases.passesThroughTls(host)) continue; // its TLS connections are not terminated
    tlsServers.push({ name: httpsName(host), serverNames: [host], secret: secret.name });
    secrets.set(secret.name, secret);
  }
  // Names the layer answers itself (from-to-www-redirect) over https: with the certificate of their host.
  for (const { host, secret } of hosts.tlsHosts(tls.hosts)) {
    tlsServers.push({ name: httpsName(host), serverNames: [host], secret: secret.name });
  }
  if (tls.defaultCertificate !== undefined) {
    const { secret } = tls.defaultCertificate;
    tlsServers.push({ name: defaultCertificateChainName, serverNames: [], secret: secret.name });
    secrets.set(secret.name, secret);
  }

  // A host with TLS redirects plain HTTP to https unless every Ingress contributing to it (by rules or by
  // spec.tls) opts out with ssl-redirect "false".
  const contributorsOf = (host: string): Ingress[] => [...(contributorsByHost.get(hosts.servedAs(host)) ?? []), ...(tls.contributorsByHost.get(host) ?? [])];
  const redirects = (host: string): boolean => contributorsOf(host).some((ingress) => annotations.get(ingress)?.sslRedirect !== false);
  const httpHosts: VirtualHostIR[] = [];
  for (const host of new Set([...virtualHosts.keys(), ...tls.hosts.keys()])) {
    if (ownNames.names.has(host)) continue; // the layer answers it, on both schemes
    if (hosts.servedAs(host) !== host) continue; // an alias: a name of its host's virtual host, served as the host is
    // Routes of https-only Ingresses answer 403 on plain HTTP and those of force-ssl-redirect ones redirect,
    // whether the host redirects or not (annotation-policy.ts).
    const vhost = virtualHosts.get(host);
    const hostRedirects = tls.hosts.has(host) && redirects(host);
    const redirect = redirectVirtualHost(host, options.httpsRedirectPort);
    const plain = vhost === undefined ? undefined : plainHttpVirtualHost(vhost, annotationsByRef, redirect.routes[0] as RouteIR, hostRedirects);
    const served = plain ?? (hostRedirects ? redirect : vhost);
    if (served !== undefined) httpHosts.push(phases.plainHttpVirtualHost(served, vhost?.routes, contributorsOf(host), tls.hosts.has(host)));
  }
  const http = routeTable(httpRouteTableName, [...httpHosts, ...ownNames.http]);
  return { http, https, tlsServers, secrets: [...secrets.values()].sort((a, b) => compareStrings(a.name, b.name)) };
}

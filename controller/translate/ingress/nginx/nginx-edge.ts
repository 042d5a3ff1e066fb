// The nginx layer's two hooks for ingress-nginx ssl-passthrough (nginx-passthrough.ts), default-backend and
// custom-http-errors (nginx-default-backend.ts): a route pass before routes are assembled into virtual hosts, and
// one on the finished IR.
import { type ClusterIR, compareStrings, type FallbackClusterIR, type RouteIR } from '../../../../ir/index.js';
import type { ServiceIndex } from '../../shared/backend.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { Ingress } from '../../shared/kube-objects.js';
import type { References } from '../../shared/references.js';
import type { RoutePass } from '../collected-routes.js';
import { disableProxyInterceptErrorsAnnotation, parseGoBool, customHttpErrorsAnnotation, defaultBackendAnnotation, finishNginxDefaultBackends, isServiceName, nginxDefaultBackendPass, parseStatuses, readNginxDefaultBackends } from './nginx-default-backend.js';
import { type FinishedDataPlane, servedTables, withTables } from './finished-data-plane.js';
import { type SslPassthrough, collectSslPassthrough, parseSslPassthrough, sslPassthroughAnnotation } from './nginx-passthrough.js';

/** The annotations this module reads (after the prefix); they act through translate(), see nginx-edge.test.ts. */
export const nginxEdgeAnnotations: readonly string[] = ['ssl-passthrough', 'default-backend', 'custom-http-errors', 'disable-proxy-intercept-errors'];

/**
 * Reports values of these annotations that cannot be read (`report(name, value, accepted)`), for the nginx layer's
 * InvalidAnnotation diagnostics (also what migrate-check shows); translation then ignores them silently.
 */
export function checkNginxEdgeValues(ingress: Ingress, report: (name: string, value: string, accepted: string) => void): void {
  const annotations = ingress.metadata.annotations ?? {};
  const passthrough = annotations[sslPassthroughAnnotation];
  if (passthrough !== undefined && parseSslPassthrough(passthrough) === undefined) report('ssl-passthrough', passthrough, '"true", "false"');
  const backend = annotations[defaultBackendAnnotation];
  if (backend !== undefined && !isServiceName(backend)) report('default-backend', backend, "the name of a Service in the Ingress's namespace");
  const codes = annotations[customHttpErrorsAnnotation];
  if (codes !== undefined && parseStatuses(codes) === undefined) {
    report('custom-http-errors', codes, 'a comma-separated list of HTTP statuses from 300 to 599, e.g. "404,503"');
  }
  const intercept = annotations[disableProxyInterceptErrorsAnnotation];
  if (intercept !== undefined && parseGoBool(intercept) === undefined) report('disable-proxy-intercept-errors', intercept, '"true", "false"');
}

export interface NginxEdgeContext {
  /** Whether the nginx annotations of this Ingress are read. */
  enabled: (ingress: Ingress) => boolean;
  services: ServiceIndex;
  /** The translator's clusters by name; default backends are added. */
  clusters: Map<string, ClusterIR>;
  diagnostics: Diagnostic[];
  allowExternalName: boolean;
  /** collectRules()'s Ingresses per host, oldest first. */
  contributorsByHost: ReadonlyMap<string, readonly Ingress[]>;
  /** The controller-wide default backend route (spec.defaultBackend), if any. */
  defaultBackend: RouteIR | undefined;
}

export interface NginxEdge {
  passthrough: SslPassthrough;
  /** Services the default-backend annotations name (`namespace/name`). */
  services: ReadonlySet<string>;
  /** The fallback clusters the route pass made (filled in as it runs). */
  fallbacks: ReadonlyMap<string, FallbackClusterIR>;
  clusters: ReadonlyMap<string, ClusterIR>;
  /**
   * The routes (rules and the controller-wide default backend) with their default backends and error pages, before
   * they are assembled into virtual hosts; undefined when no Ingress has either.
   */
  pass: RoutePass | undefined;
}

/** `ingresses` oldest first. Call after the annotation policies are applied, then run `pass` over the routes. */
export function nginxEdge(ingresses: readonly Ingress[], ctx: NginxEdgeContext): NginxEdge {
  const { enabled, services, clusters, diagnostics, allowExternalName } = ctx;
  const passthrough = collectSslPassthrough(ingresses, enabled, ctx.contributorsByHost, services, diagnostics, allowExternalName);
  const globalDefaultBackend = ctx.defaultBackend?.action.kind === 'forward' ? ctx.defaultBackend.action.cluster : undefined;
  const settings = readNginxDefaultBackends(ingresses, enabled, services, clusters, diagnostics, allowExternalName);
  const fallbacks = new Map<string, FallbackClusterIR>();
  const pass = nginxDefaultBackendPass(settings, clusters, globalDefaultBackend, diagnostics, fallbacks);
  return { passthrough, fallbacks, clusters, services: settings.services, pass };
}

/** The finished gateway with what the edge features need: passthrough chains, fallback clusters, error pages, clusters. */
export function withNginxEdge(gateway: FinishedDataPlane, edge: NginxEdge): FinishedDataPlane {
  const finished = finishNginxDefaultBackends(servedTables(gateway), edge.clusters, edge.fallbacks);
  const { ir, httpsTable } = withTables(gateway, finished.tables);
  const extra = [...edge.passthrough.clusters, ...finished.clusters];
  let clusters = ir.clusters;
  if (extra.length > 0) {
    const all = new Map(ir.clusters.map((cluster) => [cluster.name, cluster]));
    for (const cluster of extra) if (!all.has(cluster.name)) all.set(cluster.name, { ...cluster, service: { ...cluster.service } });
    clusters = [...all.values()].sort((a, b) => compareStrings(a.name, b.name));
  }
  if (clusters === ir.clusters && edge.passthrough.servers.length === 0 && finished.fallbackClusters.length === 0) return { ir, httpsTable };
  return {
    ir: {
      ...ir,
      clusters,
      ...(edge.passthrough.servers.length > 0 ? { tlsPassthrough: edge.passthrough.servers.map((s) => ({ ...s, serverNames: [...s.serverNames] })) } : {}),
      ...(finished.fallbackClusters.length > 0 ? { fallbackClusters: finished.fallbackClusters } : {}),
    },
    httpsTable,
  };
}

/** `references` plus the Services default-backend annotations name, so their events are not skipped. */
export function nginxEdgeReferences(edge: NginxEdge, references: References): References {
  if (edge.services.size === 0) return references;
  return { ...references, services: [...new Set([...references.services, ...edge.services])].sort(compareStrings) };
}

// The Gateway API scenario's results beside the Ingress ones, in the same tables (issue 26: "a route is a route"):
// one row per route kind and size, the same columns as the Ingress tables of bench/run.ts. Pure: results in, rows
// out, so the shaping is tested without running anything.
import type { BackendSwitches } from './backend-switches.js';
import type { ChangeCost } from './incremental-cost.js';
import type { KubeApplyStages, KubeConvergenceResult } from './kube-convergence.js';
import type { RouteChangeResult } from './convergence.js';
import type { PeersRow } from './peers-results.js';
import { round, type Summary } from './stats.js';
import type { TranslationScaleResult } from './translation-scale.js';

/** A full build of N HTTPRoutes (the scale scenario's figures, `httpRoutes` instead of `ingresses`). */
export type HttpRouteScaleResult = Omit<TranslationScaleResult, 'ingresses'> & { httpRoutes: number };

/** A Kubernetes-mode convergence size with HTTPRoutes (the kube scenario's figures). */
export interface HttpRouteKubeResult {
  existingRoutes: number;
  existingHttpRoutes: number;
  loadSeconds: number;
  applyTo200Ms: Summary;
  stages: Record<keyof KubeApplyStages, Summary>;
  oneHttpRoute: { applyTo200Ms: Summary; stages: Record<keyof KubeApplyStages, Summary> };
}

/** What `BENCH_ONLY=gateway-api` writes to latest.json (`gatewayApi`). */
export interface GatewayApiResults {
  translationScale: { sizes: HttpRouteScaleResult[]; growth1kTo10kCpu?: number };
  /** One HTTPRoute changed at a time (as section 3's route change): which build it took, its cost. */
  changeCost: { httpRoutes: number; changes: ChangeCost[] };
  kubeConvergence: HttpRouteKubeResult[];
  /** An HTTPRoute's backendRef switched under load, at `existingRoutes`. */
  backendSwitch?: BackendSwitches & { existingRoutes: number };
}

/** The scale table's cells after its first (the object count), for either kind. */
export function scaleCells(s: Omit<TranslationScaleResult, 'ingresses'>): (string | number)[] {
  return [s.routes, s.buildMs.median, s.buildMs.p99, s.buildCpuMs.median, s.buildCpuMs.p99, s.firstBuild.wallMs, s.firstBuild.cpuMs, s.heapAfterGcMiB, s.rssMiB,
    round(s.encodedBytes.listener / 1024, 1), round(s.encodedBytes.routeConfiguration / 1024, 1), round(s.encodedBytes.virtualHost / 1024, 1), round(s.encodedBytes.cluster / 1024, 1),
    round(s.encodedBytes.clusterLoadAssignment / 1024, 1), round(s.encodedBytes.secret / 1024, 1),
    // Results of runs before ECDS have none.
    round((s.encodedBytes.extensionConfig ?? 0) / 1024, 1)];
}

export const scaleColumns = ['routes', 'wall ms p50', 'wall p99', 'CPU ms p50', 'CPU p99', 'first build wall ms', 'CPU ms', 'heap MiB', 'RSS MiB', 'LDS KiB', 'RDS KiB', 'VHDS KiB', 'CDS KiB', 'EDS KiB', 'SDS KiB', 'ECDS KiB'];

/** Section 1's table with both kinds: the Ingress sizes, then the HTTPRoute ones, each labelled with its kind. */
export function scaleRowsByKind(ingress: readonly TranslationScaleResult[], httpRoutes: readonly HttpRouteScaleResult[]): (string | number)[][] {
  return [
    ...ingress.map((s) => [`${s.ingresses} Ingresses`, ...scaleCells(s)]),
    ...httpRoutes.map((s) => [`${s.httpRoutes} HTTPRoutes`, ...scaleCells(s)]),
  ];
}

/** One kube row of either kind: its label, then what both tables show. */
interface KubeRow {
  label: string;
  existingRoutes: number;
  loadSeconds: number;
  applyTo200Ms: Summary;
  stages: Record<keyof KubeApplyStages, Summary>;
  one: { applyTo200Ms: Summary; stages: Record<keyof KubeApplyStages, Summary> };
}

function kubeRows(ingress: readonly KubeConvergenceResult[], httpRoutes: readonly HttpRouteKubeResult[]): KubeRow[] {
  return [
    ...ingress.map((r) => ({ label: `${r.existingIngresses} Ingresses`, existingRoutes: r.existingRoutes, loadSeconds: r.loadSeconds, applyTo200Ms: r.applyTo200Ms, stages: r.stages, one: r.oneIngress })),
    ...httpRoutes.map((r) => ({ label: `${r.existingHttpRoutes} HTTPRoutes`, existingRoutes: r.existingRoutes, loadSeconds: r.loadSeconds, applyTo200Ms: r.applyTo200Ms, stages: r.stages, one: r.oneHttpRoute })),
  ];
}

export const kubeApplyColumns = ['existing routes', 'existing objects', 'created in s', 'runs', 'p50 ms', 'p99 ms', 'create requests', 'watch', 'build', 'ordering', 'envoy apply', 'ack -> 200'];

/** Section 2b's first table with both kinds: a Service, an EndpointSlice and a route object created -> first 200. */
export function kubeApplyRowsByKind(ingress: readonly KubeConvergenceResult[], httpRoutes: readonly HttpRouteKubeResult[]): (string | number)[][] {
  return kubeRows(ingress, httpRoutes).map((r) => [r.existingRoutes, r.label, r.loadSeconds, r.applyTo200Ms.runs, r.applyTo200Ms.median, r.applyTo200Ms.p99,
    r.stages.api.median, r.stages.watch.median, r.stages.build.median, r.stages.ordering.median, r.stages.envoyApply.median, r.stages.firstOk.median]);
}

export const kubeOneRouteColumns = ['existing routes', 'existing objects', 'runs', 'p50 ms', 'p99 ms', 'create request', 'watch', 'build', 'ordering', 'envoy apply', 'ack -> 200'];

/** Section 2b's one-object table with both kinds: one route object created for a served Service -> first 200. */
export function kubeOneRouteRowsByKind(ingress: readonly KubeConvergenceResult[], httpRoutes: readonly HttpRouteKubeResult[]): (string | number)[][] {
  return kubeRows(ingress, httpRoutes).map(({ existingRoutes, label, one: o }) => [existingRoutes, label, o.applyTo200Ms.runs, o.applyTo200Ms.median, o.applyTo200Ms.p99,
    o.stages.api.median, o.stages.watch.median, o.stages.build.median, o.stages.ordering.median, o.stages.envoyApply.median, o.stages.firstOk.median]);
}

export const switchColumns = ['route', 'how it changes', 'existing routes', 'switches', 'requests', 'non-2xx', 'switch -> new backend p50 ms', 'p99'];

/**
 * The backend switches under load of every kind measured: the Ingress's in standalone mode (a manifest rewritten;
 * no per-switch time), the Ingress's through the API (the peers scenario, ours, at each size) and the HTTPRoute's.
 */
export function switchRowsByKind(standalone: RouteChangeResult | undefined, peers: readonly PeersRow[], gateway: GatewayApiResults['backendSwitch']): (string | number)[][] {
  const rows: (string | number)[][] = [];
  if (standalone) rows.push(['Ingress', 'manifest file rewritten (standalone)', '-', standalone.changes, standalone.requests, standalone.non2xx, '-', '-']);
  for (const row of peers) {
    const load = row.ours.switchLoad;
    if (load) rows.push(['Ingress', 'PUT through the API', row.existingRoutes, load.switches, load.requests, load.non2xx, row.ours.routeSwitchMs?.median ?? '-', row.ours.routeSwitchMs?.p99 ?? '-']);
  }
  if (gateway) {
    const load = gateway.switchLoad;
    rows.push(['HTTPRoute', 'merge patch through the API', gateway.existingRoutes, load.switches, load.requests, load.non2xx, gateway.routeSwitchMs.median, gateway.routeSwitchMs.p99]);
  }
  return rows;
}

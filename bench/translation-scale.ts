// Scenario 1: full build (translate + endpoints + Envoy resources + encoding into the snapshot cache) of
// synthetic clusters of growing size; time, memory after GC and encoded xDS bytes per type.
import { buildConfig, fullUpdate, type BuiltConfig } from '../controller/pipeline/build-config.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import type { ClusterState } from '../controller/translate/shared/kube-objects.js';
import type { EnvoyOptions } from '../envoy/resource-types.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import { resourceKinds, type ResourceKind } from '../proto/type-urls.js';
import { collectGarbage, cpuMs as cpuSince, mib, round, summarize, type Summary } from './stats.js';
import { syntheticCluster } from './synthetic-cluster.js';
import { routesOfHttpRoute } from './synthetic-gateway-api.js';

export const benchEnvoyOptions: EnvoyOptions = { listenAddress: '127.0.0.1', httpPort: 10080, httpsPort: 10443 };
/**
 * The synthetic clusters put every object in one namespace, so the per-namespace route budget (10,000 paths by
 * default, a tenant guard) would leave most of a 10,000-Ingress cluster unserved: the bench measures that one
 * namespace as the whole cluster it stands for, so its budget is lifted.
 */
export const benchReconcileOptions = { translate: { ...defaultTranslateOptions, namespaceRouteBudget: Number.MAX_SAFE_INTEGER }, envoy: benchEnvoyOptions };

export interface TranslationScaleResult {
  /** Synthetic objects of the route kind measured (Ingresses; HTTPRoutes in the Gateway API scenario). */
  ingresses: number;
  routes: number;
  buildMs: Summary;
  /** CPU time of the build (user + system): steadier than wall time on a machine shared with other work. */
  buildCpuMs: Summary;
  /**
   * The first build of this cluster (wall and CPU ms): what start-up costs. Nothing of it was built before, so
   * every certificate is validated and the listeners are built (later builds reuse them: same key).
   */
  firstBuild: { wallMs: number; cpuMs: number };
  /** Of the median run: where the time went. */
  phasesMs: { translateAndEnvoyBuilders: number; snapshotUpdate: number };
  heapAfterGcMiB: number;
  rssMiB: number;
  encodedBytes: Record<ResourceKind, number>;
  resources: Record<ResourceKind, number>;
}

/** One full build into a fresh cache, timed in phases. */
export function fullBuild(
  state: ClusterState,
  cache = new SnapshotCache(),
): { cache: SnapshotCache; built: BuiltConfig; totalMs: number; cpuMs: number; phases: TranslationScaleResult['phasesMs'] } {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const built = buildConfig(state, benchReconcileOptions);
  const { resources } = built;
  const t1 = performance.now();
  cache.update(fullUpdate(resources));
  const t2 = performance.now();
  const cpuMs = cpuSince(cpu0);
  return { cache, built, totalMs: t2 - t0, cpuMs, phases: { translateAndEnvoyBuilders: round(t1 - t0), snapshotUpdate: round(t2 - t1) } };
}

/**
 * Only the times of a build of `state`, in a frame of its own: a build handed from one call to another in the
 * caller's frame stayed reachable from it (the interpreter's register) and added 100 MiB to the heap measured
 * after the later builds at 10,000 Ingresses.
 */
function buildTimes(state: ClusterState): TranslationScaleResult['firstBuild'] {
  const { totalMs, cpuMs } = fullBuild(state);
  return { wallMs: round(totalMs), cpuMs: round(cpuMs) };
}

/** The routes of a synthetic state: every Ingress path, and an HTTPRoute's match per hostname (routesOfHttpRoute). */
export function countRoutes(state: ClusterState): number {
  let n = 0;
  for (const ing of state.ingresses) for (const r of ing.spec?.rules ?? []) n += r.http?.paths.length ?? 0;
  for (const route of state.httpRoutes ?? []) n += routesOfHttpRoute(route);
  return n;
}

export function runTranslationScale(sizes: readonly number[], runsFor: (n: number) => number, tls: { certPem: string; keyPem: string }): TranslationScaleResult[] {
  return runScale(sizes, runsFor, (ingresses) => syntheticCluster({ ingresses, tls }));
}

/**
 * The full builds of scenario 1 for the synthetic states `stateOf(n)` of each size `n` (Ingresses, or HTTPRoutes:
 * the result's `ingresses` is then that count of objects of the state's route kind).
 */
export function runScale(sizes: readonly number[], runsFor: (n: number) => number, stateOf: (n: number) => ClusterState): TranslationScaleResult[] {
  const results: TranslationScaleResult[] = [];
  for (const ingresses of sizes) {
    let state: ClusterState | undefined = stateOf(ingresses);
    const times: number[] = [];
    const cpuTimes: number[] = [];
    const phases: TranslationScaleResult['phasesMs'][] = [];
    let kept: SnapshotCache | undefined;
    let keptBuild: BuiltConfig | undefined;
    // The first build is the start-up one (and warms the JIT): reported on its own, not in the summaries.
    const firstBuild = buildTimes(state);
    for (let r = 0; r < runsFor(ingresses); r++) {
      kept = undefined;
      keptBuild = undefined;
      collectGarbage();
      const { cache, built, totalMs, cpuMs, phases: p } = fullBuild(state);
      keptBuild = built;
      times.push(totalMs);
      cpuTimes.push(cpuMs);
      phases.push(p);
      kept = cache;
    }
    const routes = countRoutes(state);
    state = undefined;
    // Memory a running controller keeps besides its store: the served snapshot and the last build (its
    // translation, and through the builders' memos the JSON made from it, which incremental builds reuse); the
    // input objects released.
    collectGarbage();
    const heap = process.memoryUsage().heapUsed;
    const rss = process.memoryUsage().rss;
    void keptBuild?.translation; // alive until measured
    const encodedBytes = {} as Record<ResourceKind, number>;
    const counts = {} as Record<ResourceKind, number>;
    for (const kind of resourceKinds) {
      let bytes = 0;
      for (const r of kept!.snapshot.resources[kind].values()) bytes += r.any.value.byteLength;
      encodedBytes[kind] = bytes;
      counts[kind] = kept!.snapshot.resources[kind].size;
    }
    const sortedIdx = times.map((t, i) => [t, i] as const).sort((a, b) => a[0] - b[0]);
    const medianPhases = phases[sortedIdx[Math.floor(sortedIdx.length / 2)]![1]]!;
    results.push({
      ingresses,
      routes,
      buildMs: summarize(times),
      buildCpuMs: summarize(cpuTimes),
      firstBuild,
      phasesMs: medianPhases,
      heapAfterGcMiB: mib(heap),
      rssMiB: mib(rss),
      encodedBytes,
      resources: counts,
    });
    kept = undefined;
    keptBuild = undefined;
  }
  return results;
}

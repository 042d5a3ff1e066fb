// Scenario 3: at N Ingresses, change one Service's endpoints, one route, one Secret; report what was rebuilt,
// what was encoded, and what a delta xDS client received per change. The Gateway API scenario measures an
// HTTPRoute's change the same way (runChangeCosts).
import type { ClusterState, Ingress, KubeObject } from '../controller/translate/shared/kube-objects.js';
import type { ResourceKind } from '../proto/type-urls.js';
import { DeltaObserver, totals } from './delta-observer.js';
import { startInProcessController } from './in-process-controller.js';
import { round, summarize, type Summary } from './stats.js';
import { syntheticSecret, syntheticSlice } from './synthetic-cluster.js';

export interface ChangeCost {
  /** `endpoints`, `route` (an Ingress's), `secret`, `httproute`. */
  change: string;
  runs: number;
  buildKind: string;
  /** Reconciler build time (translate/endpoints + encode), median and p99. */
  buildMs: Summary;
  /** From the store change to the delta client receiving the first response of the changed type. */
  pushMs: Summary;
  /** Resources the cache encoded in the last run, per type (resources handed back as the same JSON object are not
   * encoded; the others are encoded and compared byte for byte, so this counts work, not changes). */
  encoded: Record<string, number>;
  /** What the delta client received for one change (last run), per type. */
  received: ReturnType<typeof totals>;
}

/** One kind of change: the resource type a delta client receives first for it, and the object of run `run`. */
export interface Change {
  change: string;
  kind: ResourceKind;
  object: (run: number) => KubeObject;
}

/** `certs`: the certificate the state's Secrets hold, and another one; runs alternate between them. */
export async function runIncrementalCost(state: ClusterState, runs: number, certs: readonly [{ certPem: string; keyPem: string }, { certPem: string; keyPem: string }]): Promise<ChangeCost[]> {
  const tlsIndexes = state.secrets.map((s) => Number(s.metadata.name.slice('tls-'.length)));
  return runChangeCosts(state, runs, [
    {
      change: 'endpoints',
      kind: 'clusterLoadAssignment',
      object: (run) => syntheticSlice(run * 7 + 3, 10, (s, e) => ({ address: `10.99.${run}.${e + 1}`, port: 8080 + (s % 2) }), run + 1),
    },
    ingressRouteChange('route', state.ingresses),
    { change: 'secret', kind: 'secret', object: (run) => syntheticSecret(tlsIndexes[0]!, run % 2 === 0 ? certs[1] : certs[0]) },
  ]);
}

/** One Ingress's paths changed per run (the changed host's virtual host, alone, over VHDS; the route configurations
 * do not change). The Ingress is the state's own, with one more path: regenerating it would change its hosts too. */
export function ingressRouteChange(change: string, ingresses: readonly Ingress[]): Change {
  return {
    change,
    kind: 'virtualHost',
    object: (run) => withExtraIngressPath(ingresses[(run * 13 + 5) % ingresses.length]!, `/changed-${run}`),
  };
}

/** `ingress` with one more Exact path in its first rule: same hosts, backends and TLS, one more route. */
export function withExtraIngressPath(ingress: Ingress, path: string): Ingress {
  const [first, ...rest] = ingress.spec?.rules ?? [];
  const paths = first?.http?.paths ?? [];
  const backend = paths[0]?.backend ?? { service: { name: 'missing', port: { number: 80 } } };
  const rule = { ...first, http: { paths: [...paths, { path, pathType: 'Exact' as const, backend }] } };
  return { ...ingress, spec: { ...ingress.spec, rules: [rule, ...rest] } };
}

/** `runs` of each change, one at a time, into a controller in this process serving `state` to a delta xDS client. */
export async function runChangeCosts(state: ClusterState, runs: number, changes: readonly Change[]): Promise<ChangeCost[]> {
  const controller = await startInProcessController(state);
  const snapshot = controller.cache.snapshot.resources;
  const observer = new DeltaObserver(controller.xdsPort, {
    clusterLoadAssignment: [...snapshot.clusterLoadAssignment.keys()],
    routeConfiguration: [...snapshot.routeConfiguration.keys()],
    secret: [...snapshot.secret.keys()],
  });
  await observer.settle(0, 500);
  const results: ChangeCost[] = [];
  for (const c of changes) {
    const build: number[] = [];
    const push: number[] = [];
    let received: ReturnType<typeof totals> = {};
    let encoded: Record<string, number> = {};
    let buildKind = '';
    for (let run = 0; run < runs; run++) {
      const from = observer.received.length;
      const arrival = observer.nextOf(c.kind, 120_000);
      const t0 = performance.now();
      const result = (await controller.apply(c.object(run))) as { durationMs: number; kind: string } | undefined;
      const first = await arrival;
      push.push(first.at - t0);
      if (result) {
        build.push(result.durationMs);
        buildKind = result.kind;
      }
      encoded = { ...controller.cache.lastEncoded } as Record<string, number>;
      received = totals(await observer.settle(from, 200));
    }
    results.push({ change: c.change, runs: push.length, buildKind, buildMs: summarize(build), pushMs: summarize(push), encoded, received });
  }
  await observer.close();
  await controller.stop();
  return results;
}

export function describeChangeCost(c: ChangeCost): string {
  const parts = Object.entries(c.received).map(([kind, t]) => `${kind}: ${t!.resources} res, ${round(t!.bytes / 1024, 1)} KiB`);
  return parts.join('; ');
}

export const changeCostColumns = ['change', 'build', 'build ms p50', 'p99', 'push ms p50', 'p99', 'encoded', 'sent to the delta client'];

/** A row of section 3's table (changeCostColumns). */
export function changeCostCells(c: ChangeCost): (string | number)[] {
  return [c.change, c.buildKind, c.buildMs.median, c.buildMs.p99, c.pushMs.median, c.pushMs.p99,
    Object.entries(c.encoded).filter(([, v]) => v > 0).map(([k, v]) => `${k}=${v}`).join(' '), describeChangeCost(c)];
}

// Scenario 3: at N Ingresses, change one Service's endpoints, one route, one Secret; report what was rebuilt,
// what was encoded, and what a delta xDS client received per change.
import type { ClusterState } from '../controller/translate/shared/kube-objects.js';
import type { ResourceKind } from '../proto/type-urls.js';
import { DeltaObserver, totals } from './delta-observer.js';
import { startInProcessController } from './in-process-controller.js';
import { round, summarize, type Summary } from './stats.js';
import { seededRandom, syntheticIngress, syntheticSecret, syntheticSlice } from './synthetic-cluster.js';

export interface ChangeCost {
  change: 'endpoints' | 'route' | 'secret';
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

/** `certs`: the certificate the state's Secrets hold, and another one; runs alternate between them. */
export async function runIncrementalCost(state: ClusterState, runs: number, certs: readonly [{ certPem: string; keyPem: string }, { certPem: string; keyPem: string }]): Promise<ChangeCost[]> {
  const controller = await startInProcessController(state);
  const snapshot = controller.cache.snapshot.resources;
  const observer = new DeltaObserver(controller.xdsPort, {
    clusterLoadAssignment: [...snapshot.clusterLoadAssignment.keys()],
    routeConfiguration: [...snapshot.routeConfiguration.keys()],
    secret: [...snapshot.secret.keys()],
  });
  await observer.settle(0, 500);
  const results: ChangeCost[] = [];
  const tlsIndexes = state.secrets.map((s) => Number(s.metadata.name.slice('tls-'.length)));
  const changes: { change: ChangeCost['change']; kind: ResourceKind; apply: (run: number) => Promise<unknown> }[] = [
    {
      change: 'endpoints',
      kind: 'clusterLoadAssignment',
      apply: (run) =>
        controller.apply(syntheticSlice(run * 7 + 3, 10, (s, e) => ({ address: `10.99.${run}.${e + 1}`, port: 8080 + (s % 2) }), run + 1)),
    },
    {
      change: 'route',
      // The changed host's virtual host, alone (VHDS); the route configurations themselves do not change.
      kind: 'virtualHost',
      apply: (run) => {
        const i = run * 13 + 5;
        // Same hosts and paths as the original, plus one changed path: one virtual host changes.
        return controller.apply(syntheticIngress(i, seededRandom(1000 + run), i % 10 === 0, `-v${run}`));
      },
    },
    {
      change: 'secret',
      kind: 'secret',
      apply: (run) => controller.apply(syntheticSecret(tlsIndexes[0]!, run % 2 === 0 ? certs[1] : certs[0])),
    },
  ];
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
      const result = (await c.apply(run)) as { durationMs: number; kind: string } | undefined;
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

// Endpoint change -> pushed: at N Services, change one Service's EndpointSlice (one at a time, as a watch
// delivers them) and time until a delta xDS client receives the ClusterLoadAssignment, cut into the reconciler's
// endpoint build and what follows it (snapshot publication, the stream deciding what to send, encoding, gRPC).
import type { ClusterState } from '../controller/translate/shared/kube-objects.js';
import { DeltaObserver } from './delta-observer.js';
import { startInProcessController } from './in-process-controller.js';
import { cpuMs, summarize, type Summary } from './stats.js';
import { syntheticSlice } from './synthetic-cluster.js';

export interface EndpointPushResult {
  services: number;
  runs: number;
  /** Store change -> the delta client has the ClusterLoadAssignment. */
  pushMs: Summary;
  /** The reconciler's endpoint build (ClusterLoadAssignments rebuilt + snapshot patched). */
  buildMs: Summary;
  /** Controller CPU per change (this process: reconciler, cache, ADS server, and the observing client). */
  cpuMsPerChange: number;
  /** ClusterLoadAssignments the client received per change (1 is the target). */
  resourcesPerChange: number;
}

export async function runEndpointPush(state: ClusterState, runs: number): Promise<EndpointPushResult> {
  const controller = await startInProcessController(state);
  const names = [...controller.cache.snapshot.resources.clusterLoadAssignment.keys()];
  const observer = new DeltaObserver(controller.xdsPort, { clusterLoadAssignment: names });
  try {
    // The initial state first (10,000 ClusterLoadAssignments take a while to encode and send), then quiet.
    const deadline = performance.now() + 120_000;
    while (!observer.received.some((r) => r.kind === 'clusterLoadAssignment')) {
      if (performance.now() > deadline) throw new Error('the initial ClusterLoadAssignments never arrived');
      await new Promise((r) => setTimeout(r, 20));
    }
    await observer.settle(0, 500);
    const push: number[] = [];
    const build: number[] = [];
    const fromAll = observer.received.length;
    const services = state.services.length;
    const cpu0 = process.cpuUsage();
    for (let run = 0; run < runs; run++) {
      const arrival = observer.nextOf('clusterLoadAssignment', 60_000);
      const builds = controller.builds.length;
      const t0 = performance.now();
      // A different Service each time, a new address each time: every change is a real one.
      controller.store.upsert(syntheticSlice((run * 7919) % services, 10, (_s, e) => ({ address: `10.200.${run % 250}.${e + 1}`, port: 8080 }), run + 1));
      const first = await arrival;
      push.push(first.at - t0);
      await controller.reconciler.idle();
      const b = controller.builds[builds];
      if (b) build.push(b.durationMs);
      // A quiet moment between changes, so each is measured alone (not coalesced with the next).
      await new Promise((r) => setTimeout(r, 20));
    }
    const cpu = cpuMs(cpu0);
    const received = await observer.settle(fromAll, 200);
    const resources = received.filter((r) => r.kind === 'clusterLoadAssignment').reduce((n, r) => n + r.resources, 0);
    return { services, runs, pushMs: summarize(push), buildMs: summarize(build), cpuMsPerChange: Math.round((cpu / runs) * 100) / 100, resourcesPerChange: resources / runs };
  } finally {
    await observer.close();
    await controller.stop();
  }
}

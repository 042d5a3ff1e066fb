// One route's backend switched between two served Services through the API while requests flow through Envoy's
// listener (the load of switch-under-load.ts), for any controller (only Envoy's answers are observed) and any route
// kind: the peers scenario's Ingress (a PUT), the Gateway API scenario's HTTPRoute (a merge patch).
import type { ApiCreator } from './api-creator.js';
import { appObjects, type RouteManifest } from './convergence.js';
import { asKubernetesObject } from './kube-convergence.js';
import { summarize, type Summary } from './stats.js';
import type { StatusPoller } from './status-poller.js';
import { underLoad, type SwitchLoad } from './switch-under-load.js';

export interface BackendSwitchOptions {
  httpPort: number;
  poller: StatusPoller;
  creator: ApiCreator;
  /** The two echo backends (on the test host) the route switches between. */
  backends: readonly [{ service: string; address: string; port: number }, { service: string; address: string; port: number }];
  /** Prefixes every object's name and the host: one API server can hold the objects of several runs. */
  prefix: string;
  switches: number;
  /** The route object of the switched host and of each backend's own host. */
  route: RouteManifest;
  /** How the changed route is sent: replaced (PUT), or merge-patched (a custom resource, which PUT needs the resourceVersion of). */
  send: 'replace' | 'patch';
}

export interface BackendSwitches {
  /** The changed route sent -> first request answered by the new backend. */
  routeSwitchMs: Summary;
  /** The requests through Envoy during the switches, and those that were not 2xx. */
  switchLoad: { switches: number } & SwitchLoad;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Each switch waits until the new backend answers, then 300 ms (as the standalone convergence scenario's route change). */
export async function switchBackendsUnderLoad(o: BackendSwitchOptions): Promise<BackendSwitches> {
  const { poller, creator, prefix } = o;
  const host = `${prefix}switch.converge.test`;
  const [a, b] = o.backends.map((backend, i) => ({ backend, service: `${prefix}switch-${'ab'[i]}` }));
  const served = poller.firstOk(o.httpPort, host, 60_000, a!.backend.service);
  // Both Services are served by a route of their own, so each switch changes a route only (as in standalone mode).
  for (const { backend, service } of [a!, b!]) await creator.create(appObjects(service, `${service}.converge.test`, backend, o.route).map(asKubernetesObject));
  await creator.create([asKubernetesObject(o.route(`${prefix}switch`, host, a!.service))]);
  await served;
  const switchMs: number[] = [];
  const load = await underLoad(o.httpPort, host, async () => {
    for (let i = 0; i < o.switches; i++) {
      const target = i % 2 === 0 ? b! : a!;
      const reached = poller.firstOk(o.httpPort, host, 60_000, target.backend.service);
      await sleep(5);
      const { startMs } = await creator[o.send]([asKubernetesObject(o.route(`${prefix}switch`, host, target.service))]);
      switchMs.push((await reached) - startMs);
      await sleep(300);
    }
  });
  return { routeSwitchMs: summarize(switchMs), switchLoad: { switches: o.switches, ...load } };
}

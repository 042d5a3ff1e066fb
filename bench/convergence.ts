// Scenario 2: standalone mode with a real Envoy. With N existing routes, write one new Ingress manifest and
// time until Envoy answers 200 for it (polling every millisecond). Then change a route's backend back and forth
// under constant load and count non-2xx responses.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { clientSync } from '../xds/client-sync.js';
import { startEchoProcess } from './echo-process.js';
import { startStatusPoller, type StatusPoller } from './status-poller.js';
import { getStatus, startEnvoyStack, type BenchController } from './envoy-stack.js';
import { defaultOverloadLimits, type OverloadLimits } from '../envoy/bootstrap.js';
import { procUsage } from './proc-usage.js';
import { collectGarbage, cpuMs, mib, round, summarize, type Summary } from './stats.js';
import { underLoad } from './switch-under-load.js';
import { benchNamespace, objectsOf, syntheticCluster } from './synthetic-cluster.js';
import { countRoutes } from './translation-scale.js';
import { isKindName, kindInfo } from '../controller/translate/shared/kinds.js';

export interface ConvergenceResult {
  existingRoutes: number;
  existingIngresses: number;
  applyTo200Ms: Summary;
  /** Where the time went, per stage (medians and p99 over the runs; see ApplyStages). */
  stages: Record<keyof ApplyStages, Summary>;
  /** What the controller (this process) and Envoy used: loading the existing config, then per apply. */
  usage: ConvergenceUsage;
}

/**
 * Resources of both sides (Envoy's from /proc: its own RSS, peak and CPU). `load*`: from writing the existing
 * config to Envoy's ACK of it; RSS figures once it is served (the controller's after a GC, the generated
 * objects released: its store, last build and snapshot); `perApply`: CPU over the applies, divided by their count.
 */
export interface ConvergenceUsage {
  loadSeconds: number;
  controllerLoadCpuS: number;
  controllerRssMiB: number;
  controllerHeapMiB: number;
  envoyLoadCpuS: number;
  envoyRssMiB: number;
  envoyPeakRssMiB: number;
  controllerCpuMsPerApply: number;
  envoyCpuMsPerApply: number;
}

/** An existing-config size: a route count (the fewest synthetic Ingresses with at least that many), or Ingresses. */
export type ExistingSize = number | { ingresses: number };

/** `0,5000,50000i`: route counts, and Ingress counts with an `i`. */
export function parseExistingSizes(text: string): ExistingSize[] {
  return text.split(',').map((part) => (part.endsWith('i') ? { ingresses: Number(part.slice(0, -1)) } : Number(part)));
}

export function describeSize(size: ExistingSize): string {
  return typeof size === 'number' ? `${size} routes` : `${size.ingresses}i`;
}

/**
 * One apply, cut into stages by the controller's own events (milliseconds):
 * - `watch`: file written -> the manifest source put the new objects in the store (file watch + debounce + read);
 * - `build`: store change -> the reconciler finished the build (translate + Envoy builders + encode);
 * - `ordering`: build done -> the RouteConfiguration was written to Envoy (xDS ordering: CDS, EDS before RDS);
 * - `envoyApply`: RouteConfiguration written -> Envoy ACKed it (transfer + Envoy applying it);
 * - `firstOk`: RDS ACKed -> the first 200 (worker threads pick the new table up; poll granularity).
 */
export interface ApplyStages {
  watch: number;
  build: number;
  ordering: number;
  envoyApply: number;
  firstOk: number;
}

/** Records when the controller reached each stage of an apply, from its store, reconciler and xDS events. */
class StageClock {
  store: number | undefined;
  built: number | undefined;
  rdsPush: number | undefined;
  rdsAck: number | undefined;

  /** `kind`/`name`: the route object of the apply (its arrival in the store starts the build stage). */
  constructor(controller: BenchController, name: string, kind: RouteKind) {
    const onStore = (changes: readonly { kind: string; name: string }[]): void => {
      if (this.store === undefined && changes.some((c) => c.kind === kind && c.name === name)) this.store = performance.now();
    };
    const onBuilt = (): void => {
      if (this.store !== undefined && this.built === undefined) this.built = performance.now();
    };
    // The new host's routes reach Envoy over VHDS (its own virtual host), or in RDS over state of the world.
    const routing = (kind: string): boolean => kind === 'virtualHost' || kind === 'routeConfiguration';
    const onPush = (p: { kind: string }): void => {
      if (this.built !== undefined && this.rdsPush === undefined && routing(p.kind)) this.rdsPush = performance.now();
    };
    const onAck = (a: { kind: string }): void => {
      if (this.rdsPush !== undefined && this.rdsAck === undefined && routing(a.kind)) this.rdsAck = performance.now();
    };
    // First in line: the controller's own listeners (the applied tracker, the status writers) run on the same events
    // and would otherwise delay these clocks by their work, which then counts in the wrong stage (an ACK read after
    // the first 200 made `firstOk` negative, with Gateway API status computed on each build and ACK).
    controller.store.prependListener('change', onStore);
    controller.reconciler.prependListener('built', onBuilt);
    controller.server.prependListener('push', onPush);
    controller.server.prependListener('ack', onAck);
    this.stop = () => {
      controller.store.off('change', onStore);
      controller.reconciler.off('built', onBuilt);
      controller.server.off('push', onPush);
      controller.server.off('ack', onAck);
    };
  }

  readonly stop: () => void;

  stages(t0: number, ok: number): ApplyStages {
    const store = this.store ?? t0;
    const built = this.built ?? store;
    const push = this.rdsPush ?? built;
    // Envoy may answer 200 before its ACK is read here: then the whole wait is Envoy applying the table.
    const ack = this.rdsAck ?? ok;
    return { watch: store - t0, build: built - store, ordering: push - built, envoyApply: ack - push, firstOk: ok - ack };
  }
}

/** Every connected Envoy (at least one) has ACKed the controller's current snapshot. */
export function envoysInSync(controller: BenchController): boolean {
  const snapshot = controller.cache.snapshot;
  const clients = controller.server.clients();
  return clients.length > 0 && clients.every((c) => clientSync(c.acked, snapshot).inSync);
}

/** Per stage, the summary of its values over the runs. */
export function summarizeStages<K extends string>(stages: readonly Record<K, number>[]): Record<K, Summary> {
  const keys = Object.keys(stages[0] ?? {}) as K[];
  return Object.fromEntries(keys.map((k) => [k, summarize(stages.map((s) => s[k]))])) as Record<K, Summary>;
}

/** One apply: from its start to the first 200, and the stages from when the change was handed over. */
export interface TimedApply {
  totalMs: number;
  /** Handed over (file written, or the last create request answered) -> first 200, per stage. */
  stages: ApplyStages;
  /** Start -> handed over. */
  handOverMs: number;
}

/** One apply as the poller saw it (this process's performance.now() milliseconds). */
export interface FirstOk {
  name: string;
  startMs: number;
  handedMs: number;
  okMs: number;
}

/**
 * `runs` applies, each of a new host `<prefix>new-<i>.converge.test`: `apply` makes the change and resolves with
 * when it began and when it was handed to the controller's source; the poller (its own process) is polling
 * before. `watch` is told each name before its apply and returns what to call once the first 200 came; `settle`
 * runs between applies. Works for any controller: only Envoy's answers are observed.
 */
export async function timeFirstOks(
  httpPort: number,
  poller: StatusPoller,
  runs: number,
  apply: (name: string, host: string) => Promise<{ startMs: number; handedMs: number }>,
  o: { prefix?: string; watch?: (name: string) => () => void; settle?: () => Promise<void> } = {},
): Promise<FirstOk[]> {
  const oks: FirstOk[] = [];
  for (let r = 0; r < runs; r++) {
    const name = `${o.prefix ?? ''}new-${r}`;
    const host = `${name}.converge.test`;
    const unwatch = o.watch?.(name);
    const firstOk = poller.firstOk(httpPort, host);
    await new Promise((res) => setTimeout(res, 5));
    const { startMs, handedMs } = await apply(name, host);
    const okMs = await firstOk;
    unwatch?.();
    oks.push({ name, startMs, handedMs, okMs });
    await o.settle?.();
  }
  return oks;
}

/** timeFirstOks for our controller, with each apply cut into stages by the controller's own events. */
export async function timeApplies(
  stack: { controller: BenchController; httpPort: number },
  poller: StatusPoller,
  runs: number,
  apply: (name: string, host: string) => Promise<{ startMs: number; handedMs: number }>,
  prefix = '',
  kind: RouteKind = 'Ingress',
  /** Between applies, after the reconciler is idle (e.g. until the status writes of the last apply are done). */
  settle?: () => Promise<void>,
): Promise<TimedApply[]> {
  const clocks = new Map<string, StageClock>();
  const watch = (name: string): (() => void) => {
    const clock = new StageClock(stack.controller, name, kind);
    clocks.set(name, clock);
    return clock.stop;
  };
  const oks = await timeFirstOks(stack.httpPort, poller, runs, apply, { prefix, watch, settle: async () => {
    await stack.controller.reconciler.idle();
    await settle?.();
  } });
  return oks.map((o) => ({ totalMs: o.okMs - o.startMs, stages: clocks.get(o.name)!.stages(o.handedMs, o.okMs), handOverMs: o.handedMs - o.startMs }));
}

export interface RouteChangeResult {
  changes: number;
  requests: number;
  non2xx: number;
  byStatus: Record<string, number>;
  /** Envoy's access log lines of the failed requests (response flags and details say why), first few. */
  failedLog: string[];
}

export function ingressesForRoutes(routes: number, tls: { certPem: string; keyPem: string }): number {
  if (routes === 0) return 0;
  let n = Math.max(1, Math.floor(routes / 5));
  while (countRoutes(syntheticCluster({ ingresses: n, tls })) < routes) n += Math.max(1, Math.floor(n / 50));
  return n;
}

/** The kinds of route object the convergence scenarios apply. */
export type RouteKind = 'Ingress' | 'HTTPRoute';

export function pluralOf(kind: RouteKind): string {
  return kind === 'Ingress' ? 'Ingresses' : `${kind}s`;
}

/** A route object named `name` sending `host` (every path) to the Service `service` port 80: an Ingress, an HTTPRoute. */
export type RouteManifest = (name: string, host: string, service: string) => object;

/**
 * A Service + EndpointSlice + route (an Ingress unless `route` makes another kind) sending `host` to `backend` (on
 * loopback unless it has an address), in that order.
 */
export function appObjects(name: string, host: string, backend: { port: number; address?: string }, route: RouteManifest = ingressManifest): object[] {
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: benchNamespace }, spec: { ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${name}-0`, namespace: benchNamespace, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: backend.port, protocol: 'TCP' }],
      endpoints: [{ addresses: [backend.address ?? '127.0.0.1'], conditions: { ready: true } }],
    },
    route(name, host, name),
  ];
}

/** appObjects as one manifest file (written atomically). */
export function appManifest(name: string, host: string, backend: { port: number }): string {
  return appObjects(name, host, backend).map((o) => stringify(o)).join('---\n');
}

export function ingressManifest(name: string, host: string, service: string): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: benchNamespace },
    spec: { ingressClassName: 'envoy-ingress', rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: 80 } } } }] } }] },
  };
}

/** `o` with the apiVersion of its kind first, as a manifest or an API request has it. */
export function withApiVersion(o: object): object {
  return { apiVersion: apiVersionOf((o as { kind: string }).kind), ...o };
}

function apiVersionOf(kind: string): string {
  if (!isKindName(kind)) throw new Error(`no apiVersion known for kind ${kind}`);
  return kindInfo(kind).apiVersions[0];
}

export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Polls `predicate` every `intervalMs` until it holds; throws after `timeoutMs` naming `what` it waited for. */
export async function until(predicate: () => boolean, what: string, timeoutMs = 600_000, intervalMs = 10): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export async function writeAtomically(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/** From this many existing Ingresses, Envoy runs with the heap limit below instead of its default. */
export const largeConfigIngresses = 10_000;
export const largeConfigHeapBytes = 8 * 1024 ** 3;
/** The overload limits an Envoy holding a large config gets: the defaults with that heap limit. */
export const largeConfigOverload: OverloadLimits = { ...defaultOverloadLimits, memory: { source: 'heap', maxBytes: largeConfigHeapBytes } };

/** Writes our IngressClass into the stack's manifest directory and waits until the controller has built with it. */
export async function loadIngressClass(stack: Awaited<ReturnType<typeof startEnvoyStack>>): Promise<void> {
  await writeAtomically(join(stack.dir, 'class.yaml'), stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: 'envoy-ingress.io/ingress-controller' } }));
  await until(() => stack.controller.store.count('IngressClass') > 0, 'the manifest source to load the IngressClass', 300_000);
  await stack.controller.reconciler.idle();
}

export async function runConvergence(
  sizes: readonly ExistingSize[],
  /** Applies per size (a function of the existing Ingresses: the largest configs take seconds per apply). */
  runsFor: number | ((ingresses: number) => number),
  tls: { certPem: string; keyPem: string },
  withRouteChange: boolean,
): Promise<{ convergence: ConvergenceResult[]; routeChange?: RouteChangeResult }> {
  // Backends in their own processes: this one builds config synchronously (seconds at 5,000 routes), and a
  // backend sharing its event loop would stall with it.
  const backend = await startEchoProcess('bench-a');
  const other = await startEchoProcess('bench-b');
  // Polling every millisecond from this process would take the event loop the controller runs on.
  const poller = await startStatusPoller();
  const convergence: ConvergenceResult[] = [];
  let routeChange: RouteChangeResult | undefined;
  // The backend switches under load at the largest size up to 5,000 routes (where it always was measured).
  const routeChangeSize = sizes.filter((size) => typeof size === 'number' && size <= 5000).pop() ?? sizes[sizes.length - 1];
  // Loading 50,000 Ingresses into Envoy takes minutes on a loaded machine: these are ceilings, not expectations.
  const loadTimeoutMs = 1_800_000;
  try {
    for (const size of sizes) {
      const n = typeof size === 'number' ? ingressesForRoutes(size, tls) : size.ingresses;
      progress(`convergence: ${describeSize(size)} (${n} Ingresses): starting controller and Envoy`);
      // Envoy holds more than its default heap limit (768 MiB: it then answers every request 503 "overload") at
      // 50,000 Ingresses; a larger config gets a limit it stays below, so the figures are of serving, not refusing.
      const stack = await startEnvoyStack(n >= largeConfigIngresses ? { overload: largeConfigOverload } : {});
      try {
        await loadIngressClass(stack);
        // Generated and serialised before the clocks start: that is the bench's work, not the controller's.
        let existing = n > 0 ? existingManifest(n, tls, backend.port) : undefined;
        const existingRoutes = existing?.routes ?? 0;
        const envoyPid = stack.envoys[0]!.pid;
        const envoyStart = procUsage(envoyPid);
        const loadCpu = process.cpuUsage();
        const loadStart = performance.now();
        if (existing !== undefined) await loadExisting(stack, existing.text, n, loadTimeoutMs);
        existing = undefined;
        const loadSeconds = round((performance.now() - loadStart) / 1000, 1);
        const controllerLoadCpuS = round(cpuMs(loadCpu) / 1000, 1);
        const envoyLoaded = procUsage(envoyPid);
        collectGarbage();
        const memory = process.memoryUsage();
        progress(`convergence: config with ${n} Ingresses loaded in ${loadSeconds} s; applying new Ingresses`);
        const runs = typeof runsFor === 'number' ? runsFor : runsFor(n);
        const appliesCpu = process.cpuUsage();
        const applies = await timeApplies(stack, poller, runs, async (name, host) => {
          const t0 = performance.now();
          await writeAtomically(join(stack.dir, `${name}.yaml`), appManifest(name, host, backend));
          return { startMs: t0, handedMs: t0 };
        });
        const controllerCpuMsPerApply = round(cpuMs(appliesCpu) / runs, 1);
        const envoyApplied = procUsage(envoyPid);
        convergence.push({
          existingRoutes,
          existingIngresses: n,
          applyTo200Ms: summarize(applies.map((a) => a.totalMs)),
          stages: summarizeStages(applies.map((a) => a.stages)),
          usage: {
            loadSeconds,
            controllerLoadCpuS,
            controllerRssMiB: mib(memory.rss),
            controllerHeapMiB: mib(memory.heapUsed),
            envoyLoadCpuS: round(envoyLoaded.cpuSeconds - envoyStart.cpuSeconds, 1),
            envoyRssMiB: envoyLoaded.rssMiB,
            envoyPeakRssMiB: envoyApplied.peakRssMiB,
            controllerCpuMsPerApply,
            envoyCpuMsPerApply: round(((envoyApplied.cpuSeconds - envoyLoaded.cpuSeconds) * 1000) / runs, 1),
          },
        });
        if (withRouteChange && size === routeChangeSize) routeChange = await measureRouteChange(stack, backend, other);
      } finally {
        await stack.stop();
      }
    }
  } finally {
    await backend.close();
    await other.close();
    await poller.close();
  }
  return routeChange ? { convergence, routeChange } : { convergence };
}

/**
 * `n` synthetic Ingresses (with their Services, EndpointSlices and Secrets) as one JSON List, and their route
 * count. JSON, not YAML: the YAML parser takes minutes for the 155,000 objects of 50,000 Ingresses, JSON.parse
 * seconds (controller/sources/manifest-parser.ts).
 */
export function existingManifest(n: number, tls: { certPem: string; keyPem: string }, port: number): { text: string; routes: number } {
  const state = syntheticCluster({ ingresses: n, tls, endpointAddress: () => ({ address: '127.0.0.1', port }) });
  const items = objectsOf({ ...state, ingressClasses: [] }).map(withApiVersion);
  return { text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), routes: countRoutes(state) };
}

/** Writes the existing config and waits until Envoy has ACKed it. */
export async function loadExisting(stack: Awaited<ReturnType<typeof startEnvoyStack>>, text: string, n: number, timeoutMs: number): Promise<void> {
  await writeAtomically(join(stack.dir, 'existing.json'), text);
  await until(() => stack.controller.store.count('Ingress') >= n, 'the manifest source to load every Ingress', timeoutMs);
  await stack.controller.reconciler.idle();
  // Measure from a settled Envoy: one still applying the initial config would delay the first apply. Every
  // 250 ms: the check walks every resource (at 50,000 Ingresses, polled every 10 ms, it took 20 s of this
  // process's CPU from the controller it measures).
  await until(() => envoysInSync(stack.controller), 'Envoy to ACK the initial config', timeoutMs, 250);
}

/** Switch one route between two Services while requests flow; every response must be 2xx. */
async function measureRouteChange(stack: Awaited<ReturnType<typeof startEnvoyStack>>, a: { port: number }, b: { port: number }): Promise<RouteChangeResult> {
  const host = 'switch.converge.test';
  const file = join(stack.dir, 'switch.yaml');
  const withBackends = (service: string): string =>
    [appManifest('switch-a', 'switch-a.converge.test', a), appManifest('switch-b', 'switch-b.converge.test', b), stringify(ingressManifest('switch', host, service))].join('---\n');
  await writeAtomically(file, withBackends('switch-a'));
  while ((await getStatus(stack.httpPort, host)) !== 200) await new Promise((r) => setTimeout(r, 5));
  const changes = 10;
  const result = await underLoad(stack.httpPort, host, async () => {
    for (let i = 0; i < changes; i++) {
      await new Promise((r) => setTimeout(r, 300));
      await writeAtomically(file, withBackends(i % 2 === 0 ? 'switch-b' : 'switch-a'));
    }
  });
  // The last non-200 lines for the host (the loop's failures are the last ones: it started once 200 was seen).
  const failedLog = result.non2xx === 0 ? [] : stack.envoys[0]!.logs().split('\n').filter((l) => l.includes(host) && l.includes('"status"') && !/"status":\s*200\b/.test(l)).slice(-Math.min(5, result.non2xx));
  return { changes, ...result, failedLog };
}

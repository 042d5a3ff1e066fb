// Watches the overload state of the Envoy the controller knows the admin interface of (--envoy-admin-url, or the
// one --envoy supervises): a warning once per episode when it nears or is in overload (at 98 % of its memory
// limit it answers every new request 503 `overload`), with the numbers and the remedy, a line when it is over, and
// the state as Prometheus gauges. The decisions are cli/envoy-overload.ts's.
import { getEnvoyAdmin } from './envoy-admin.js';
import { isNearOverload, overloadRemedies, overloadStatsPath, parseOverloadStats, stopAcceptingRequests, type OverloadState } from './envoy-overload.js';
import type { Logger } from './logger.js';
import type { ControllerMetrics } from './metrics.js';

export interface EnvoyOverloadWatchOptions {
  adminUrl: string;
  intervalMs: number;
  log: Logger;
  metrics?: ControllerMetrics;
}

export const overloadWarning = 'Envoy is near or in overload';
export const overloadCleared = 'Envoy is out of overload';

/** Starts polling; stop() ends it (an answer still in flight is dropped). */
export function watchEnvoyOverload(o: EnvoyOverloadWatchOptions): { stop(): void } {
  let near = false;
  let unreachable = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const look = async (): Promise<void> => {
    let state: OverloadState;
    try {
      state = parseOverloadStats(await getEnvoyAdmin(o.adminUrl, overloadStatsPath));
    } catch (err: unknown) {
      if (stopped) return;
      // Envoy may not be up yet, or restarting: nothing to report but that (once), and no stale numbers.
      if (!unreachable) o.log.debug({ err, adminUrl: o.adminUrl }, 'cannot read Envoy overload stats');
      unreachable = true;
      o.metrics?.observeEnvoyOverload(undefined, near);
      return;
    }
    if (stopped) return;
    unreachable = false;
    const wasNear = near;
    near = isNearOverload(state, wasNear);
    o.metrics?.observeEnvoyOverload(state, near);
    const fields = { adminUrl: o.adminUrl, pressure: state.pressure, actions: state.actions };
    if (near && !wasNear) {
      const refusing = (state.actions[stopAcceptingRequests] ?? 0) > 0;
      const remedy = overloadRemedies(state).join('; ');
      o.log.warn(
        { ...fields, refusingRequests: refusing, remedy },
        `${overloadWarning}${refusing ? ', answering new requests 503' : ' (new requests get 503 from 98 % of a memory limit)'}${remedy ? `: ${remedy}` : ''}`,
      );
    } else if (!near && wasNear) {
      o.log.info(fields, overloadCleared);
    }
  };

  const loop = (): void => {
    timer = setTimeout(() => {
      void look().finally(() => {
        if (!stopped) loop();
      });
    }, o.intervalMs);
    timer.unref();
  };
  void look().finally(() => {
    if (!stopped) loop();
  });
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

// Envoy's overload state as its admin `/stats?filter=^overload\.` prints it, and when the controller should tell
// the operator about it. Pure: cli/envoy-overload-watch.ts does the polling, logging and metrics.

/** The admin path whose answer parseOverloadStats reads. */
export const overloadStatsPath = `/stats?filter=${encodeURIComponent('^overload\\.')}`;

export interface OverloadState {
  /** Resource monitor (e.g. envoy.resource_monitors.cgroup_memory) -> pressure, 0..1 of its limit. */
  pressure: Record<string, number>;
  /** Overload action (e.g. envoy.overload_actions.stop_accepting_requests) -> how far it is applied, 0..1. */
  actions: Record<string, number>;
}

/**
 * The monitors' pressure (`overload.<monitor>.pressure`, a gauge in percent) and the actions' scale
 * (`overload.<action>.scale_percent`: a threshold action's is 0 or 100, as its `.active` is 0 or 1) from the text
 * `/stats` answers: one `name: value` line per stat. Other lines (counters, histograms) are ignored.
 */
export function parseOverloadStats(text: string): OverloadState {
  const state: OverloadState = { pressure: {}, actions: {} };
  for (const line of text.split('\n')) {
    const match = /^overload\.(.+)\.(pressure|scale_percent): (\d+)$/.exec(line.trim());
    if (!match) continue;
    const [, name, stat, value] = match as unknown as [string, string, string, string];
    (stat === 'pressure' ? state.pressure : state.actions)[name] = Number(value) / 100;
  }
  return state;
}

export const stopAcceptingRequests = 'envoy.overload_actions.stop_accepting_requests';

/** Pressure from which the controller warns: new requests fail from 98 % of a memory limit. */
export const warnPressure = 0.9;
/** Pressure below which a warning episode ends (lower than warnPressure, so a value around it does not flap). */
export const clearPressure = 0.85;

/**
 * Whether Envoy is near or in overload after `state`, given whether it was at the last look: from warnPressure on
 * any monitor, or while requests are refused; it stays so until every monitor is below clearPressure and requests
 * are accepted again.
 */
export function isNearOverload(state: OverloadState, wasNear: boolean): boolean {
  if ((state.actions[stopAcceptingRequests] ?? 0) > 0) return true;
  const threshold = wasNear ? clearPressure : warnPressure;
  return Object.values(state.pressure).some((p) => p >= threshold);
}

const remedies: Record<string, string> = {
  'envoy.resource_monitors.cgroup_memory':
    "raise the Envoy container's memory limit (resources.limits.memory of the envoy container; Helm: envoy.resources.limits.memory)",
  'envoy.resource_monitors.fixed_heap':
    "raise --max-heap-bytes in Envoy's bootstrap and the Envoy container's memory limit with it, or drop --max-heap-bytes so the limit follows the container's",
  'envoy.resource_monitors.global_downstream_max_connections': 'raise --max-downstream-connections in the bootstrap, or run more Envoy replicas',
};

/** What the operator can do about the monitors at or above `threshold`, one sentence each. */
export function overloadRemedies(state: OverloadState, threshold = clearPressure): string[] {
  return Object.entries(state.pressure)
    .filter(([, p]) => p >= threshold)
    .sort(([, a], [, b]) => b - a)
    .map(([monitor, p]) => `${monitor} at ${Math.round(p * 100)} %: ${remedies[monitor] ?? 'see docs/guides/security.md'}`);
}

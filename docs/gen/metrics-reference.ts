// The reference of every metric: read from the controller's prom-client registry (cli/metrics.ts), so name, type,
// labels and help are the ones /metrics serves.
import { ControllerMetrics, metricNames } from '../../cli/metrics.js';
import { cell, code, page, table } from './markdown.js';

export interface MetricDoc {
  name: string;
  type: string;
  labels: string[];
  help: string;
}

/** What the registry holds: ours (envoy_ingress_*) and prom-client's process and Node.js collectors. */
export function registeredMetrics(): MetricDoc[] {
  const metrics = new ControllerMetrics();
  return metrics.registry.getMetricsAsArray().map((m) => {
    // prom-client keeps labelNames on every metric object but leaves it out of its MetricObject type.
    const labels = (m as unknown as { labelNames?: readonly string[] }).labelNames ?? [];
    return { name: m.name, type: String(m.type), labels: [...labels], help: m.help };
  });
}

/** What the help text leaves out and an operator needs: label values, what a value means for alerting. */
const notes: Readonly<Record<string, string>> = {
  [metricNames.nacks]: 'Envoy keeps its last good config; the rejected version is not resent.',
  [metricNames.translationDuration]: '`build`: `full`, `routes`, `secrets`, `endpoints`.',
  [metricNames.watchedObjects]: '`kind`: Ingress, IngressClass, Service, EndpointSlice, Endpoints, Secret, ConfigMap.',
  [metricNames.relists]: 'A watch that could not resume (e.g. 410 Gone) relists.',
  [metricNames.envoyResourcePressure]: 'Memory: new requests get 503 from 0.98.',
  [metricNames.envoyOverloadActionScale]: '`envoy.overload_actions.stop_accepting_requests` at 1: new requests get 503.',
  [metricNames.envoyOverloaded]: 'A monitor at 0.9 or more, until all are below 0.85, or requests refused.',
  [metricNames.gatewayAttachedRoutes]:
    'One series per Gateway of our GatewayClasses (cardinality: the number of Gateways, never routes); a route counts once however many of its parentRefs or listeners take it, also one attached through a ListenerSet of the Gateway.',
  [metricNames.gatewayListeners]:
    '`programmed`: `true` (served) or `false` (refused: see the listener\'s conditions on /debug/gateway-api or the Gateway\'s status). Two series per Gateway, counting the listeners of its ListenerSets too; alert on `programmed="false"` above 0.',
};

export function metricsReferencePage(): string {
  const all = registeredMetrics();
  const ours = new Set<string>(Object.values(metricNames));
  const row = (m: MetricDoc): string[] => [
    code(m.name),
    m.type,
    m.labels.map((l) => code(l)).join(', '),
    cell([m.help, notes[m.name]].filter((x) => x !== undefined).join('. ')),
  ];
  const header = ['Metric', 'Type', 'Labels', 'Meaning'];
  return page(
    'the prom-client registry of `cli/metrics.ts`',
    'Metrics',
    `Every metric \`run --metrics-address HOST:PORT\` serves on \`/metrics\` (${all.length} in all). Gauges are computed at scrape time from the live controller, ` +
      'counters from events. Dashboards and alerts: [Observability](../guides/observability.md).',
    `## The controller's own (${all.filter((m) => ours.has(m.name)).length})`,
    table(header, all.filter((m) => ours.has(m.name)).map(row)),
    `## Process and Node.js (prom-client's default collectors, ${all.filter((m) => !ours.has(m.name)).length})`,
    table(header, all.filter((m) => !ours.has(m.name)).map(row)),
  );
}

// The peers scenario's results as data and as table rows: ours beside Contour, with the ratio ours / Contour
// (below 1: we are faster or send less). Pure, so the shaping is tested without running either controller.
import type { Summary } from './stats.js';

/** What one controller achieved at one size; `failed` says why it could not finish the rest. */
export interface PeerMeasures {
  /** Create Service, EndpointSlice, Ingress through the API -> first 200 for the new host. */
  applyTo200Ms?: Summary;
  /** EndpointSlice replaced (PUT) -> first request answered by the new endpoint. */
  endpointChangeMs?: Summary;
  /** Bytes Envoy received on its xDS connection for one new one-route Ingress (its upstream_cx_rx_bytes_total). */
  bytesPerRouteChange?: Summary;
  /** An Ingress's backend Service replaced (PUT) -> first request answered by the new backend. */
  routeSwitchMs?: Summary;
  /** The requests through Envoy during those switches, and those that were not 2xx. */
  switchLoad?: { switches: number; requests: number; non2xx: number; byStatus: Record<string, number> };
  failed?: string;
}

export interface PeersRow {
  existingRoutes: number;
  existingIngresses: number;
  ours: PeerMeasures;
  contour: PeerMeasures;
}

export type PeerMetric = 'applyTo200Ms' | 'endpointChangeMs' | 'bytesPerRouteChange' | 'routeSwitchMs';

const metricLabels: Record<PeerMetric, string> = {
  applyTo200Ms: 'apply -> first 200, ms',
  endpointChangeMs: 'endpoint change -> new endpoint, ms',
  bytesPerRouteChange: 'bytes to Envoy per one-route change',
  routeSwitchMs: 'backend switch -> new backend, ms',
};

/**
 * ours / Contour to two significant digits (bytes ratios can be 0.00083); undefined when either is missing or
 * Contour's is 0.
 */
export function peerRatio(ours: number | undefined, contour: number | undefined): number | undefined {
  if (ours === undefined || contour === undefined || !Number.isFinite(ours) || !Number.isFinite(contour) || contour === 0) return undefined;
  return Number((ours / contour).toPrecision(2));
}

/** The ratios of every metric both controllers measured at one size (median and p99). */
export function peerRatios(row: PeersRow): Partial<Record<PeerMetric, { median: number | undefined; p99: number | undefined }>> {
  const ratios: Partial<Record<PeerMetric, { median: number | undefined; p99: number | undefined }>> = {};
  for (const metric of Object.keys(metricLabels) as PeerMetric[]) {
    const ours = row.ours[metric];
    const contour = row.contour[metric];
    if (ours && contour) ratios[metric] = { median: peerRatio(ours.median, contour.median), p99: peerRatio(ours.p99, contour.p99) };
  }
  return ratios;
}

const cell = (x: number | undefined): string | number => (x === undefined ? '-' : x);

/** A metric's cells for one controller: p50 and p99, or why it has none. */
function measureCells(m: PeerMeasures, metric: PeerMetric): [string | number, string | number] {
  const s = m[metric];
  if (s) return [s.median, s.p99];
  return m.failed ? ['did not finish', '-'] : ['-', '-'];
}

/** The non-2xx during the switches, as `<non-2xx> of <requests>` in the p50 column. */
function switchLoadCells(m: PeerMeasures): [string, string] {
  if (m.switchLoad) return [`${m.switchLoad.non2xx} of ${m.switchLoad.requests}`, '-'];
  return [m.failed ? 'did not finish' : '-', '-'];
}

/** Rows for stats.table with peersTableHeader: one per size and metric, then the non-2xx during the switches. */
export function peersTableRows(rows: readonly PeersRow[]): (string | number)[][] {
  return rows.flatMap((row) => {
    const ratios = peerRatios(row);
    const switches = row.ours.switchLoad?.switches ?? row.contour.switchLoad?.switches;
    return [
      ...(Object.keys(metricLabels) as PeerMetric[]).map((metric) => [
        row.existingRoutes,
        metricLabels[metric],
        ...measureCells(row.ours, metric),
        ...measureCells(row.contour, metric),
        cell(ratios[metric]?.median),
        cell(ratios[metric]?.p99),
      ]),
      [row.existingRoutes, `non-2xx during ${switches ?? '-'} backend switches under load`, ...switchLoadCells(row.ours), ...switchLoadCells(row.contour), '-', '-'],
    ];
  });
}

export const peersTableHeader = ['existing routes', 'measure', 'ours p50', 'ours p99', 'Contour p50', 'Contour p99', 'ours/Contour p50', 'p99'];

/** The lines naming what a controller could not finish, for under the table. */
export function peersFailures(rows: readonly PeersRow[]): string[] {
  return rows.flatMap((row) =>
    (['ours', 'contour'] as const).flatMap((who) => (row[who].failed ? [`${who === 'ours' ? 'envoy-ingress' : 'Contour'} at ${row.existingRoutes} routes did not finish: ${row[who].failed}`] : [])),
  );
}

/** One controller creating and serving many Ingresses from an empty cluster (bench/peers-bulk.ts). */
export interface BulkMeasures {
  /** The first create request -> the last answered (every object, one request each, 8 at a time). */
  createSeconds?: number;
  /** The first create request -> the last Ingress answers 200. */
  lastOkSeconds?: number;
  /** The controller's CPU (user + system) over that time. */
  cpuSeconds?: number;
  /** The controller process's peak RSS since it started (VmHWM). */
  peakRssMiB?: number;
  envoyCpuSeconds?: number;
  envoyPeakRssMiB?: number;
  failed?: string;
}

export interface PeersBulk {
  ingresses: number;
  /** API objects created: Services, EndpointSlices, Secrets and Ingresses. */
  objects: number;
  ours: BulkMeasures;
  contour: BulkMeasures;
}

const bulkLabels: [keyof Omit<BulkMeasures, 'failed'>, string][] = [
  ['lastOkSeconds', 'first create -> last Ingress answers 200, s'],
  ['createSeconds', 'creating every object through the API, s'],
  ['cpuSeconds', 'controller CPU until then, s'],
  ['peakRssMiB', 'controller peak RSS, MiB'],
  ['envoyCpuSeconds', 'Envoy CPU until then, s'],
  ['envoyPeakRssMiB', 'Envoy peak RSS, MiB'],
];

export const bulkTableHeader = ['measure', 'ours', 'Contour', 'ours/Contour'];

/** Rows for stats.table with bulkTableHeader; a controller that did not finish shows what it measured. */
export function bulkTableRows(bulk: PeersBulk): (string | number)[][] {
  const value = (m: BulkMeasures, key: keyof Omit<BulkMeasures, 'failed'>): string | number => m[key] ?? (m.failed ? 'did not finish' : '-');
  return bulkLabels.map(([key, label]) => [label, value(bulk.ours, key), value(bulk.contour, key), cell(peerRatio(bulk.ours[key], bulk.contour[key]))]);
}

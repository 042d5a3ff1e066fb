import test from 'ava';
import { bulkTableRows, peerRatio, peerRatios, peersFailures, peersTableRows, type PeersRow } from './peers-results.js';
import { contourFlagsOf } from './contour-process.js';
import { summarize } from './stats.js';

const both: PeersRow = {
  existingRoutes: 1036,
  existingIngresses: 200,
  ours: {
    applyTo200Ms: summarize([40, 60]),
    endpointChangeMs: summarize([10, 30]),
    bytesPerRouteChange: summarize([351]),
    routeSwitchMs: summarize([20, 20]),
    switchLoad: { switches: 10, requests: 5000, non2xx: 0, byStatus: { 200: 5000 } },
  },
  contour: {
    applyTo200Ms: summarize([160, 240]),
    endpointChangeMs: summarize([100, 100]),
    bytesPerRouteChange: summarize([70200]),
    routeSwitchMs: summarize([200, 200]),
    switchLoad: { switches: 10, requests: 4000, non2xx: 3, byStatus: { 200: 3997, 503: 3 } },
  },
};

test('the ratio is ours / Contour, to two significant digits, and absent without a usable Contour figure', (t) => {
  t.is(peerRatio(50, 200), 0.25);
  t.is(peerRatio(1, 3), 0.33);
  t.is(peerRatio(351, 425422), 0.00083);
  t.is(peerRatio(3, 2), 1.5);
  t.is(peerRatio(50, 0), undefined);
  t.is(peerRatio(50, undefined), undefined);
  t.is(peerRatio(undefined, 50), undefined);
  t.is(peerRatio(50, Number.NaN), undefined);
});

test('ratios are computed per metric for the median and the p99', (t) => {
  t.deepEqual(peerRatios(both), {
    applyTo200Ms: { median: 0.25, p99: 0.25 },
    endpointChangeMs: { median: 0.2, p99: 0.3 },
    bytesPerRouteChange: { median: 0.005, p99: 0.005 },
    routeSwitchMs: { median: 0.1, p99: 0.1 },
  });
});

test('table rows put both columns and the ratios side by side, one row per size and metric', (t) => {
  t.deepEqual(peersTableRows([both]), [
    [1036, 'apply -> first 200, ms', 50, 60, 200, 240, 0.25, 0.25],
    [1036, 'endpoint change -> new endpoint, ms', 20, 30, 100, 100, 0.2, 0.3],
    [1036, 'bytes to Envoy per one-route change', 351, 351, 70200, 70200, 0.005, 0.005],
    [1036, 'backend switch -> new backend, ms', 20, 20, 200, 200, 0.1, 0.1],
    [1036, 'non-2xx during 10 backend switches under load', '0 of 5000', '-', '3 of 4000', '-', '-', '-'],
  ]);
});

test('a controller that did not finish keeps what it measured, shows "did not finish" for the rest and is named below the table', (t) => {
  const partial: PeersRow = { ...both, contour: { applyTo200Ms: summarize([100]), failed: 'no 200 for contour-endpoints.converge.test within 60000 ms' } };
  const rows = peersTableRows([partial]);
  t.deepEqual(rows[0], [1036, 'apply -> first 200, ms', 50, 60, 100, 100, 0.5, 0.6]);
  t.deepEqual(rows[1], [1036, 'endpoint change -> new endpoint, ms', 20, 30, 'did not finish', '-', '-', '-']);
  t.deepEqual(rows[4], [1036, 'non-2xx during 10 backend switches under load', '0 of 5000', '-', 'did not finish', '-', '-', '-']);
  t.deepEqual(peersFailures([both, partial]), ['Contour at 1036 routes did not finish: no 200 for contour-endpoints.converge.test within 60000 ms']);
});

test('Contour flags for the README leave out the per-run ports and paths', (t) => {
  const flags = contourFlagsOf(['--kubeconfig=/tmp/k', '--insecure', '--xds-port=123', '--xds-address=127.0.0.1', '--envoy-http-access-log=/tmp/a.log', '--envoy-service-http-port=80', '--stats-port=9']);
  t.deepEqual(flags, ['--insecure', '--xds-address=127.0.0.1']);
});

test('the bulk table shows both controllers and the ratio per measure, and what a controller that did not finish measured', (t) => {
  const rows = bulkTableRows({
    ingresses: 10000,
    objects: 31000,
    ours: { createSeconds: 100, lastOkSeconds: 101, cpuSeconds: 30, peakRssMiB: 400, envoyCpuSeconds: 20, envoyPeakRssMiB: 300 },
    contour: { createSeconds: 100, cpuSeconds: 120, peakRssMiB: 800, failed: 'no 200 for app-9999-0.bench.test within 180000 ms' },
  });
  t.deepEqual(rows, [
    ['first create -> last Ingress answers 200, s', 101, 'did not finish', '-'],
    ['creating every object through the API, s', 100, 100, 1],
    ['controller CPU until then, s', 30, 120, 0.25],
    ['controller peak RSS, MiB', 400, 800, 0.5],
    ['Envoy CPU until then, s', 20, 'did not finish', '-'],
    ['Envoy peak RSS, MiB', 300, 'did not finish', '-'],
  ]);
});
